package io.quiver.api.cli;

import static io.vertx.core.http.HttpMethod.POST;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.shard.ShardMapStore;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operators' commands, run in this process as a person types them, against real servers: one
 * over the shared shard map for what only reads, one over a map of this test's own for the
 * commands that change it (a real third MariaDB host is added and given shards).
 */
@ExtendWith(GraphInvariants.class)
class AdminCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = TestBackend.ADMIN_TOKEN;
  private static ApiFixture api;
  private static ApiFixture fleet;
  private static String server;
  private static String fleetServer;

  @BeforeAll
  static void start() throws Exception {
    api = new ApiFixture();
    String mapPath = "/quiver-test-cli/shard-map";
    new ShardMapStore(TestBackend.get().curator(), mapPath)
        .publish(TestBackend.twoHostMap(TestBackend.get().hosts().addresses()));
    fleet = ApiFixture.overShardMap(mapPath);
    server = "http://127.0.0.1:" + api.port();
    fleetServer = "http://127.0.0.1:" + fleet.port();
  }

  @AfterAll
  static void stop() {
    api.close();
    fleet.close();
  }

  private static Cli.Run quiver(String... args) {
    return Cli.quiver(args);
  }

  /** One more than the largest node type id the registry holds: a new type's. */
  private static int nextNodeTypeId() {
    int id = 0;
    for (JsonNode type : api.call(io.vertx.core.http.HttpMethod.GET, "/v1/schema").body().get("nodeTypes")) {
      id = Math.max(id, type.get("id").asInt());
    }
    return id + 1;
  }

  @Test
  void help_listsEveryCommand_onEveryLevel() {
    Cli.Run top = quiver("--help");
    assertThat(top.status()).isZero();
    assertThat(top.out()).contains("serve", "provision", "status", "shards", "hosts", "schema", "outbox", "node",
        "edges", "repair", "import", "example", "generate-completion");

    Cli.Run shards = quiver("shards", "--help");
    assertThat(shards.status()).isZero();
    assertThat(shards.out()).contains("list", "open", "state", "move", "drop-retired");
    assertThat(quiver("shards", "move", "--help").out()).contains("--to", "--stop-before", "--status", "--cancel");
    assertThat(quiver("shards", "state", "--help").out()).contains("--if-version", "--server", "--token", "STATE");

    Cli.Run bare = quiver("shards");
    assertThat(bare.status()).isEqualTo(2);
    assertThat(bare.err()).startsWith("quiver shards: which one? list, open, state, move, drop-retired");
    assertThat(quiver("generate-completion").out()).contains("complete -F");
  }

  @Test
  void aWrongToken_isOneClearLine_withStatus2() {
    Cli.Run wrong = quiver("status", "--server", server, "--token", "not-the-token");

    assertThat(wrong.status()).isEqualTo(2);
    assertThat(wrong.err().lines().toList()).containsExactly(
        "quiver: the admin token is not valid (give --token or set QUIVER_TOKEN)");
    Cli.Run anonymous = quiver("status", "--server", server);
    assertThat(anonymous.status()).isEqualTo(2);
    assertThat(anonymous.err()).contains("need 'Authorization: Bearer <admin token>'");
  }

  @Test
  void aServerThatIsNotThere_isOneLine_withStatus1() {
    Cli.Run away = quiver("status", "--server", "http://127.0.0.1:1", "--token", TOKEN);

    assertThat(away.status()).isEqualTo(1);
    assertThat(away.err()).isEqualTo("quiver: cannot reach a server at http://127.0.0.1:1 (is it running? --server URL)\n");
  }

  @Test
  void status_showsHostsShardsPoolsOutboxesVersionsAndCaches() throws Exception {
    Cli.Run status = quiver("status", "--server", server, "--token", TOKEN);

    assertThat(status.status()).as(status.err()).isZero();
    assertThat(status.out()).contains("shard map version 1, schema version ", "ZooKeeper up");
    assertThat(status.out()).containsPattern("h1 +127\\.0\\.0\\.1:\\d+ +up +4 ");
    assertThat(status.out()).containsPattern("h2 +127\\.0\\.0\\.1:\\d+ +up +4 ");
    assertThat(status.out()).contains("CACHE", "nodes");

    JsonNode document = JSON.readTree(quiver("status", "--server", server, "--token", TOKEN, "--json").out());
    assertThat(document.at("/hosts/h1/shards").asInt()).isEqualTo(4);
    assertThat(document.at("/hosts/h1/outbox/parked").isIntegralNumber()).isTrue();
    assertThat(quiver("outbox", "status", "--server", server, "--token", TOKEN).out()).contains("OUTBOX PENDING", "h2");
    assertThat(quiver("hosts", "list", "--server", server, "--token", TOKEN).out()).containsPattern("h1 .* up ");
  }

  @Test
  void schemaShow_nodeGet_andEdgesList_readWhatTheApiServes() throws Exception {
    Cli.Run schema = quiver("schema", "show", "--server", server);
    assertThat(schema.status()).as(schema.err()).isZero();
    assertThat(schema.out()).containsPattern("board +\\d+ +no +.*title:string");
    assertThat(schema.out()).containsPattern("board_has_pins +\\d+ +board +pin +pin_owned_by_board");
    assertThat(schema.out()).contains("handle:string (unique)");

    String board = api.call(POST, "/v1/nodes/board", "{\"data\": {\"title\": \"From the CLI\"}}").id();
    String pin = api.call(POST, "/v1/nodes/pin", "{\"data\": {\"link\": \"l\"}}").id();
    api.call(PUT, "/v1/nodes/" + board + "/edges/board_has_pins/" + pin, null);

    Cli.Run node = quiver("node", "get", board, "--server", server);
    assertThat(node.status()).isZero();
    assertThat(JSON.readTree(node.out()).at("/data/title").asText()).isEqualTo("From the CLI");
    Cli.Run edges = quiver("edges", "list", board, "board_has_pins", "--limit", "5", "--server", server);
    assertThat(edges.status()).as(edges.err()).isZero();
    assertThat(edges.out()).contains(board + " has 1 board_has_pins edges").contains(pin);
    Cli.Run missing = quiver("node", "get", "1", "--server", server);
    assertThat(missing.status()).isEqualTo(1);
    assertThat(missing.err()).startsWith("quiver: ").contains("(400 invalid_request)");
  }

  @Test
  void repair_throughTheServer_endsWithItsSummary() {
    Cli.Run repair = quiver("repair", "board_has_pins", "--server", server, "--token", TOKEN);

    assertThat(repair.status()).as(repair.err()).isZero();
    assertThat(repair.out()).startsWith("repair of board_has_pins: ").contains("copies fixed");
    Cli.Run unique = quiver("repair", "--unique", "account.handle", "--server", server, "--token", TOKEN, "--json");
    assertThat(unique.status()).as(unique.err()).isZero();
    assertThat(unique.out()).contains("\"active\" : true");
    assertThat(quiver("repair", "--server", server).status()).isEqualTo(2);
  }

  @Test
  void hostsAdd_shardsOpen_andShardsState_changeTheMap_comparedAndSet() throws Exception {
    String spare = TestBackend.get().spareHost();

    Cli.Run added = quiver("hosts", "add", "h3", spare, "--if-version", "1", "--server", fleetServer, "--token", TOKEN);
    assertThat(added.status()).as(added.err()).isZero();
    assertThat(added.out()).contains("shard map version 2 published");

    Cli.Run opened = quiver("shards", "open", "8-9", "--host", "h3", "--server", fleetServer, "--token", TOKEN);
    assertThat(opened.status()).as(opened.err()).isZero();
    assertThat(opened.out()).containsPattern("8-9 +h3 +read-write +yes");

    Cli.Run readOnly = quiver("shards", "state", "9", "read-only", "--server", fleetServer, "--token", TOKEN);
    assertThat(readOnly.status()).as(readOnly.err()).isZero();
    assertThat(readOnly.out()).containsPattern("8 +h3 +read-write +yes").containsPattern("9 +h3 +read-only +yes");

    Cli.Run stale = quiver("shards", "state", "9", "read-write", "--if-version", "2", "--server", fleetServer,
        "--token", TOKEN);
    assertThat(stale.status()).isEqualTo(1);
    assertThat(stale.err()).contains("the shard map is at version 4, not 2").contains("409 version_conflict");

    Cli.Run list = quiver("shards", "list", "--server", fleetServer, "--token", TOKEN);
    assertThat(list.out()).startsWith("shard map version 4").containsPattern("0-3 +h1 +read-write +yes");
  }

  @Test
  void schemaApply_declaringUniqueOnATypeWithNodes_buildsTheIndexUnderAProgressBar() throws Exception {
    String type = "cli_member_" + System.nanoTime();
    String plain = "{\"nodeTypes\": {\"" + type + "\": {\"id\": " + nextNodeTypeId()
        + ", \"fields\": {\"nick\": {\"type\": \"string\"}}}}}";
    java.nio.file.Path before = java.nio.file.Files.createTempFile("schema", ".json");
    java.nio.file.Files.writeString(before, plain);
    assertThat(quiver("schema", "apply", before.toString(), "--server", server, "--token", TOKEN).status()).isZero();
    for (int i = 0; i < 30; i++) {
      assertThat(api.call(POST, "/v1/nodes/" + type, "{\"data\": {\"nick\": \"n" + i + "\"}}").status()).isEqualTo(201);
    }

    java.nio.file.Path unique = java.nio.file.Files.createTempFile("schema", ".json");
    java.nio.file.Files.writeString(unique, plain.replace("{\"type\": \"string\"}", "{\"type\": \"string\", \"unique\": true}"));
    Cli.Run applied = quiver("schema", "apply", unique.toString(), "--server", server, "--token", TOKEN);

    assertThat(applied.status()).as(applied.err()).isZero();
    assertThat(applied.out()).contains("defined node type " + type, "building the unique index of " + type + ".nick",
        "30 nodes and", "the index is active");
    assertThat(api.call(io.vertx.core.http.HttpMethod.GET, "/v1/schema").body()
        .at("/nodeTypes/" + type + "/fields/nick/unique/state").asText()).isEqualTo("active");
    assertThat(api.call(io.vertx.core.http.HttpMethod.GET, "/v1/nodes/" + type + "/by/nick/n7").status()).isEqualTo(200);
  }

  @Test
  void schemaDiff_showsEachChangeAndTheRulesVerdict_andApplyDefinesAllOrNothing() throws Exception {
    String note = "cli_note_" + System.nanoTime();
    int id = nextNodeTypeId();
    java.nio.file.Path refused = java.nio.file.Files.createTempFile("schema", ".json");
    java.nio.file.Files.writeString(refused, "{\"nodeTypes\": {"
        + "\"" + note + "\": {\"id\": " + id + ", \"fields\": {\"text\": {\"type\": \"string\", \"default\": \"(empty)\"}}},"
        + "\"account\": {\"id\": 5, \"fields\": {\"handle\": {\"type\": \"integer\"}}}}}");

    Cli.Run diff = quiver("schema", "diff", refused.toString(), "--server", server, "--token", TOKEN);
    assertThat(diff.status()).as(diff.err()).isEqualTo(3);
    assertThat(diff.out()).contains("* node type " + note + ": allowed\n    new\n");
    assertThat(diff.out()).contains("! node type account: refused: rule FIELD_TYPE_IMMUTABLE: ").contains("(409 incompatible_change)")
        .contains("~ field handle {\"type\":\"string\",\"unique\":true} -> {\"type\":\"integer\"}");

    Cli.Run notApplied = quiver("schema", "apply", refused.toString(), "--server", server, "--token", TOKEN);
    assertThat(notApplied.status()).isEqualTo(1);
    assertThat(notApplied.err()).contains("nothing was applied");
    assertThat(api.call(io.vertx.core.http.HttpMethod.GET, "/v1/schema").body().at("/nodeTypes/" + note).isMissingNode())
        .isTrue();

    java.nio.file.Path allowed = java.nio.file.Files.createTempFile("schema", ".json");
    java.nio.file.Files.writeString(allowed, "{\"nodeTypes\": {\"" + note + "\": {\"id\": " + id
        + ", \"fields\": {\"text\": {\"type\": \"string\", \"default\": \"(empty)\"}}}}}");
    Cli.Run applied = quiver("schema", "apply", allowed.toString(), "--server", server, "--token", TOKEN);
    assertThat(applied.status()).as(applied.err()).isZero();
    assertThat(applied.out()).contains("defined node type " + note).containsPattern("schema version \\d+");
    String created = api.call(POST, "/v1/nodes/" + note, "{\"data\": {}}").id();
    assertThat(JSON.readTree(quiver("node", "get", created, "--server", server).out()).at("/data/text").asText())
        .isEqualTo("(empty)");
    assertThat(quiver("schema", "diff", allowed.toString(), "--server", server, "--token", TOKEN).out())
        .isEqualTo("= node type " + note + ": unchanged\n");
  }

  @Test
  void outboxRetryParked_setsAParkedEntryDueAgain_andTheDrainerAppliesIt() throws Exception {
    io.quiver.store.testing.ShardTables tables = api.tables();
    io.quiver.store.NodeId board = io.quiver.store.NodeId.parse(
        api.call(POST, "/v1/nodes/board", "{\"data\": {\"title\": \"parked\"}}").id()).orElseThrow();
    io.quiver.store.NodeId pin = io.quiver.store.NodeId.parse(
        api.call(POST, "/v1/nodes/pin", "{\"data\": {\"link\": \"l\"}}").id()).orElseThrow();
    int edgeType = api.backend.schema().edgeType("board_has_pins").orElseThrow().id();
    tables.appendInverseEntry(board.shard(), edgeType, board, pin, true);
    tables.parkHeldBack(board.shard());
    assertThat(tables.outboxEntriesFrom(board.shard(), board, true)).isEqualTo(1);
    String host = api.hostOf(board.shard());

    Cli.Run retried = quiver("outbox", "retry-parked", "--host", host, "--server", server, "--token", TOKEN);

    assertThat(retried.status()).as(retried.err()).isZero();
    assertThat(retried.out()).containsPattern("[1-9]\\d* parked entries on " + host + " are due again");
    Await.until("the retried entry is applied", java.time.Duration.ofSeconds(10),
        () -> {
          try {
            return tables.outboxEntriesFrom(board.shard(), board, true) + tables.outboxEntriesFrom(board.shard(), board, false)
                == 0;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
    assertThat(quiver("outbox", "retry-parked", "--host", "h9", "--server", server, "--token", TOKEN).err())
        .contains("host 'h9' is not in the shard map");
  }
}
