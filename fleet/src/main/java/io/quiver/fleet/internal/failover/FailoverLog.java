package io.quiver.fleet.internal.failover;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.core.GraphException;
import io.quiver.fleet.FailoverReport;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * Every failover, recorded in ZooKeeper beside the shard map ({@code <shardMapPath>-failovers}, one
 * persistent sequential znode each, its report as JSON), so any server answers the admin API's
 * list and the record outlives the coordinator that made it. The oldest go once there are more than
 * {@link #KEPT}.
 */
public final class FailoverLog {
  /** How many failovers are kept. */
  static final int KEPT = 100;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final CuratorFramework curator;
  private final String path;

  public FailoverLog(CuratorFramework curator, String path) {
    this.curator = curator;
    this.path = path;
  }

  void record(FailoverReport report) throws Exception {
    curator.create().creatingParentsIfNeeded().withMode(CreateMode.PERSISTENT_SEQUENTIAL)
        .forPath(path + "/failover-", JSON.writeValueAsBytes(report));
    List<String> names = names();
    for (int i = 0; i < names.size() - KEPT; i++) {
      curator.delete().quietly().forPath(path + "/" + names.get(i));
    }
  }

  /**
   * Replaces the record of the failover {@code settled} describes (the one of its host that began at
   * its time) with it; a record trimmed meanwhile is not brought back.
   */
  void update(FailoverReport settled) throws Exception {
    for (String name : names()) {
      try {
        FailoverReport stored = JSON.readValue(curator.getData().forPath(path + "/" + name), FailoverReport.class);
        if (stored.host().equals(settled.host()) && stored.at().equals(settled.at())) {
          curator.setData().forPath(path + "/" + name, JSON.writeValueAsBytes(settled));
          return;
        }
      } catch (KeeperException.NoNodeException trimmed) {
        // Removed by a newer record meanwhile.
      }
    }
  }

  /** The failovers recorded, oldest first. */
  public List<FailoverReport> read() throws Exception {
    List<FailoverReport> reports = new ArrayList<>();
    for (String name : names()) {
      try {
        reports.add(JSON.readValue(curator.getData().forPath(path + "/" + name), FailoverReport.class));
      } catch (KeeperException.NoNodeException trimmed) {
        // Removed by a newer record meanwhile.
      } catch (com.fasterxml.jackson.core.JacksonException unreadable) {
        throw GraphException.of(GraphException.Code.INTERNAL, "failover record " + name + " cannot be read: "
            + unreadable.getOriginalMessage(), unreadable);
      }
    }
    return reports;
  }

  private List<String> names() throws Exception {
    try {
      List<String> names = new ArrayList<>(curator.getChildren().forPath(path));
      names.sort(null);
      return names;
    } catch (KeeperException.NoNodeException none) {
      return List.of();
    }
  }
}
