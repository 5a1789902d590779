package io.quiver.store.internal;

import io.quiver.core.GraphException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * Which import names have a run under way: in this process (a set), and across the fleet (an
 * ephemeral znode per name under one directory, when the backend has ZooKeeper). A run claims its
 * name before its first batch and lets go when it closes; its session ending lets go too. Every
 * ZooKeeper call is asynchronous (Curator's background callbacks), answered on the caller's
 * context, so nothing here blocks an event loop.
 */
final class ImportClaims {
  private final Vertx vertx;
  private final CuratorFramework curator;
  private final String directory;
  private final Set<String> running = ConcurrentHashMap.newKeySet();

  /** @param curator null for a backend without ZooKeeper: claims hold in this process only */
  ImportClaims(Vertx vertx, CuratorFramework curator, String directory) {
    this.vertx = vertx;
    this.curator = curator;
    this.directory = directory;
  }

  /** One run's claim on a name. */
  interface Claim {
    /** Fails UNAVAILABLE once the claim is gone (the session that held it expired). */
    Future<Void> stillHeld();

    /** Lets go of the name; idempotent. */
    Future<Void> release();
  }

  Future<Claim> claim(String name) {
    if (!running.add(name)) {
      return Future.failedFuture(busy(name));
    }
    if (curator == null) {
      return Future.succeededFuture(new Held(name));
    }
    return ZooKeeperCalls.write(vertx.getOrCreateContext(), "claim the import's name",
            curator.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL), path(name), new byte[0])
        .compose(created -> {
          if (ZooKeeperCalls.is(created, KeeperException.Code.OK)) {
            return Future.<Claim>succeededFuture(new Held(name));
          }
          running.remove(name);
          return Future.failedFuture(ZooKeeperCalls.is(created, KeeperException.Code.NODEEXISTS) ? busy(name)
              : ZooKeeperCalls.failed("claim the import's name", created));
        }, refused -> {
          running.remove(name);
          return Future.failedFuture(refused);
        });
  }

  private String path(String name) {
    return directory + "/" + name;
  }

  private static GraphException busy(String name) {
    return GraphException.unavailable("import '" + name + "' is running already (a run started elsewhere, or one"
        + " this client retried while it went on); retry once it has ended");
  }

  private final class Held implements Claim {
    private final String name;
    private boolean released;

    Held(String name) {
      this.name = name;
    }

    @Override
    public Future<Void> stillHeld() {
      if (curator == null) {
        return Future.succeededFuture();
      }
      return ZooKeeperCalls.call(vertx.getOrCreateContext(), "check the import's claim", curator.checkExists(),
              path(name))
          .compose(checked -> {
            boolean ours = checked.getStat() != null && checked.getStat().getEphemeralOwner() == sessionId();
            return ours ? Future.<Void>succeededFuture()
                : Future.failedFuture(GraphException.unavailable("import '" + name + "' lost its claim on its name"
                    + " (its ZooKeeper session ended); what committed stays, and a rerun finishes the rest"));
          });
    }

    private long sessionId() {
      try {
        return curator.getZookeeperClient().getZooKeeper().getSessionId();
      } catch (Exception e) {
        return -1;
      }
    }

    @Override
    public synchronized Future<Void> release() {
      if (released) {
        return Future.succeededFuture();
      }
      released = true;
      if (curator == null) {
        running.remove(name);
        return Future.succeededFuture();
      }
      return ZooKeeperCalls.call(vertx.getOrCreateContext(), "release the import's name",
              curator.delete().guaranteed(), path(name))
          .otherwiseEmpty()
          .onComplete(released -> running.remove(name))
          .mapEmpty();
    }
  }
}
