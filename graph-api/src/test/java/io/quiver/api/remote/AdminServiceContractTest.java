package io.quiver.api.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.api.testing.ApiFixture;
import io.quiver.core.GraphException.Code;
import io.quiver.core.GraphException;
import io.quiver.core.testing.Await;
import io.quiver.embedded.EmbeddedMariaDb;
import io.quiver.fleet.AdminService;
import io.quiver.fleet.MoveProgress;
import io.quiver.fleet.MoveReport;
import io.quiver.fleet.ProvisionReport;
import io.quiver.fleet.ShardMoveStatus;
import io.quiver.schema.FieldDef;
import io.quiver.schema.FieldType;
import io.quiver.schema.Fields;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.store.GraphStore;
import io.quiver.store.RepairReport;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapChange;
import io.quiver.store.shard.ShardMapStore;
import io.quiver.store.shard.ShardRange;
import io.quiver.store.shard.ShardSpan;
import io.quiver.store.shard.ShardState;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * What every {@link AdminService} does, as {@code GraphStoreContractTest} is for the store: one
 * suite, run against the service inside a server ({@link InProcessAdminServiceTest}) and against a
 * server's admin API through {@link RemoteAdminService} ({@link RemoteAdminServiceTest}), so the
 * command line — written against the interface — gets the same answers, records and refusal codes
 * whichever it holds.
 *
 * <p>Each implementation gets a fleet of its own: eight shards from {@link #firstShard()} (four on
 * h1, four on h2) and the spare host h3 empty, behind a server of its own; the schema is the
 * shared one. Ordered: the moves at the end start from the map the earlier scenarios left.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class AdminServiceContractTest {
  private static final TestBackend BACKEND = TestBackend.get();

  private Map<String, String> addresses;
  private ShardMapStore maps;
  private ApiFixture fleet;
  private AdminService admin;

  /** The implementation under test, administering the fleet {@code fleet} serves. */
  abstract AdminService admin(ApiFixture fleet);

  /** The first of this implementation's eight shards; the ninth is opened by a scenario. */
  abstract int firstShard();

  private int shard(int index) {
    return firstShard() + index;
  }

  @BeforeAll
  void startFleet() throws Exception {
    List<String> hosts = BACKEND.hosts().addresses();
    addresses = Map.of("h1", hosts.get(0), "h2", hosts.get(1), "h3", BACKEND.spareHost());
    ShardMap map = new ShardMap(1,
        Map.of("h1", new Host("h1", addresses.get("h1"), List.of()), "h2", new Host("h2", addresses.get("h2"), List.of()),
            "h3", new Host("h3", addresses.get("h3"), List.of())),
        List.of(new ShardRange(shard(0), shard(3), "h1"), new ShardRange(shard(4), shard(7), "h2")),
        List.of(new ShardSpan(shard(0), shard(7))), Map.of());
    for (int index = 0; index <= 8; index++) {
      for (String host : addresses.keySet()) {
        sql(host, "DROP DATABASE IF EXISTS " + database(shard(index)));
      }
    }
    BACKEND.provision(map, BACKEND.schema());
    String mapPath = "/quiver-test-admin-" + firstShard() + "/shard-map";
    maps = new ShardMapStore(BACKEND.curator(), mapPath);
    maps.publish(map);
    fleet = ApiFixture.overFleet(mapPath);
    admin = admin(fleet);
  }

  @AfterAll
  void stopFleet() throws Exception {
    if (admin != null) {
      admin.close();
    }
    if (fleet != null) {
      fleet.close();
    }
  }

  @Test
  @Order(1)
  void shardMap_answersTheMapZooKeeperHolds() throws Exception {
    assertThat(admin.shardMap().await()).isEqualTo(maps.read().orElseThrow());
  }

  @Test
  @Order(2)
  void schema_answersTheTypesTheFleetServes_asTheRegistryHoldsThem() {
    Schema schema = admin.schema().await();

    assertThat(schema).isEqualTo(fleet.server.admin().schema().await());
    assertThat(schema.nodeType("account").orElseThrow().uniqueFields()).containsKey("handle");
    assertThat(schema.edgeTypes()).containsKey("board_has_pins");
  }

  @Test
  @Order(3)
  void aNewNodeType_isPreviewedWithoutChange_thenDefined_andAChangeTheRulesRefuseNamesItsRule() {
    Schema before = admin.schema().await();
    String name = "contract_" + firstShard() + "_" + System.nanoTime();
    int id = before.nodeTypes().values().stream().mapToInt(NodeType::id).max().orElse(0) + 1;
    NodeType type = new NodeType(name, id, new Fields(Map.of("label", FieldDef.of(FieldType.STRING)), false));

    assertThat(admin.previewNodeType(type, Set.of()).await().nodeTypes()).containsKey(name);
    assertThat(admin.schema().await().nodeTypes()).as("after the preview").doesNotContainKey(name);

    Schema defined = admin.defineNodeType(type).await();
    assertThat(defined.nodeType(name)).contains(type);
    assertThat(defined.version()).isGreaterThan(before.version());
    assertThat(admin.schema().await().nodeType(name)).contains(type);

    NodeType retyped = new NodeType(name, id, new Fields(Map.of("label", FieldDef.of(FieldType.INTEGER)), false));
    GraphException refused = refusal(admin.previewNodeType(retyped, Set.of()));
    assertThat(refused.code()).isEqualTo(Code.INCOMPATIBLE_CHANGE);
    assertThat(refused.details()).containsEntry("rule", "FIELD_TYPE_IMMUTABLE");
    assertThat(refusal(admin.defineNodeType(retyped)).code()).isEqualTo(Code.INCOMPATIBLE_CHANGE);
    assertThat(admin.schema().await().nodeType(name)).as("after the refusals").contains(type);
  }

  @Test
  @Order(4)
  void aSchemaDocument_addsTheTypesItLacks_andKeepsEveryStoredTypeAsItIs() {
    Schema before = admin.schema().await();
    String name = "contract_doc_" + firstShard() + "_" + System.nanoTime();
    int id = before.nodeTypes().values().stream().mapToInt(NodeType::id).max().orElse(0) + 1;
    NodeType added = new NodeType(name, id, new Fields(Map.of(), false));
    NodeType account = before.nodeType("account").orElseThrow();
    NodeType renumbered = new NodeType("account", account.id() + 500, account.fields());

    Schema applied = admin.applySchema(new Schema(0, Map.of(name, added, "account", renumbered), Map.of())).await();

    assertThat(applied.nodeType(name)).contains(added);
    assertThat(applied.nodeType("account")).as("the stored type, kept").contains(account);
    assertThat(admin.schema().await().nodeType(name)).contains(added);
  }

  @Test
  @Order(5)
  void provision_createsWhatIsMissing_andASecondRunCreatesNothing() throws Exception {
    sql("h2", "DROP DATABASE IF EXISTS " + database(shard(7)));

    ProvisionReport first = admin.provision().await();
    assertThat(first.shards()).isEqualTo(8);
    assertThat(first.databasesCreated()).isEqualTo(1);
    assertThat(first.tablesCreated()).isPositive();
    assertThat(admin.provision().await().changedNothing()).isTrue();
  }

  @Test
  @Order(6)
  void theShardMap_changesComparedAndSet_andRefusesWhatItCannotTake() throws Exception {
    long version = admin.shardMap().await().version();

    ShardMap readOnly = admin.changeShardMap(new ShardMapChange.SetState(new ShardSpan(shard(3), shard(3)),
        ShardState.READ_ONLY), version).await();
    assertThat(readOnly.version()).isEqualTo(version + 1);
    assertThat(readOnly.stateOf(shard(3))).isEqualTo(ShardState.READ_ONLY);

    GraphException stale = refusal(admin.changeShardMap(new ShardMapChange.SetState(new ShardSpan(shard(3), shard(3)),
        ShardState.READ_WRITE), version));
    assertThat(stale.code()).isEqualTo(Code.VERSION_CONFLICT);
    assertThat(maps.read().orElseThrow()).isEqualTo(readOnly);

    ShardMap opened = admin.changeShardMap(new ShardMapChange.OpenShards(new ShardSpan(shard(8), shard(8)), "h2", false),
        GraphStore.ANY_VERSION).await();
    assertThat(opened.rangeOf(shard(8)).orElseThrow().host()).isEqualTo("h2");
    assertThat(opened.open()).noneMatch(span -> span.from() <= shard(8) && shard(8) <= span.to());
    assertThat(databases("h2")).contains(database(shard(8)));

    assertThat(refusal(admin.changeShardMap(new ShardMapChange.MoveShards(new ShardSpan(shard(0), shard(0)), "h3"),
        GraphStore.ANY_VERSION)).code()).as("a map change that would move shards without their data")
        .isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(refusal(admin.changeShardMap(new ShardMapChange.OpenShards(new ShardSpan(shard(9), shard(9)), "h9", true),
        GraphStore.ANY_VERSION)).code()).as("shards opened on a host the map lacks").isEqualTo(Code.INVALID_ARGUMENT);

    ShardMap back = admin.changeShardMap(new ShardMapChange.SetState(new ShardSpan(shard(3), shard(3)),
        ShardState.READ_WRITE), GraphStore.ANY_VERSION).await();
    assertThat(back.stateOf(shard(3))).isEqualTo(ShardState.READ_WRITE);
    assertThat(maps.read().orElseThrow()).isEqualTo(back);
  }

  @Test
  @Order(7)
  void repair_scansAnEdgeTypeAndItsInverse_reportingEachShard_andAnUnknownTypeIsNotFound() {
    List<String> progress = new CopyOnWriteArrayList<>();

    RepairReport report = admin.repair("board_has_pins", progress::add).await();

    assertThat(report.edgeType()).isEqualTo("board_has_pins");
    assertThat(report.differing()).isZero();
    assertThat(progress).hasSizeGreaterThanOrEqualTo(9);
    assertThat(refusal(admin.repair("no_such_edges", line -> { })).code()).isEqualTo(Code.NOT_FOUND);
  }

  @Test
  @Order(8)
  void repairUnique_onAFleetWithoutShardZero_scansItsNodes_thenIsRefusedNamingTheShardItsClaimsNeed() {
    List<String> progress = new CopyOnWriteArrayList<>();

    GraphException refused = refusal(admin.repairUnique("account", "handle", progress::add));

    assertThat(refused.code()).as("a unique index spreads over shards 0 to N-1").isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(refused.getMessage()).contains("shard 0 is not in the shard map");
    assertThat(progress).as("the nodes pass, a line per shard").hasSize(9)
        .allMatch(line -> line.startsWith("nodes of account on shard "));
  }

  @Test
  @Order(9)
  void retryParked_answersHowManyWereParked_andAHostTheMapLacksIsInvalid() {
    assertThat(admin.retryParked(null).await()).isNotNegative();
    assertThat(admin.retryParked("h1").await()).isNotNegative();
    GraphException unknown = refusal(admin.retryParked("h9"));
    assertThat(unknown.code()).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(unknown.getMessage()).contains("host 'h9' is not in the shard map");
  }

  @Test
  @Order(10)
  void noMoveUnderWay_isAnEmptyStatus_andCancellingItIsNotFound() {
    assertThat(admin.failovers().await()).as("no failover in this fleet").isEmpty();
    assertThat(admin.shardMove().await()).isEmpty();
    assertThat(refusal(admin.cancelShardMove()).code()).isEqualTo(Code.NOT_FOUND);
    assertThat(refusal(admin.moveShards(new ShardSpan(shard(0), shard(0)), "h9", null, step -> { })).code())
        .as("a move to a host the map lacks").isEqualTo(Code.INVALID_ARGUMENT);
  }

  @Test
  @Order(11)
  void aMoveStoppedBeforeItsCutOver_reportsEachPhase_isUnderWay_refusesAnother_andCancelledLeavesTheMap() {
    ShardMap before = admin.shardMap().await();
    ShardSpan moving = new ShardSpan(shard(1), shard(1));
    List<MoveProgress> steps = new CopyOnWriteArrayList<>();

    MoveReport stopped = admin.moveShards(moving, "h3", "cut-over", steps::add).await();

    assertThat(stopped.reached()).isEqualTo("cut-over");
    assertThat(stopped.shards()).isEqualTo(moving.toString());
    assertThat(stopped.from()).isEqualTo("h1");
    assertThat(steps).extracting(MoveProgress::phase).contains("copy", "catch-up", "verify");
    ShardMoveStatus underWay = admin.shardMove().await().orElseThrow();
    assertThat(underWay.shards()).isEqualTo(moving.toString());
    assertThat(underWay.to()).isEqualTo("h3");
    assertThat(underWay.phase()).isEqualTo("cut-over");

    GraphException another = refusal(admin.moveShards(new ShardSpan(shard(2), shard(2)), "h3", null, step -> { }));
    assertThat(another.code()).isEqualTo(Code.VERSION_CONFLICT);
    assertThat(another.getMessage()).contains("is under way");

    ShardMoveStatus cancelled = admin.cancelShardMove().await();
    assertThat(cancelled.shards()).isEqualTo(moving.toString());
    assertThat(admin.shardMove().await()).isEmpty();
    assertThat(admin.shardMap().await()).isEqualTo(before);
  }

  @Test
  @Order(12)
  void aMoveRunToItsEnd_routesTheShardsToTheirNewHost_andKeepsTheOldCopyForItsGrace() throws Exception {
    ShardSpan moving = new ShardSpan(shard(2), shard(2));
    List<MoveProgress> steps = new CopyOnWriteArrayList<>();

    MoveReport moved = admin.moveShards(moving, "h3", null, steps::add).await();

    assertThat(moved.reached()).isEqualTo("done");
    assertThat(steps).extracting(MoveProgress::phase).contains("copy", "catch-up", "verify", "cut-over");
    assertThat(admin.shardMap().await().rangeOf(shard(2)).orElseThrow().host()).isEqualTo("h3");
    assertThat(databases("h3")).contains(database(shard(2)));
    assertThat(moved.retired()).singleElement().asString().startsWith("h1:retired_").endsWith("_" + database(shard(2)));

    assertThat(admin.dropRetiredShards(Duration.ofHours(24)).await()).doesNotContainAnyElementsOf(moved.retired());
    assertThat(admin.dropRetiredShards(Duration.ZERO).await()).containsAll(moved.retired());
    assertThat(databases("h1")).noneMatch(name -> name.endsWith("_" + database(shard(2))));
  }

  @Test
  @Order(13)
  void aReplicaAdded_isSeededReplicatesAndListed_aMapChangeCannotListOne_andRemovedItIsUnlisted() throws Exception {
    // A host of its own with no shards, so no other test's writes wait for this replica's confirmations.
    try (EmbeddedMariaDb primary = EmbeddedMariaDb.start(null, 0);
        EmbeddedMariaDb replica = EmbeddedMariaDb.start(null, 0)) {
      Map<String, String> servers = new java.util.HashMap<>(addresses);
      servers.put("h9", primary.address());
      servers.put("h9 replica", replica.address());
      addresses = servers;
      admin.changeShardMap(new ShardMapChange.AddHost(new Host("h9", primary.address(), List.of())),
          GraphStore.ANY_VERSION).await();
      sql("h9", "CREATE DATABASE db09999");
      sql("h9", "CREATE TABLE db09999.t (id BIGINT PRIMARY KEY)");
      sql("h9", "INSERT INTO db09999.t VALUES (1)");
      List<String> told = new CopyOnWriteArrayList<>();

      ShardMap listed = admin.addReplica("h9", replica.address(), told::add).await();

      assertThat(listed.hosts().get("h9").replicas()).containsExactly(replica.address());
      assertThat(admin.shardMap().await()).isEqualTo(listed);
      assertThat(told).anyMatch(line -> line.contains("seeding")).anyMatch(line -> line.contains("confirms"));
      assertThat(rows("h9 replica", "SELECT COUNT(*) FROM db09999.t")).as("seeded").isEqualTo(1);
      sql("h9", "INSERT INTO db09999.t VALUES (2)");
      Await.until("a later write replicated", Duration.ofSeconds(10),
          () -> rows("h9 replica", "SELECT COUNT(*) FROM db09999.t") == 2);
      assertThat(admin.addReplica("h9", replica.address(), line -> { }).await()).as("added again: unchanged")
          .isEqualTo(listed);
      Await.until("the server's metrics listing h9's replica", Duration.ofSeconds(10), () -> fleet.call(
          io.vertx.core.http.HttpMethod.GET, "/metrics").text().contains("quiver_host_replicas{host=\"h9\"} 1.0"));
      // Its lag measured by the server's probes: a replica that applied all it received is current.
      Await.until("the server's status and metrics giving the replica's lag", Duration.ofSeconds(10), () -> {
        Long lag = fleet.server.backend().telemetry().replicaLags().getOrDefault("h9", Map.of()).get(replica.address());
        return lag != null && lag >= 0 && lag < 1000 && fleet.call(io.vertx.core.http.HttpMethod.GET, "/metrics").text()
            .contains("quiver_replica_lag_seconds{host=\"h9\",replica=\"" + replica.address() + "\"}");
      });
      GraphException listedByHand = refusal(admin.changeShardMap(
          new ShardMapChange.AddReplica("h9", "127.0.0.1:1"), GraphStore.ANY_VERSION));
      assertThat(listedByHand.code()).isEqualTo(Code.INVALID_ARGUMENT);
      GraphException taken = refusal(admin.addReplica("h9", primary.address(), line -> { }));
      assertThat(taken.code()).isEqualTo(Code.INVALID_ARGUMENT);
      GraphException movedOnto = refusal(admin.moveShards(new ShardSpan(shard(0), shard(0)), "h9", null, step -> { }));
      assertThat(movedOnto.code()).as("a move's copy would not reach h9's replica").isEqualTo(Code.INVALID_ARGUMENT);
      assertThat(movedOnto.getMessage()).contains("has replicas");
      // A primary that stopped waiting for its replica (restarted without the setting, say) is reported.
      sql("h9", "SET GLOBAL rpl_semi_sync_master_enabled = OFF");
      Await.until("h9 reported degraded: acknowledged without a replica", Duration.ofSeconds(15),
          () -> String.valueOf(fleet.server.backend().telemetry().hostProblems().get("h9"))
              .contains("acknowledged without a replica"));
      assertThat(fleet.call(io.vertx.core.http.HttpMethod.GET, "/metrics").text())
          .contains("quiver_host_degraded{host=\"h9\"} 1.0");
      sql("h9", "SET GLOBAL rpl_semi_sync_master_enabled = ON");

      ShardMap unlisted = admin.removeReplica("h9", replica.address()).await();

      assertThat(unlisted.hosts().get("h9").replicas()).isEmpty();
      assertThat(rows("h9", "SELECT @@GLOBAL.rpl_semi_sync_master_enabled")).as("the primary waits for none").isZero();
      assertThat(refusal(admin.removeReplica("h9", replica.address())).code()).isEqualTo(Code.NOT_FOUND);
    }
  }

  /** The failure {@code call} ends with; fails the test if it succeeds. */
  static GraphException refusal(Future<?> call) {
    List<Throwable> failed = new ArrayList<>();
    assertThatThrownBy(() -> {
      try {
        call.await();
      } catch (Throwable failure) {
        failed.add(failure);
        throw failure;
      }
    }).isInstanceOf(GraphException.class);
    return (GraphException) failed.get(0);
  }

  private static String database(int shard) {
    return String.format("db%05d", shard);
  }

  private List<String> databases(String host) throws Exception {
    List<String> names = new ArrayList<>();
    try (Connection connection = connect(host); Statement statement = connection.createStatement();
        var rows = statement.executeQuery("SHOW DATABASES")) {
      while (rows.next()) {
        names.add(rows.getString(1));
      }
    }
    return names;
  }

  private long rows(String host, String query) throws Exception {
    try (Connection connection = connect(host); Statement statement = connection.createStatement();
        var rows = statement.executeQuery(query)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private void sql(String host, String statement) throws Exception {
    try (Connection connection = connect(host); Statement run = connection.createStatement()) {
      run.execute(statement);
    }
  }

  private Connection connect(String host) throws Exception {
    return DriverManager.getConnection("jdbc:mysql://" + addresses.get(host) + "/", BACKEND.hosts().user(),
        BACKEND.hosts().password());
  }
}
