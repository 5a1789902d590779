package io.quiver.benchmarks.workload;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.api.server.QuiverServer;
import io.quiver.dev.DevStack;
import io.quiver.embedded.Ports;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.apache.commons.io.FileUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The look-aside rival is a correct service, not only a fast one: a read after a write through it
 * sees the write, though Redis held the older answer — every write drops the keys it makes stale,
 * as such services do. Against a real Redis and real MariaDB hosts.
 */
class LookasideCacheTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path DATA = Path.of("target", "lookaside-test-" + System.currentTimeMillis()).toAbsolutePath();

  private static DevStack stack;
  private static Vertx vertx;
  private static RedisCacheServer redis;
  private static JdbcHttpServer server;
  private static String base;
  private static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    stack = DevStack.start(DATA);
    // The example schema's tables are made when a Quiver server first publishes it, as the primer does.
    QuiverServer.start(stack.config(Ports.free()), stack.schema()).close();
    vertx = Vertx.vertx();
    redis = new RedisCacheServer(vertx, 1 << 20);
    int port = Ports.free();
    server = new JdbcHttpServer(port, stack.shardMap(), stack.schema(), 4, redis.port());
    base = "http://127.0.0.1:" + port + "/v1/nodes/";
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    redis.close();
    vertx.close().await();
    stack.close();
    FileUtils.deleteDirectory(DATA.toFile());
  }

  @Test
  void everyReadAfterAWrite_seesTheWrite_thoughRedisHeldTheOlderAnswer() throws Exception {
    String alice = send("POST", "user", "{\"data\": {\"name\": \"alice\"}}").get("id").asText();
    String bob = send("POST", "user", "{\"data\": {\"name\": \"bob\"}}").get("id").asText();
    RedisCacheServer.Stats before = redis.stats();

    assertThat(send("GET", alice, null).path("data").path("name").asText()).isEqualTo("alice");
    assertThat(send("GET", alice, null).path("data").path("name").asText()).as("the second read, from Redis")
        .isEqualTo("alice");
    send("PATCH", alice, "{\"data\": {\"bio\": \"climbs\"}}");
    assertThat(send("GET", alice, null).path("data").path("bio").asText()).as("the node after its update")
        .isEqualTo("climbs");

    String follows = alice + "/edges/follows";
    assertThat(send("GET", follows, null).get("edges")).isEmpty();
    assertThat(send("GET", follows + "/count", null).get("count").asLong()).isZero();
    assertThat(status("GET", follows + "/" + bob)).as("no edge yet, and Redis remembers that").isEqualTo(404);
    send("PUT", follows + "/" + bob, "{}");
    assertThat(send("GET", follows, null).get("edges")).extracting(edge -> edge.get("to").asText())
        .as("the list after the add").containsExactly(bob);
    assertThat(send("GET", follows + "/count", null).get("count").asLong()).as("the count after the add").isEqualTo(1);
    assertThat(status("GET", follows + "/" + bob)).as("the single edge after the add").isEqualTo(200);

    send("DELETE", follows + "/" + bob, null);
    assertThat(send("GET", follows, null).get("edges")).as("the list after the removal").isEmpty();
    assertThat(send("GET", follows + "/count", null).get("count").asLong()).isZero();
    assertThat(status("GET", follows + "/" + bob)).as("the single edge after the removal").isEqualTo(404);

    assertThat(redis.stats().hits() - before.hits()).as("answers came from Redis between the writes").isPositive();
  }

  private static JsonNode send(String method, String path, String body) throws Exception {
    HttpResponse<String> response = http.send(request(method, path, body), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(method + " " + path).isBetween(200, 299);
    return response.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(response.body());
  }

  private static int status(String method, String path) throws Exception {
    return http.send(request(method, path, null), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static HttpRequest request(String method, String path, String body) {
    return HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
        .build();
  }
}
