package io.quiver.store.internal;

import io.quiver.core.GraphException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
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
    Context caller = vertx.getOrCreateContext();
    Promise<Claim> claimed = Promise.promise();
    try {
      curator.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL)
          .inBackground((client, event) -> caller.runOnContext(back -> {
            if (event.getResultCode() == KeeperException.Code.OK.intValue()) {
              claimed.complete(new Held(name));
            } else {
              running.remove(name);
              claimed.fail(event.getResultCode() == KeeperException.Code.NODEEXISTS.intValue() ? busy(name)
                  : GraphException.unavailable("could not claim the import's name in ZooKeeper: "
                      + KeeperException.Code.get(event.getResultCode())));
            }
          }))
          .forPath(path(name));
    } catch (Exception e) {
      running.remove(name);
      return Future.failedFuture(GraphException.unavailable("could not claim the import's name in ZooKeeper: " + e.getMessage()));
    }
    return claimed.future();
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
      Context caller = vertx.getOrCreateContext();
      Promise<Void> held = Promise.promise();
      try {
        curator.checkExists().inBackground((client, event) -> {
          boolean ours = event.getStat() != null
              && event.getStat().getEphemeralOwner() == client.getZookeeperClient().getZooKeeper().getSessionId();
          caller.runOnContext(back -> {
            if (ours) {
              held.complete();
            } else {
              held.fail(GraphException.unavailable("import '" + name + "' lost its claim on its name (its ZooKeeper"
                  + " session ended); what committed stays, and a rerun finishes the rest"));
            }
          });
        }).forPath(path(name));
      } catch (Exception e) {
        held.fail(GraphException.unavailable("could not check the import's claim in ZooKeeper: " + e.getMessage()));
      }
      return held.future();
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
      Context caller = vertx.getOrCreateContext();
      Promise<Void> done = Promise.promise();
      try {
        curator.delete().guaranteed().inBackground((client, event) -> caller.runOnContext(back -> {
          running.remove(name);
          done.complete();
        })).forPath(path(name));
      } catch (Exception e) {
        running.remove(name);
        done.complete();
      }
      return done.future();
    }
  }
}
