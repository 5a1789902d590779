package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.DELETE;
import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.testing.ApiClient;
import io.quiver.core.GraphException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** How {@link RouteTable} finds a route: by path shape, then method, a literal segment before a parameter. */
class RouteTableTest {
  private static Vertx vertx;
  private static HttpServer server;
  private static ApiClient client;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    Router router = Router.router(vertx);
    router.route("/v1/*").handler(new RouteTable()
        .add(GET, "/v1/nodes/:id", "getNode", Set.of(), ctx -> said(ctx, "node " + ctx.pathParam("id")))
        .add(GET, "/v1/nodes/:type/by/:field/:value", "getNodeBy", Set.of(),
            ctx -> said(ctx, ctx.pathParam("type") + "." + ctx.pathParam("field") + "=" + ctx.pathParam("value")))
        .add(GET, "/v1/nodes/:from/edges/:edgeType/count", "countEdges", Set.of(), ctx -> said(ctx, "count"))
        .add(GET, "/v1/nodes/:from/edges/:edgeType/:to", "getEdge", Set.of(),
            ctx -> said(ctx, "edge " + ctx.pathParam("from") + " " + ctx.pathParam("edgeType") + " " + ctx.pathParam("to")))
        .add(GET, "/v1/nodes/:from/edges/:edgeType", "getEdges", Set.of("limit"),
            ctx -> said(ctx, "edges limit " + QueryParams.of(ctx).get("limit")))
        .add(DELETE, "/v1/nodes/:id", "deleteNode", Set.of(), ctx -> Future.succeededFuture())
        .add(PUT, "/v1/nodes/:id", "replaceNode", Set.of(),
            ctx -> Future.failedFuture(GraphException.notFound("no node " + ctx.pathParam("id")))));
    router.get("/v1/other").handler(ctx -> ctx.end("a route after the table"));
    router.route().failureHandler(ApiErrors::handle);
    router.errorHandler(404, ApiErrors::handle);
    server = vertx.createHttpServer().requestHandler(router).listen(0).await();
    client = new ApiClient(server.actualPort());
  }

  @AfterAll
  static void stop() {
    client.close();
    vertx.close().await();
  }

  private static Future<Buffer> said(RoutingContext ctx, String text) {
    return Future.succeededFuture(Buffer.buffer(text));
  }

  @Test
  void aPath_findsItsRoute_withItsParametersDecoded() {
    assertThat(client.call(GET, "/v1/nodes/12").text()).isEqualTo("node 12");
    assertThat(client.call(GET, "/v1/nodes/user/by/email/a%40b.c%2Fd").text()).isEqualTo("user.email=a@b.c/d");
    assertThat(client.call(GET, "/v1/nodes/12/edges/follows/13").text()).isEqualTo("edge 12 follows 13");
    assertThat(client.call(GET, "/v1/nodes/12/edges/follows?limit=5").text()).isEqualTo("edges limit 5");
  }

  @Test
  void aLiteralSegment_isTriedBeforeAParameter() {
    assertThat(client.call(GET, "/v1/nodes/12/edges/follows/count").text()).isEqualTo("count");
  }

  @Test
  void aKnownPathUnderAnotherMethod_is405_andAnUnknownOne_goesToTheRoutesAfter() {
    ApiClient.Answer wrongMethod = client.call(io.vertx.core.http.HttpMethod.PATCH, "/v1/nodes/12/edges/follows/13");
    assertThat(wrongMethod.status()).isEqualTo(405);
    assertThat(wrongMethod.body().at("/error/code").asText()).isEqualTo("method_not_allowed");

    assertThat(client.call(GET, "/v1/other").text()).isEqualTo("a route after the table");
    ApiClient.Answer unknown = client.call(GET, "/v1/nodes/12/edges");
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.body().at("/error/code").asText()).isEqualTo("not_found");
  }

  @Test
  void aNullAnswer_is204_aFailure_goesToTheFailureHandler_andAnUnknownQueryParameter_is400() {
    assertThat(client.call(DELETE, "/v1/nodes/12").status()).isEqualTo(204);
    ApiClient.Answer missing = client.call(PUT, "/v1/nodes/12", "{}");
    assertThat(missing.status()).isEqualTo(404);
    assertThat(missing.body().at("/error/message").asText()).isEqualTo("no node 12");
    ApiClient.Answer typo = client.call(GET, "/v1/nodes/12/edges/follows?limt=5");
    assertThat(typo.status()).isEqualTo(400);
    assertThat(typo.body().at("/error/message").asText()).contains("unknown query parameter 'limt'");
  }
}
