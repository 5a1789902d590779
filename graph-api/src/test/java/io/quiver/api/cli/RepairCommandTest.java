package io.quiver.api.cli;

import io.quiver.core.testing.Await;
import io.quiver.store.testing.GraphInvariants;
import org.junit.jupiter.api.extension.ExtendWith;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.testing.ApiFixture;
import io.quiver.store.NodeId;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.TestBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code quiver repair} runs in a process of its own, yet what it fixes reaches the caches of
 * the servers running meanwhile: its backend announces every fix on its change feed, and the
 * command joins the invalidation channel between servers.
 */
@ExtendWith(GraphInvariants.class)
class RepairCommandTest {
  private static ApiFixture api;
  private static ShardTables tables;

  @BeforeAll
  static void start() throws Exception {
    api = new ApiFixture();
    tables = new ShardTables(TestBackend.get());
  }

  @AfterAll
  static void stop() {
    api.close();
  }

  @Test
  void aRepairFromTheCommandLine_invalidatesTheRunningServersCache() throws Exception {
    String board = api.call(POST, "/v1/nodes/board", "{\"data\": {\"title\": \"repaired\"}}").body().get("id").asText();
    String pin = api.call(POST, "/v1/nodes/pin", "{\"data\": {\"link\": \"l\"}}").body().get("id").asText();
    assertThat(api.call(PUT, "/v1/nodes/" + board + "/edges/board_has_pins/" + pin + "?waitForInverse=true", null)
        .headers().get("Quiver-Inverse")).isEqualTo("applied");
    String list = "/v1/nodes/" + board + "/edges/board_has_pins";
    assertThat(api.call(GET, list).body().get("edges")).as("the list, now in the server's cache").hasSize(1);

    // Behind everyone's back, the inverse copy takes a newer removal that never reached the
    // forward copy: repair will apply it to the forward copy, changing the board's list.
    NodeId pinId = NodeId.parse(pin).orElseThrow();
    tables.removeBehindTheStoresBack("pin_owned_by_board", pinId, NodeId.parse(board).orElseThrow(), 1000);
    assertThat(api.call(GET, list).body().get("edges")).as("still the cached copy").hasSize(1);

    Cli.Run repaired = Cli.quiver("repair", "--config", writeConfig().toString(), "--edge-type", "board_has_pins");
    assertThat(repaired.status()).as(repaired.err()).isZero();
    assertThat(repaired.out()).contains("repair of board_has_pins: ").contains("1 differing pairs");

    Await.until("the server hears of the repair's fix", Duration.ofSeconds(2),
        () -> api.call(GET, list).body().get("edges").size() == 0);
    assertThat(api.call(GET, list + "/count").body().get("count").asLong()).isZero();
  }

  @Test
  void aUniqueRepairFromTheCommandLine_restoresALostClaim_andRefusesAMalformedField() throws Exception {
    String handle = "cli" + System.nanoTime();
    String account = api.call(POST, "/v1/nodes/account", "{\"data\": {\"handle\": \"" + handle + "\"}}").id();
    tables.dropClaim("account", "handle", handle);
    assertThat(api.call(GET, "/v1/nodes/account/by/handle/" + handle).status()).isEqualTo(404);

    Cli.Run repaired = Cli.quiver("repair", "--config", writeConfig().toString(), "--unique", "account.handle");
    assertThat(repaired.status()).as(repaired.err()).isZero();
    assertThat(repaired.out()).contains("repair of account.handle: ").contains("the index is active");

    assertThat(api.call(GET, "/v1/nodes/account/by/handle/" + handle).id()).isEqualTo(account);
    assertThat(tables.uniqueClaims("account", "handle")).containsEntry(handle, Long.parseLong(account));
    Cli.Run malformed = Cli.quiver("repair", "--config", writeConfig().toString(), "--unique", "account");
    assertThat(malformed.status()).isEqualTo(2);
    assertThat(malformed.err()).contains("TYPE.FIELD");
  }

  /** The configuration an operator would hand the command: the server's ZooKeeper, hosts and cache peers. */
  private static Path writeConfig() throws Exception {
    TestBackend backend = TestBackend.get();
    Path file = Files.createTempFile("repair", ".json");
    Files.writeString(file, """
        {"zooKeeper": {"connect": "%s", "shardMapPath": "%s", "schemaPath": "%s"},
         "mysql": {"user": "%s", "password": "%s"},
         "cache": {"peersPath": "%s"}}
        """.formatted(backend.zooKeeperConnectString(), TestBackend.SHARD_MAP_PATH, TestBackend.SCHEMA_PATH,
        backend.hosts().user(), backend.hosts().password(), ApiFixture.CACHE_PEERS_PATH));
    return file;
  }
}
