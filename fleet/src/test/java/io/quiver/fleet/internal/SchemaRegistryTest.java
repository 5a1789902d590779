package io.quiver.fleet.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.core.testing.ExpectedLog;
import io.quiver.core.zk.ZkDocumentWatcher;
import io.quiver.embedded.EmbeddedZooKeeper;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaChanges;
import io.quiver.schema.SchemaJson;
import io.quiver.schema.SchemaRule;
import io.quiver.schema.SchemaStore;
import io.quiver.schema.SchemaWatcher;
import io.quiver.schema.UniqueIndex;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The registry in a real ZooKeeper: versions, compare-and-set, provisioning before publishing. */
class SchemaRegistryTest {
  private static EmbeddedZooKeeper zooKeeper;
  private static CuratorFramework curator;

  @BeforeAll
  static void start() throws Exception {
    zooKeeper = EmbeddedZooKeeper.start(null, 0);
    curator = CuratorFrameworkFactory.newClient(zooKeeper.connectString(), new ExponentialBackoffRetry(100, 5));
    curator.start();
    curator.blockUntilConnected();
  }

  @AfterAll
  static void stop() {
    curator.close();
    zooKeeper.close();
  }

  private static String path() {
    return "/registry-test/" + System.nanoTime();
  }

  private static NodeType nodeType(String name, int id, String fields) throws Exception {
    return SchemaJson.readNodeType(name, new ObjectMapper().readTree("{\"id\": " + id + ", \"fields\": " + fields + "}"));
  }

  @Test
  void defineNodeType_provisionsBeforePublishing_andTheWatcherServesIt() throws Exception {
    String path = path();
    SchemaStore store = new SchemaStore(curator, path);
    List<Long> provisionedWhilePublished = new CopyOnWriteArrayList<>();
    SchemaRegistry registry = new SchemaRegistry(store, schema ->
        provisionedWhilePublished.add(store.read().map(Schema::version).orElse(0L)));
    try (SchemaWatcher watcher = new SchemaWatcher(curator, path)) {
      watcher.start();
      assertThat(watcher.awaitInitialized(Duration.ofSeconds(5)).nodeTypes()).isEmpty();

      Schema first = registry.defineNodeType(nodeType("user", 1, "{}"));
      Schema second = registry.defineNodeType(nodeType("user", 1, "{\"bio\": {\"type\": \"string\", \"default\": \"\"}}"));

      assertThat(first.version()).isEqualTo(1);
      assertThat(second.version()).isEqualTo(2);
      assertThat(provisionedWhilePublished).as("each change was provisioned while the previous version was stored")
          .containsExactly(0L, 1L);
      assertThat(watcher.awaitVersion(2, Duration.ofSeconds(1)).nodeType("user").orElseThrow()
          .fields().definitions()).containsKey("bio");
    }
  }

  /** An index builder that records what it built and answers the duplicates it is given. */
  private static final class RecordingIndexes implements SchemaRegistry.IndexBuilder {
    final List<String> built = new CopyOnWriteArrayList<>();
    final List<UniqueIndex.State> statesSeen = new CopyOnWriteArrayList<>();
    volatile List<UniqueIndex.Duplicate> duplicates = List.of();

    @Override
    public int shardCount() {
      return 6;
    }

    @Override
    public List<UniqueIndex.Duplicate> build(Schema schema, String type, String field) {
      built.add(type + "." + field);
      statesSeen.add(schema.nodeType(type).orElseThrow().fields().definitions().get(field).unique().state());
      return duplicates;
    }
  }

  private static UniqueIndex index(SchemaStore store, String type, String field) throws Exception {
    return store.read().orElseThrow().nodeType(type).orElseThrow().fields().definitions().get(field).unique();
  }

  @Test
  void aUniqueFieldOfANewType_isActiveAtOnce_overTheFleetsShardCount_withoutABuild() throws Exception {
    SchemaStore store = new SchemaStore(curator, path());
    RecordingIndexes indexes = new RecordingIndexes();
    SchemaRegistry registry = new SchemaRegistry(store, schema -> { }, indexes);

    registry.defineNodeType(nodeType("user", 1, "{\"username\": {\"type\": \"string\", \"unique\": true}}"));

    assertThat(index(store, "user", "username")).isEqualTo(new UniqueIndex(6, UniqueIndex.State.ACTIVE));
    assertThat(indexes.built).isEmpty();
  }

  @Test
  void declaringUniqueOnAnExistingType_publishesItBuilding_buildsIt_thenActivatesIt() throws Exception {
    SchemaStore store = new SchemaStore(curator, path());
    RecordingIndexes indexes = new RecordingIndexes();
    SchemaRegistry registry = new SchemaRegistry(store, schema -> { }, indexes);
    registry.defineNodeType(nodeType("user", 1, "{\"email\": {\"type\": \"string\"}}"));

    Schema done = registry.defineNodeType(nodeType("user", 1, "{\"email\": {\"type\": \"string\", \"unique\": true}}"));

    assertThat(indexes.built).containsExactly("user.email");
    assertThat(indexes.statesSeen).as("built under the published building index").containsExactly(UniqueIndex.State.BUILDING);
    assertThat(done.version()).as("one version building, one active").isEqualTo(3);
    assertThat(index(store, "user", "email")).isEqualTo(new UniqueIndex(6, UniqueIndex.State.ACTIVE));
  }

  @Test
  void aBuildThatFindsDuplicates_leavesTheIndexBuilding_listsThem_andActivateFinishesItLater() throws Exception {
    SchemaStore store = new SchemaStore(curator, path());
    RecordingIndexes indexes = new RecordingIndexes();
    indexes.duplicates = List.of(new UniqueIndex.Duplicate("x@example.com", List.of("7", "9")));
    SchemaRegistry registry = new SchemaRegistry(store, schema -> { }, indexes);
    registry.defineNodeType(nodeType("user", 1, "{\"email\": {\"type\": \"string\"}}"));

    assertThatThrownBy(() -> registry.defineNodeType(
            nodeType("user", 1, "{\"email\": {\"type\": \"string\", \"unique\": true}}")))
        .isInstanceOfSatisfying(io.quiver.core.GraphException.class, refused -> {
          assertThat(refused.code()).isEqualTo(io.quiver.core.GraphException.Code.UNIQUE_VIOLATION);
          assertThat(refused.getMessage()).contains("x@example.com").contains("[7, 9]");
          assertThat(refused.details()).containsEntry("field", "email");
        });
    assertThat(index(store, "user", "email").state()).isEqualTo(UniqueIndex.State.BUILDING);

    registry.activate("user", "email");
    assertThat(index(store, "user", "email").state()).isEqualTo(UniqueIndex.State.ACTIVE);
  }

  @Test
  void aChangeKeepsAStoredIndexAsItIs_whateverItSendsOfShardsOrState_andMayDropIt() throws Exception {
    SchemaStore store = new SchemaStore(curator, path());
    RecordingIndexes indexes = new RecordingIndexes();
    indexes.duplicates = List.of(new UniqueIndex.Duplicate("x", List.of("1", "2")));
    SchemaRegistry registry = new SchemaRegistry(store, schema -> { }, indexes);
    registry.defineNodeType(nodeType("user", 1, "{\"email\": {\"type\": \"string\"}}"));
    assertThatThrownBy(() -> registry.defineNodeType(
        nodeType("user", 1, "{\"email\": {\"type\": \"string\", \"unique\": true}}")));

    registry.defineNodeType(nodeType("user", 1,
        "{\"email\": {\"type\": \"string\", \"unique\": {\"shards\": 99, \"state\": \"active\"}}}"));
    assertThat(index(store, "user", "email")).as("no change activates an index but its build")
        .isEqualTo(new UniqueIndex(6, UniqueIndex.State.BUILDING));

    registry.defineNodeType(nodeType("user", 1, "{\"email\": {\"type\": \"string\"}}"));
    assertThat(index(store, "user", "email")).isNull();
  }

  @Test
  void definingATypeExactlyAsStored_publishesNothing() throws Exception {
    SchemaStore store = new SchemaStore(curator, path());
    SchemaRegistry registry = new SchemaRegistry(store, schema -> { });
    registry.defineNodeType(nodeType("user", 1, "{}"));

    assertThat(registry.defineNodeType(nodeType("user", 1, "{}")).version()).isEqualTo(1);
    assertThat(store.read().orElseThrow().version()).isEqualTo(1);
  }

  @Test
  void aRefusedChange_orAFailedProvisioning_publishesNothing() throws Exception {
    SchemaStore store = new SchemaStore(curator, path());
    new SchemaRegistry(store, schema -> { }).defineNodeType(nodeType("user", 1, "{}"));

    SchemaRegistry failing = new SchemaRegistry(store, schema -> {
      throw new IllegalStateException("host h2 is down");
    });
    assertThatThrownBy(() -> failing.defineNodeType(nodeType("pin", 2, "{}"))).hasMessageContaining("h2");
    assertThatThrownBy(() -> failing.defineNodeType(nodeType("user", 5, "{}")))
        .satisfies(refusal -> assertThat(SchemaRule.of(refusal)).contains(SchemaRule.TYPE_ID_IMMUTABLE));
    assertThat(store.read().orElseThrow().version()).isEqualTo(1);
    assertThat(store.read().orElseThrow().nodeTypes()).containsOnlyKeys("user");
  }

  @Test
  void concurrentChanges_allLand_eachOnItsOwnVersion() throws Exception {
    SchemaStore store = new SchemaStore(curator, path());
    SchemaRegistry registry = new SchemaRegistry(store, schema -> { });
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Schema>> changes = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        int id = i + 1;
        changes.add(pool.submit(() -> registry.defineNodeType(nodeType("type" + id, id, "{}"))));
      }
      for (Future<Schema> change : changes) {
        change.get();
      }
    } finally {
      pool.shutdown();
    }
    Schema stored = store.read().orElseThrow();
    assertThat(stored.nodeTypes()).hasSize(8);
    assertThat(stored.version()).isEqualTo(8);
  }

  @Test
  void watcher_keepsTheLastGoodSchema_whenAnInvalidDocumentIsWritten() throws Exception {
    String path = path();
    new SchemaRegistry(new SchemaStore(curator, path), schema -> { }).defineNodeType(nodeType("user", 1, "{}"));
    try (SchemaWatcher watcher = new SchemaWatcher(curator, path);
        ExpectedLog log = ExpectedLog.of(ZkDocumentWatcher.class)) {
      watcher.start();
      watcher.awaitFirst(Duration.ofSeconds(5));

      curator.setData().forPath(path, "{\"version\": 9, \"nodeTypes\": 5}".getBytes(StandardCharsets.UTF_8));

      assertThat(log.await(Level.ERROR, "ignoring an invalid document at " + path, Duration.ofSeconds(5)))
          .contains("keeping version 1").contains("nodeTypes must be a JSON object");
      assertThat(watcher.current().version()).isEqualTo(1);
      assertThat(watcher.current().nodeTypes()).containsOnlyKeys("user");
    }
  }

  @Test
  void aSeed_onlyAddsWhatIsMissing_andNeverUndoesAChangeMadeSince() throws Exception {
    SchemaStore store = new SchemaStore(curator, path());
    SchemaRegistry registry = new SchemaRegistry(store, schema -> { });
    Schema seed = SchemaJson.parse("""
        {"version": 1, "nodeTypes": {"user": {"id": 1, "fields": {"name": {"type": "string", "default": ""},
                                                                   "age": {"type": "integer"}}}}}""");
    registry.apply(seed);
    // Since the seed: a field added, one removed, and the registry's default confirmed as changed.
    registry.defineNodeType(nodeType("user", 1, "{\"name\": {\"type\": \"string\", \"default\": \"anon\"},"
        + " \"bio\": {\"type\": \"string\"}}"), java.util.Set.of(SchemaChanges.Permit.CHANGE_DEFAULTS));

    // A restart seeds again, from a document that also brings a new type and a new field.
    Schema restarted = registry.apply(SchemaJson.parse("""
        {"version": 1, "nodeTypes": {"user": {"id": 1, "fields": {"name": {"type": "string", "default": ""},
                                                                   "age": {"type": "integer"},
                                                                   "email": {"type": "string"}}},
                                     "pin": {"id": 2}}}"""));

    NodeType user = restarted.nodeType("user").orElseThrow();
    assertThat(user.fields().definitions()).containsOnlyKeys("name", "bio", "email");
    assertThat(user.fields().definitions().get("name").defaultValue().asText()).as("the changed default kept")
        .isEqualTo("anon");
    assertThat(user.fields().retired()).as("the removed field stays removed").containsOnlyKeys("age");
    assertThat(restarted.nodeType("pin")).isPresent();
    assertThat(store.read().orElseThrow()).isEqualTo(restarted);

    Schema again = registry.apply(seed);
    assertThat(again.version()).as("a seed adding nothing publishes nothing").isEqualTo(restarted.version());
  }
}
