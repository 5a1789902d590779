package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.NodeId;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.TestBackend;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The registry through the admin API, live in ZooKeeper, over two servers. */
@ExtendWith(GraphInvariants.class)
class SchemaAdminTest {
  private static final Map<String, String> ADMIN = Map.of("Authorization", "Bearer " + TestBackend.ADMIN_TOKEN);
  private static ApiFixture first;
  private static ApiFixture second;

  @BeforeAll
  static void start() throws Exception {
    first = new ApiFixture();
    second = new ApiFixture();
  }

  @AfterAll
  static void stop() {
    first.close();
    second.close();
  }

  private static JsonNode schema(ApiFixture api) {
    return api.call(GET, "/v1/schema").body();
  }

  private static int nextId(String kind) {
    int max = 0;
    for (JsonNode type : schema(first).get(kind)) {
      max = Math.max(max, type.get("id").asInt());
    }
    return max + 1;
  }

  private static String unique(String prefix) {
    return prefix + System.nanoTime();
  }

  private static Answer define(ApiFixture api, String kind, String name, String body) {
    return api.call(PUT, "/v1/schema/" + kind + "/" + name, body, ADMIN);
  }

  @Test
  void adminCalls_withoutTokenAre401_withAWrongTokenAre403_andChangeNothing() {
    JsonNode before = schema(first);
    String name = unique("t");
    String body = "{\"id\": " + nextId("nodeTypes") + ", \"fields\": {}}";

    Answer none = first.call(PUT, "/v1/schema/node-types/" + name, body);
    Answer wrong = first.call(PUT, "/v1/schema/node-types/" + name, body, Map.of("Authorization", "Bearer nope"));
    Answer notBearer = first.call(PUT, "/v1/schema/node-types/" + name, body, Map.of("Authorization", TestBackend.ADMIN_TOKEN));

    assertThat(none.status()).isEqualTo(401);
    assertThat(none.body().get("error").get("code").asText()).isEqualTo("unauthenticated");
    assertThat(wrong.status()).isEqualTo(403);
    assertThat(wrong.body().get("error").get("code").asText()).isEqualTo("forbidden");
    assertThat(notBearer.status()).isEqualTo(401);
    assertThat(schema(first)).isEqualTo(before);
  }

  @Test
  void aNodeWrittenBeforeAFieldExisted_readsBackWithItsDefault_andItsStoredJsonIsUntouched() throws Exception {
    String name = unique("note");
    int id = nextId("nodeTypes");
    assertThat(define(first, "node-types", name, "{\"id\": " + id + ", \"fields\": {\"text\": {\"type\": \"string\"}}}")
        .status()).isEqualTo(200);
    String node = first.call(POST, "/v1/nodes/" + name, "{\"data\": {\"text\": \"hello\"}}").id();

    Answer added = define(first, "node-types", name, "{\"id\": " + id + ", \"fields\": {\"text\": {\"type\": \"string\"},"
        + " \"colour\": {\"type\": \"string\", \"required\": true, \"default\": \"red\"}}}");

    assertThat(added.status()).as(added.text()).isEqualTo(200);
    JsonNode read = first.call(GET, "/v1/nodes/" + node).body();
    assertThat(read.get("data").get("colour").asText()).isEqualTo("red");
    assertThat(read.get("version").asLong()).isEqualTo(1);
    assertThat(first.storedData(name, NodeId.parse(node).orElseThrow())).doesNotContain("colour");
  }

  @Test
  void anEdgeTypeAddedAtRuntime_acceptsAddEdgeOnEveryShard() {
    String edge = unique("knows");
    Answer defined = define(first, "edge-types", edge,
        "{\"id\": " + nextId("edgeTypes") + ", \"from\": \"user\", \"to\": \"user\", \"inverse\": \"" + edge + "\"}");
    assertThat(defined.status()).as(defined.text()).isEqualTo(200);

    Map<Integer, String> userOnShard = new HashMap<>();
    for (int i = 0; i < 400 && userOnShard.size() < TestBackend.SHARDS; i++) {
      Answer user = first.call(POST, "/v1/nodes/user", "{\"data\": {\"name\": \"s\"}}");
      userOnShard.putIfAbsent(user.body().get("shard").asInt(), user.id());
    }
    assertThat(userOnShard).hasSize(TestBackend.SHARDS);
    String target = userOnShard.get(0);
    userOnShard.forEach((shard, user) -> {
      Answer add = first.call(PUT, "/v1/nodes/" + user + "/edges/" + edge + "/" + target);
      assertThat(add.status()).as("shard %d: %s", shard, add.text()).isEqualTo(200);
      assertThat(first.call(GET, "/v1/nodes/" + user + "/edges/" + edge + "/count").body().get("count").asLong())
          .isEqualTo(1);
    });
  }

  @Test
  void anIncompatibleChange_is409NamingTheRule_andChangesNothing() {
    long version = schema(first).get("version").asLong();

    Answer moved = define(first, "node-types", "pin", "{\"id\": 77, \"fields\": {}}");
    Answer retyped = define(first, "node-types", "user", "{\"id\": 1, \"fields\": {\"name\": {\"type\": \"integer\"}}}");
    Answer reends = define(first, "edge-types", "follows", "{\"id\": 5, \"from\": \"user\", \"to\": \"pin\", \"inverse\": \"followed_by\"}");

    assertThat(moved.status()).isEqualTo(409);
    assertThat(moved.body().get("error").get("code").asText()).isEqualTo("incompatible_change");
    assertThat(rule(moved)).isEqualTo("TYPE_ID_IMMUTABLE");
    assertThat(retyped.status()).isEqualTo(409);
    assertThat(rule(retyped)).isEqualTo("FIELD_TYPE_IMMUTABLE");
    assertThat(reends.status()).isEqualTo(409);
    // New ends for one half of an inverse pair: the pair no longer mirrors, the first rule it breaks.
    assertThat(rule(reends)).isEqualTo("INVERSE_PAIR_MISMATCH");
    assertThat(schema(first).get("version").asLong()).isEqualTo(version);
  }

  /** The compatibility rule a refusal names. */
  private static String rule(Answer refused) {
    return refused.body().get("error").get("details").get("rule").asText();
  }

  @Test
  void aMalformedDefinition_is400() {
    assertThat(define(first, "node-types", "Bad-Name", "{\"id\": 900}").status()).isEqualTo(400);
    assertThat(define(first, "node-types", unique("n"), "{\"fields\": {}}").status()).isEqualTo(400);
    assertThat(define(first, "node-types", unique("n"), "{\"id\": 900, \"fields\": {\"f\": {\"type\": \"date\"}}}")
        .status()).isEqualTo(400);
    Answer undefinedEnd = define(first, "edge-types", unique("e"), "{\"id\": 900, \"from\": \"user\", \"to\": \"spaceship\"}");
    assertThat(undefinedEnd.status()).isEqualTo(400);
    assertThat(rule(undefinedEnd)).isEqualTo("UNDEFINED_NODE_TYPE");
  }

  @Test
  void aChangeThroughOneServer_isServedByTheOtherWithinASecond() throws Exception {
    String name = unique("late");
    Answer defined = define(first, "node-types", name, "{\"id\": " + nextId("nodeTypes") + ", \"fields\": {}}");
    long changedAt = System.nanoTime();
    assertThat(defined.status()).isEqualTo(200);

    Duration seen = null;
    while (Duration.ofNanos(System.nanoTime() - changedAt).compareTo(Duration.ofSeconds(2)) < 0) {
      if (hasNodeType(schema(second), name)) {
        seen = Duration.ofNanos(System.nanoTime() - changedAt);
        break;
      }
      Thread.sleep(5);
    }
    assertThat(seen).as("the second server serves the change").isNotNull().isLessThan(Duration.ofSeconds(1));
    System.out.printf("schema change served by the second server after %.1f ms%n", seen.toNanos() / 1e6);
    assertThat(second.call(POST, "/v1/nodes/" + name, "{\"data\": {}}").status()).isEqualTo(201);
  }

  private static boolean hasNodeType(JsonNode schema, String name) {
    for (Iterator<String> names = schema.get("nodeTypes").fieldNames(); names.hasNext(); ) {
      if (names.next().equals(name)) {
        return true;
      }
    }
    return false;
  }
}
