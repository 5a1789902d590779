package io.quiver.store.internal;

import io.quiver.core.GraphException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.Backgroundable;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.PathAndBytesable;
import org.apache.curator.framework.api.Pathable;
import org.apache.zookeeper.KeeperException;

/**
 * A ZooKeeper call made without blocking: a Curator builder sent with a background callback, its
 * event answered on the caller's context. Whatever the result code, the event is the answer (a
 * missing node is an answer, not a failure); only a call that could not be sent fails, UNAVAILABLE.
 */
final class ZooKeeperCalls {
  private ZooKeeperCalls() {}

  /** A read, a check or a delete: {@code builder} (such as {@code curator.getData()}) on {@code path}. */
  static Future<CuratorEvent> call(Context context, String what, Backgroundable<? extends Pathable<?>> builder,
      String path) {
    Promise<CuratorEvent> answered = Promise.promise();
    try {
      builder.inBackground(answer(context, answered)).forPath(path);
    } catch (Exception e) {
      answered.fail(unsent(what, e));
    }
    return answered.future();
  }

  /** A create or a write: {@code builder} (such as {@code curator.setData()}) putting {@code data} at {@code path}. */
  static Future<CuratorEvent> write(Context context, String what,
      Backgroundable<? extends PathAndBytesable<?>> builder, String path, byte[] data) {
    Promise<CuratorEvent> answered = Promise.promise();
    try {
      builder.inBackground(answer(context, answered)).forPath(path, data);
    } catch (Exception e) {
      answered.fail(unsent(what, e));
    }
    return answered.future();
  }

  private static BackgroundCallback answer(Context context, Promise<CuratorEvent> answered) {
    return (client, event) -> context.runOnContext(back -> answered.complete(event));
  }

  private static GraphException unsent(String what, Exception e) {
    return GraphException.unavailable("could not " + what + " in ZooKeeper: " + e.getMessage());
  }

  static boolean is(CuratorEvent event, KeeperException.Code code) {
    return event.getResultCode() == code.intValue();
  }

  /** UNAVAILABLE naming what failed and ZooKeeper's code. */
  static GraphException failed(String what, CuratorEvent event) {
    return GraphException.unavailable("could not " + what + " in ZooKeeper: "
        + KeeperException.Code.get(event.getResultCode()));
  }
}
