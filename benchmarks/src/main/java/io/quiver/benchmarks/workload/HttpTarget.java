package io.quiver.benchmarks.workload;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;

/** A Quiver server over HTTP, as product teams call it. */
final class HttpTarget implements Target {
  private final String name;
  private final WebClient client;
  private final Graph graph;

  HttpTarget(String name, Vertx vertx, int port, int connections, Graph graph) {
    this.name = name;
    this.graph = graph;
    // One connection per request in flight: the loop's depth.
    this.client = WebClient.create(vertx,
        new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(port).setKeepAlive(true).setTcpNoDelay(true),
        new PoolOptions().setHttp1MaxSize(connections));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Future<Integer> execute(Call call) {
    long from = call.from();
    String edge = "/v1/nodes/" + from + "/edges/follows/";
    return switch (call.operation()) {
      case GET_EDGES -> send(HttpMethod.GET, "/v1/nodes/" + from + "/edges/follows?limit=50", null);
      case GET_NODE -> send(HttpMethod.GET, "/v1/nodes/" + from, null);
      case ADD_EDGE -> send(HttpMethod.PUT, edge + call.to(), "{}").onSuccess(status -> graph.edge(from, call.to()));
      case UPDATE_EDGE -> send(HttpMethod.PUT, edge + call.to(),
          "{\"sequence\": " + call.sequence() + ", \"data\": {\"note\": \"" + call.text() + "\"}}");
      case UPDATE_NODE -> send(HttpMethod.PATCH, "/v1/nodes/" + from, "{\"data\": {\"bio\": \"" + call.text() + "\"}}");
      case COUNT_EDGES -> send(HttpMethod.GET, edge + "count", null);
      case REMOVE_EDGE -> send(HttpMethod.DELETE, edge + call.to(), null);
      case ADD_NODE -> client.request(HttpMethod.POST, "/v1/nodes/user")
          .sendBuffer(Buffer.buffer("{\"data\": {\"name\": \"" + call.text() + "\"}}"))
          .map(response -> {
            if (response.statusCode() == 201) {
              graph.created(Long.parseLong(response.bodyAsJsonObject().getString("id")));
            }
            return response.statusCode();
          });
      case DELETE_NODE -> send(HttpMethod.DELETE, "/v1/nodes/" + from, null);
      case GET_EDGE, POINT_READ -> send(HttpMethod.GET, edge + call.to(), null);
      case BATCH_READ -> send(HttpMethod.POST, "/v1/edges:batchGet", batchBody(call));
    };
  }

  /** {@code {"edges": [{"from", "type", "to"}, …]}}: each source's edge to the call's target. */
  static String batchBody(Call call) {
    StringBuilder body = new StringBuilder(64 + call.sources().size() * 64).append("{\"edges\": [");
    for (int i = 0; i < call.sources().size(); i++) {
      body.append(i == 0 ? "" : ", ").append("{\"from\": \"").append(call.sources().get(i))
          .append("\", \"type\": \"follows\", \"to\": \"").append(call.to()).append("\"}");
    }
    return body.append("]}").toString();
  }

  private Future<Integer> send(HttpMethod method, String path, String body) {
    HttpRequest<Buffer> request = client.request(method, path);
    return (body == null ? request.send() : request.sendBuffer(Buffer.buffer(body))).map(r -> r.statusCode());
  }

  @Override
  public void close() {
    client.close();
  }
}
