package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.DELETE;
import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.PATCH;
import static io.vertx.core.http.HttpMethod.POST;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Unique lookups over HTTP on the real hosts: claims on home shards, re-checked reads, the repair and the build. */
@ExtendWith(GraphInvariants.class)
class UniqueLookupTest {
  private static final Map<String, String> ADMIN = Map.of("Authorization", "Bearer " + TestBackend.ADMIN_TOKEN);
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static ApiFixture api;

  @BeforeAll
  static void start() throws Exception {
    api = new ApiFixture();
  }

  @AfterAll
  static void stop() {
    api.close();
  }

  /** Defines a new node type with these fields; answers its name. */
  private static String defineType(String fields) {
    String name = "acct" + System.nanoTime();
    Answer defined = api.call(PUT, "/v1/schema/node-types/" + name,
        "{\"id\": " + nextNodeTypeId() + ", \"fields\": " + fields + "}", ADMIN);
    assertThat(defined.status()).as(defined.text()).isEqualTo(200);
    return name;
  }

  private static int nextNodeTypeId() {
    int max = 0;
    for (JsonNode type : api.call(GET, "/v1/schema").body().get("nodeTypes")) {
      max = Math.max(max, type.get("id").asInt());
    }
    return max + 1;
  }

  private static Answer create(String type, String data) {
    return api.call(POST, "/v1/nodes/" + type, "{\"data\": " + data + "}");
  }

  private static Answer lookup(String type, String field, String value) {
    return api.call(GET, "/v1/nodes/" + type + "/by/" + field + "/" + value);
  }

  private static void assertViolation(Answer answer, String field) {
    assertThat(answer.status()).as(answer.text()).isEqualTo(409);
    assertThat(answer.body().path("error").path("code").asText()).isEqualTo("unique_violation");
    assertThat(answer.body().path("error").path("details").path("field").asText()).isEqualTo(field);
  }

  /** Runs the repair of a unique index over HTTP; answers its summary line. */
  private static JsonNode repair(String type, String field) throws Exception {
    Answer answer = api.call(POST, "/v1/admin/unique/" + type + "/" + field + "/repair", null, ADMIN);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    String[] lines = answer.text().trim().split("\n");
    JsonNode last = MAPPER.readTree(lines[lines.length - 1]);
    assertThat(last.has("summary")).as(answer.text()).isTrue();
    return last.get("summary");
  }

  @Test
  void fiftyConcurrentCreatesOfOneUsername_giveOne201And49UniqueViolations_andTheLookupReturnsTheWinner()
      throws Exception {
    String type = defineType("{\"username\": {\"type\": \"string\", \"unique\": true}}");
    JsonNode declared = api.call(GET, "/v1/schema").body().get("nodeTypes").get(type).get("fields").get("username");
    assertThat(declared.get("unique").get("state").asText()).as("a new type's index is active at once").isEqualTo("active");
    assertThat(declared.get("unique").get("shards").asInt()).isEqualTo(TestBackend.SHARDS);

    List<Future<Answer>> racing = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      racing.add(api.client().callAsync(POST, "/v1/nodes/" + type, "{\"data\": {\"username\": \"alice\", \"n\": " + i + "}}"));
    }
    Future.all(racing).await();
    List<Answer> answers = racing.stream().map(Future::result).toList();
    List<Answer> created = answers.stream().filter(answer -> answer.status() == 201).toList();
    assertThat(created).as("exactly one create wins").hasSize(1);
    answers.stream().filter(answer -> answer.status() != 201).forEach(answer -> assertViolation(answer, "username"));
    assertThat(api.nodeRows(type)).as("a refused create writes nothing").isEqualTo(1);

    Answer found = lookup(type, "username", "alice");
    assertThat(found.status()).isEqualTo(200);
    assertThat(found.id()).isEqualTo(created.get(0).id());
    assertThat(found.body().get("data").get("username").asText()).isEqualTo("alice");
    assertThat(api.tables().uniqueClaims(type, "username")).containsExactly(Map.entry("alice", Long.parseLong(found.id())));
  }

  @Test
  void changingAUniqueValue_freesTheOldOne_aHeldValueIsRefused_andADeletionFreesItsValue() throws Exception {
    String type = defineType("{\"username\": {\"type\": \"string\", \"unique\": true},"
        + " \"number\": {\"type\": \"integer\", \"unique\": true}}");
    String a = create(type, "{\"username\": \"alice\", \"number\": 7}").id();
    assertThat(api.call(PATCH, "/v1/nodes/" + a, "{\"data\": {\"username\": \"alicia\"}}").status()).isEqualTo(200);
    String b = create(type, "{\"username\": \"alice\", \"number\": 8}").id();
    assertThat(b).as("the old value is free as soon as the change answers").isNotNull();
    assertThat(lookup(type, "username", "alice").id()).isEqualTo(b);
    assertThat(lookup(type, "username", "alicia").id()).isEqualTo(a);
    assertThat(lookup(type, "number", "7").id()).isEqualTo(a);

    assertViolation(api.call(PATCH, "/v1/nodes/" + b, "{\"data\": {\"username\": \"alicia\"}}"), "username");
    assertViolation(api.call(PUT, "/v1/nodes/" + b, "{\"data\": {\"username\": \"bea\", \"number\": 7.0}}"), "number");
    JsonNode unchanged = api.call(GET, "/v1/nodes/" + b).body();
    assertThat(unchanged.get("data").get("username").asText()).as("a refused update changes nothing").isEqualTo("alice");
    assertThat(unchanged.get("version").asLong()).isEqualTo(1);
    assertThat(lookup(type, "username", "bea").status()).as("nor leaves its claim trusted").isEqualTo(404);

    assertThat(api.call(DELETE, "/v1/nodes/" + a).status()).isEqualTo(204);
    assertThat(lookup(type, "username", "alicia").status()).isEqualTo(404);
    String c = create(type, "{\"username\": \"alicia\", \"number\": 7}").id();
    assertThat(c).isNotNull();
    assertThat(api.tables().uniqueClaims(type, "username"))
        .containsExactlyInAnyOrderEntriesOf(Map.of("alice", Long.parseLong(b), "alicia", Long.parseLong(c)));
    assertThat(api.tables().uniqueClaims(type, "number"))
        .containsExactlyInAnyOrderEntriesOf(Map.of("7", Long.parseLong(c), "8", Long.parseLong(b)));
  }

  @Test
  void aClaimLeftByACrash_isIgnoredByReads_takenOverAfterTheLease_andRemovedByTheRepair_whichRestoresALostOne()
      throws Exception {
    String type = defineType("{\"username\": {\"type\": \"string\", \"unique\": true}}");
    long a = Long.parseLong(create(type, "{\"username\": \"bob\"}").id());
    long neverCommitted = a + 1000;
    long twoMinutesUs = 120_000_000L;
    api.tables().putClaim(type, "username", "ghost", a, twoMinutesUs);
    api.tables().putClaim(type, "username", "phantom", neverCommitted, twoMinutesUs);
    api.tables().putClaim(type, "username", "young", neverCommitted, 0);
    api.tables().dropClaim(type, "username", "bob");

    assertThat(lookup(type, "username", "ghost").status()).as("a claim whose node lacks the value").isEqualTo(404);
    assertThat(lookup(type, "username", "phantom").status()).as("a claim of a node never written").isEqualTo(404);
    assertThat(lookup(type, "username", "bob").status()).as("a lost claim").isEqualTo(404);
    assertViolation(create(type, "{\"username\": \"young\"}"), "username");
    String d = create(type, "{\"username\": \"ghost\"}").id();
    assertThat(d).as("a stale claim is taken over").isNotNull();
    assertThat(lookup(type, "username", "ghost").id()).isEqualTo(d);

    JsonNode summary = repair(type, "username");
    assertThat(summary.get("claimsRestored").asLong()).as("bob's claim").isEqualTo(1);
    assertThat(summary.get("orphansRemoved").asLong()).as("phantom").isEqualTo(1);
    assertThat(summary.get("inFlight").asLong()).as("young, within the lease").isEqualTo(1);
    assertThat(summary.get("duplicates")).isEmpty();
    assertThat(summary.get("active").asBoolean()).isTrue();
    assertThat(lookup(type, "username", "bob").id()).isEqualTo(String.valueOf(a));
    assertThat(api.tables().uniqueClaims(type, "username")).containsOnlyKeys("bob", "ghost", "young");
  }

  @Test
  void declaringUniqueOnAFieldWithDuplicates_buildsTheIndex_refusesActivation_listsThem_untilTheRepairFindsNone()
      throws Exception {
    String type = defineType("{\"email\": {\"type\": \"string\"}}");
    String first = create(type, "{\"email\": \"x@example.com\"}").id();
    String second = create(type, "{\"email\": \"x@example.com\"}").id();
    String third = create(type, "{\"email\": \"y@example.com\"}").id();
    create(type, "{}");
    int id = api.call(GET, "/v1/schema").body().get("nodeTypes").get(type).get("id").asInt();

    Answer declared = api.call(PUT, "/v1/schema/node-types/" + type,
        "{\"id\": " + id + ", \"fields\": {\"email\": {\"type\": \"string\", \"unique\": true}}}", ADMIN);
    assertViolation(declared, "email");
    JsonNode duplicates = declared.body().path("error").path("details").path("duplicates");
    assertThat(duplicates).hasSize(1);
    assertThat(duplicates.get(0).get("value").asText()).isEqualTo("x@example.com");
    assertThat(duplicates.get(0).get("nodes")).extracting(JsonNode::asText).containsExactlyInAnyOrder(first, second);
    assertThat(api.call(GET, "/v1/schema").body().get("nodeTypes").get(type).get("fields").get("email").get("unique")
        .get("state").asText()).isEqualTo("building");
    assertThat(lookup(type, "email", "y@example.com").status()).as("a building index answers no lookup").isEqualTo(503);
    assertViolation(create(type, "{\"email\": \"y@example.com\"}"), "email");

    assertThat(api.call(PATCH, "/v1/nodes/" + second, "{\"data\": {\"email\": \"z@example.com\"}}").status())
        .isEqualTo(200);
    JsonNode summary = repair(type, "email");
    assertThat(summary.get("duplicates")).isEmpty();
    assertThat(summary.get("active").asBoolean()).isTrue();
    assertThat(api.call(GET, "/v1/schema").body().get("nodeTypes").get(type).get("fields").get("email").get("unique")
        .get("state").asText()).isEqualTo("active");
    assertThat(lookup(type, "email", "x@example.com").id()).isEqualTo(first);
    assertThat(lookup(type, "email", "z@example.com").id()).isEqualTo(second);
    assertThat(lookup(type, "email", "y@example.com").id()).isEqualTo(third);

    Answer sentBack = api.call(PUT, "/v1/schema/node-types/" + type, "{\"id\": " + id + ", \"fields\": "
        + api.call(GET, "/v1/schema").body().get("nodeTypes").get(type).get("fields") + "}", ADMIN);
    assertThat(sentBack.status()).as("the schema as read can be sent back: " + sentBack.text()).isEqualTo(200);
  }

  @Test
  void theBuildOfANewIndex_waitsUntilEveryServerWritesUnderIt_thenActivatesIt() throws Exception {
    String type = defineType("{\"email\": {\"type\": \"string\"}}");
    String stored = create(type, "{\"email\": \"w@example.com\"}").id();
    JsonNode schema = api.call(GET, "/v1/schema").body();
    long version = schema.get("version").asLong();
    int id = schema.get("nodeTypes").get(type).get("id").asInt();
    var curator = TestBackend.get().curator();
    String served = TestBackend.SCHEMA_PATH + "-served";
    String during;
    // A server that still writes under the version before the index: the build must wait for it.
    try (var laggard = new io.quiver.core.zk.ServedVersions(curator, served, "laggard-" + System.nanoTime(), version)) {
      Await.until("the laggard is registered", java.time.Duration.ofSeconds(5),
          () -> childrenOf(curator, served).stream().anyMatch(child -> child.startsWith("laggard")));
      var declared = java.util.concurrent.CompletableFuture.supplyAsync(() -> api.call(PUT, "/v1/schema/node-types/" + type,
          "{\"id\": " + id + ", \"fields\": {\"email\": {\"type\": \"string\", \"unique\": true}}}", ADMIN));
      Await.until("the index is published building", java.time.Duration.ofSeconds(5), () -> "building".equals(
          api.call(GET, "/v1/schema").body().get("nodeTypes").get(type).get("fields").get("email").path("unique")
              .path("state").asText()));
      assertThat(declared).as("the build waits behind the fence").isNotDone();
      during = create(type, "{\"email\": \"v@example.com\"}").id();
      assertThat(api.tables().uniqueClaims(type, "email")).as("writes claim already; the scan has not run")
          .containsOnlyKeys("v@example.com");
      assertThat(lookup(type, "email", "v@example.com").status()).as("a building index answers no lookup").isEqualTo(503);

      laggard.acknowledge(version + 1);
      Answer answer = declared.get(30, java.util.concurrent.TimeUnit.SECONDS);
      assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    }
    assertThat(lookup(type, "email", "w@example.com").id()).isEqualTo(stored);
    assertThat(lookup(type, "email", "v@example.com").id()).isEqualTo(during);
    assertThat(api.tables().uniqueClaims(type, "email")).containsOnlyKeys("v@example.com", "w@example.com");
  }

  private static List<String> childrenOf(org.apache.curator.framework.CuratorFramework curator, String path) {
    try {
      return curator.getChildren().forPath(path);
    } catch (Exception e) {
      return List.of();
    }
  }

  @Test
  void badLookupsAndDeclarations_areClear4xx_andABulkImportClaimsItsValues() throws Exception {
    String type = defineType("{\"username\": {\"type\": \"string\", \"unique\": true}, \"age\": {\"type\": \"integer\"},"
        + " \"number\": {\"type\": \"integer\", \"unique\": true}}");
    assertThat(lookup(type, "age", "3").status()).as("not a unique field").isEqualTo(400);
    Answer controlled = create(type, "{\"username\": \"tab\\there\"}");
    assertThat(controlled.status()).as("a value no lookup could name: %s", controlled.text()).isEqualTo(422);
    assertThat(controlled.body().path("error").path("details").path("fields").has("data.username"))
        .as(controlled.text()).isTrue();
    assertThat(lookup(type, "number", "three").status()).as("not an integer").isEqualTo(400);
    assertThat(lookup("nosuchtype", "username", "x").status()).isIn(400, 404);
    assertThat(lookup(type, "username", "a%20b").status()).isEqualTo(404);
    String spaced = create(type, "{\"username\": \"a b\"}").id();
    assertThat(lookup(type, "username", "a%20b").id()).isEqualTo(spaced);

    for (String bad : List.of("{\"type\": \"number\", \"unique\": true}",
        "{\"type\": \"string\", \"unique\": true, \"default\": \"x\"}", "{\"type\": \"string\", \"unique\": \"yes\"}")) {
      Answer refused = api.call(PUT, "/v1/schema/node-types/bad" + System.nanoTime(),
          "{\"id\": " + nextNodeTypeId() + ", \"fields\": {\"f\": " + bad + "}}", ADMIN);
      assertThat(refused.status()).as(bad + ": " + refused.text()).isEqualTo(400);
    }

    String ndjson = "{\"node\": {\"ref\": \"u1\", \"type\": \"" + type + "\", \"data\": {\"username\": \"carol\"}}}\n"
        + "{\"node\": {\"ref\": \"u2\", \"type\": \"" + type + "\", \"data\": {\"username\": \"carol\"}}}\n"
        + "{\"node\": {\"ref\": \"u3\", \"type\": \"" + type + "\", \"data\": {\"username\": \"a b\"}}}\n"
        + "{\"node\": {\"ref\": \"u4\", \"type\": \"" + type + "\", \"data\": {\"username\": \"dave\"}}}\n";
    Answer imported = api.send(POST, "/v1/bulk?name=unique" + System.nanoTime(), Buffer.buffer(ndjson),
        Map.of("Content-Type", "application/x-ndjson"));
    String[] lines = imported.text().trim().split("\n");
    JsonNode report = MAPPER.readTree(lines[lines.length - 1]).get("report");
    assertThat(report.get("nodesCreated").asLong()).as(imported.text()).isEqualTo(2);
    assertThat(report.get("refused")).hasSize(2);
    report.get("refused").forEach(refused -> assertThat(refused.get("code").asText()).isEqualTo("unique_violation"));
    assertThat(lookup(type, "username", "carol").status()).isEqualTo(200);
    assertThat(lookup(type, "username", "dave").status()).isEqualTo(200);
    assertThat(lookup(type, "username", "a%20b").id()).isEqualTo(spaced);
  }

  @Test
  void aBulkImportOfThousandsOfNodesOfATypeWithUniqueFields_createsThemAll_claimingTheValuesOfThoseThatHoldOne()
      throws Exception {
    String type = defineType("{\"username\": {\"type\": \"string\", \"unique\": true}}");
    StringBuilder ndjson = new StringBuilder();
    int nodes = 3_000;
    for (int i = 0; i < nodes; i++) {
      String data = i % 30 == 0 ? "{\"username\": \"member" + i + "\"}" : "{\"n\": " + i + "}";
      ndjson.append("{\"node\": {\"ref\": \"m").append(i).append("\", \"type\": \"").append(type)
          .append("\", \"data\": ").append(data).append("}}\n");
    }

    Answer imported = api.send(POST, "/v1/bulk?name=many" + System.nanoTime(), Buffer.buffer(ndjson.toString()),
        Map.of("Content-Type", "application/x-ndjson"));

    String[] lines = imported.text().trim().split("\n");
    JsonNode report = MAPPER.readTree(lines[lines.length - 1]).get("report");
    assertThat(report).as(imported.text().substring(0, Math.min(500, imported.text().length()))).isNotNull();
    assertThat(report.get("nodesCreated").asLong()).as("every node, none refused for want of a connection: " + lines[lines.length - 1])
        .isEqualTo(nodes);
    assertThat(report.get("refusedCount").asLong()).isZero();
    assertThat(lookup(type, "username", "member0").status()).isEqualTo(200);
    assertThat(lookup(type, "username", "member2970").status()).isEqualTo(200);
    assertThat(lookup(type, "username", "member1").status()).as("a node without a value claimed none").isEqualTo(404);
  }
}
