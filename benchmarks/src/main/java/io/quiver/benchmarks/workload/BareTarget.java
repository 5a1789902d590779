package io.quiver.benchmarks.workload;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;

/**
 * The HTTP stack's ceiling: a bare Vert.x server, one per event loop as Quiver's, answering every
 * request with the same node JSON. Every operation of the mix becomes one GET.
 */
final class BareTarget implements Target {
  private static final Buffer NODE = Buffer.buffer("{\"id\":\"241294492511762325\",\"type\":\"user\",\"shard\":3429,"
      + "\"data\":{\"name\":\"someone\",\"bio\":\"\"},\"version\":1,\"createdAt\":\"2026-11-21T10:00:00.000000Z\","
      + "\"updatedAt\":\"2026-11-21T10:00:00.000000Z\"}");

  private final Vertx server = Vertx.vertx();
  private final WebClient client;

  BareTarget(Vertx vertx, int port, int connections) {
    int cores = Runtime.getRuntime().availableProcessors();
    server.deployVerticle(() -> new VerticleBase() {
      @Override
      public Future<?> start() {
        return vertx.createHttpServer(new HttpServerOptions().setPort(port).setHost("127.0.0.1"))
            .requestHandler(request -> request.response().putHeader("Content-Type", "application/json").end(NODE))
            .listen();
      }
    }, new DeploymentOptions().setInstances(cores)).await();
    client = WebClient.create(vertx,
        new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(port).setKeepAlive(true).setTcpNoDelay(true),
        new PoolOptions().setHttp1MaxSize(connections));
  }

  @Override
  public String name() {
    return "bare-vertx";
  }

  @Override
  public Future<Integer> execute(Call call) {
    return client.request(HttpMethod.GET, "/v1/nodes/" + call.from()).send().map(response -> response.statusCode());
  }

  @Override
  public void close() {
    client.close();
    server.close().await();
  }
}
