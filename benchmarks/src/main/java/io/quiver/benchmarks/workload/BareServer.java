package io.quiver.benchmarks.workload;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerOptions;

/**
 * The HTTP stack's ceiling: a bare Vert.x server, one per event loop as Quiver's, answering every
 * request with the same node JSON. The generator calls it as {@link BareTarget}.
 */
final class BareServer implements AutoCloseable {
  private static final Buffer NODE = Buffer.buffer("{\"id\":\"241294492511762325\",\"type\":\"user\",\"shard\":3429,"
      + "\"data\":{\"name\":\"someone\",\"bio\":\"\"},\"version\":1,\"createdAt\":\"2026-11-21T10:00:00.000000Z\","
      + "\"updatedAt\":\"2026-11-21T10:00:00.000000Z\"}");

  private final Vertx vertx = Vertx.vertx();

  BareServer(int port) {
    vertx.deployVerticle(() -> new VerticleBase() {
      @Override
      public Future<?> start() {
        return vertx.createHttpServer(new HttpServerOptions().setPort(port).setHost("127.0.0.1"))
            .requestHandler(request -> request.response().putHeader("Content-Type", "application/json").end(NODE))
            .listen();
      }
    }, new DeploymentOptions().setInstances(Runtime.getRuntime().availableProcessors())).await();
  }

  @Override
  public void close() {
    vertx.close().await();
  }
}
