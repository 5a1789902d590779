package io.quiver.fleet.internal.move;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import io.quiver.store.shard.ShardSpan;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The move's state and its runner's lease in ZooKeeper. The state is one persistent document, so
 * a move outlives the server running it; the lease is an ephemeral znode holding the runner's
 * server id, so it goes with that server's session and another server (or a rerun) may take the
 * move over. One move at a time per fleet: the target's replication channel and the fence are
 * the fleet's, not the move's.
 *
 * <p>Blocking: from admin threads only.
 */
final class MoveStore {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final CuratorFramework curator;
  private final String statePath;
  private final String runnerPath;

  MoveStore(CuratorFramework curator, String movePath) {
    this.curator = curator;
    this.statePath = movePath;
    this.runnerPath = movePath + "-runner";
  }

  Optional<MoveState> read() throws Exception {
    try {
      return Optional.of(parse(curator.getData().forPath(statePath)));
    } catch (KeeperException.NoNodeException none) {
      return Optional.empty();
    }
  }

  /** Records a new move; VERSION_CONFLICT when one is already recorded. */
  void create(MoveState state) throws Exception {
    try {
      curator.create().creatingParentsIfNeeded().forPath(statePath, bytes(state));
    } catch (KeeperException.NodeExistsException raced) {
      throw GraphException.of(GraphException.Code.VERSION_CONFLICT, "another shard move was recorded just now");
    }
  }

  /**
   * Saves the runner's state, keeping an operator's cancellation that arrived meanwhile: compare-
   * and-set on the znode's version, read again when it raced. Only the lease's holder saves:
   * UNAVAILABLE when {@code runner} no longer holds it.
   */
  void save(MoveState state, String runner) throws Exception {
    if (!runner().map(runner::equals).orElse(false)) {
      throw leaseLost(state.shards());
    }
    write(state);
  }

  /** The refusal of a runner that no longer holds the lease. */
  static GraphException leaseLost(ShardSpan shards) {
    return GraphException.unavailable("this server no longer holds the lease of the move of shards " + shards
        + "; another server may be running it ('quiver shards move --status')");
  }

  /** Marks the move cancelled, for its runner to see (or undoes nothing itself: the caller does). */
  void requestCancel(MoveState state) throws Exception {
    write(state.cancelling());
  }

  private void write(MoveState state) throws Exception {
    while (true) {
      Stat stat = new Stat();
      MoveState stored = parse(curator.getData().storingStatIn(stat).forPath(statePath));
      MoveState merged = stored.cancelled() ? state.cancelling() : state;
      try {
        curator.setData().withVersion(stat.getVersion()).forPath(statePath, bytes(merged));
        return;
      } catch (KeeperException.BadVersionException raced) {
        // Read it again.
      }
    }
  }

  void delete() throws Exception {
    try {
      curator.delete().forPath(statePath);
    } catch (KeeperException.NoNodeException gone) {
      // Already finished or cancelled.
    }
  }

  /** The server holding the runner's lease, if one does. */
  Optional<String> runner() throws Exception {
    try {
      return Optional.of(new String(curator.getData().forPath(runnerPath), StandardCharsets.UTF_8));
    } catch (KeeperException.NoNodeException none) {
      return Optional.empty();
    }
  }

  /** Takes the runner's lease for {@code serverId}; VERSION_CONFLICT naming the holder when another has it. */
  void takeLease(String serverId) throws Exception {
    try {
      curator.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
          .forPath(runnerPath, serverId.getBytes(StandardCharsets.UTF_8));
    } catch (KeeperException.NodeExistsException held) {
      throw GraphException.of(GraphException.Code.VERSION_CONFLICT, "the shard move is being run by server "
          + runner().orElse("(just finished)") + "; follow it with 'quiver shards move --status', or rerun the move"
          + " once that server is gone");
    }
  }

  /** Lets go of the lease if {@code serverId} still holds it (never another runner's, taken after this one's session ended). */
  void releaseLease(String serverId) throws Exception {
    try {
      Stat stat = new Stat();
      byte[] holder = curator.getData().storingStatIn(stat).forPath(runnerPath);
      if (serverId.equals(new String(holder, StandardCharsets.UTF_8))) {
        curator.delete().withVersion(stat.getVersion()).forPath(runnerPath);
      }
    } catch (KeeperException.NoNodeException | KeeperException.BadVersionException gone) {
      // The session ended first, and another runner may hold it now.
    }
  }

  private static byte[] bytes(MoveState state) throws Exception {
    ObjectNode json = JSON.createObjectNode()
        .put("id", state.id())
        .put("shards", state.shards().toString())
        .put("from", state.from())
        .put("to", state.to())
        .put("phase", state.phase().name())
        .put("startedAtMillis", state.startedAtMillis())
        .put("cancelled", state.cancelled());
    return JSON.writeValueAsBytes(json);
  }

  private static MoveState parse(byte[] bytes) throws Exception {
    JsonNode json = JSON.readTree(bytes);
    return new MoveState(json.path("id").asText(), ShardSpan.parse(json.path("shards").asText()),
        json.path("from").asText(), json.path("to").asText(), MovePhase.valueOf(json.path("phase").asText()),
        json.path("startedAtMillis").asLong(), json.path("cancelled").asBoolean());
  }
}
