package io.quiver.benchmarks.workload;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;

/** {@link BareServer} as the generator calls it: every operation of the mix becomes one GET of a node. */
final class BareTarget implements Target {
  private final WebClient client;

  BareTarget(Vertx vertx, int port, int connections) {
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
  }
}
