package io.quiver.api.testing;

import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of a real server (ZooKeeper, in the partition tests) that a test can cut:
 * while {@link #blackHole black-holed} nothing passes either way and new connections are held
 * open unanswered — a partition as a client sees it, not a refusal; {@link #heal} closes what was
 * held, as a partition that heals leaves dead connections behind, and forwards new ones again.
 */
public final class BlackHoleProxy implements AutoCloseable {
  private final Vertx vertx = Vertx.vertx();
  private final NetClient client = vertx.createNetClient();
  private final NetServer server;
  private final String targetHost;
  private final int targetPort;
  private final List<NetSocket> open = new CopyOnWriteArrayList<>();
  private volatile boolean blackHoled;

  /** Listens on a free port, forwarding to {@code target} ({@code host:port}). */
  public BlackHoleProxy(String target) {
    int colon = target.lastIndexOf(':');
    this.targetHost = target.substring(0, colon);
    this.targetPort = Integer.parseInt(target.substring(colon + 1));
    this.server = vertx.createNetServer().connectHandler(this::accept).listen(0, "127.0.0.1").await();
  }

  /** {@code 127.0.0.1:port}, to give a client instead of the target's address. */
  public String address() {
    return "127.0.0.1:" + server.actualPort();
  }

  /** From now on nothing passes, on open connections or new ones. */
  public void blackHole() {
    blackHoled = true;
    open.forEach(NetSocket::pause);
  }

  /** The partition heals: connections held through it are closed, new ones are forwarded. */
  public void heal() {
    blackHoled = false;
    open.forEach(socket -> socket.close());
    open.clear();
  }

  private void accept(NetSocket downstream) {
    open.add(downstream);
    if (blackHoled) {
      downstream.pause();
      return;
    }
    downstream.pause();
    client.connect(targetPort, targetHost).onComplete(connected -> {
      if (connected.failed()) {
        downstream.close();
        return;
      }
      NetSocket upstream = connected.result();
      open.add(upstream);
      if (blackHoled) {
        upstream.pause();
        return;
      }
      forward(downstream, upstream);
      forward(upstream, downstream);
      downstream.resume();
    });
  }

  private void forward(NetSocket from, NetSocket to) {
    from.handler(data -> {
      if (!blackHoled) {
        to.write(data);
      }
    });
    from.closeHandler(closed -> {
      open.remove(from);
      to.close();
    });
  }

  @Override
  public void close() {
    vertx.close().await();
  }
}
