package io.quiver.store.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.core.zk.VersionFence;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.store.GraphChange;
import io.quiver.store.GraphStore;
import io.quiver.store.Node;
import io.quiver.store.NodeBatch;
import io.quiver.store.NodeCondition;
import io.quiver.store.NodeId;
import io.quiver.store.internal.sql.Access;
import io.quiver.store.internal.sql.GroupCommit;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.outbox.UniqueReleaseOp;
import io.quiver.store.internal.table.NodesTable;
import io.quiver.store.internal.table.OutboxTable;
import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;

/**
 * Nodes on the reactive MySQL client, in their type's {@link NodesTable} on the shard their ID
 * names.
 *
 * <p>Updates are read-modify-write under {@code SELECT … FOR UPDATE} in one transaction: a plain
 * read followed by a write would lose concurrent updates. Every operation takes one schema
 * snapshot when it starts and uses it throughout. Every committed write is announced on the
 * change feed.
 *
 * <p>A type with unique fields has its values claimed inside the write's transaction, before it
 * commits, and the values it dropped released through the outbox ({@link UniqueClaims}); the
 * releases are carried out at once after the commit, so the writer's next call finds the old
 * value free, and by the drainer if that fails.
 */
final class NodeStore {
  private final ShardRouter router;
  private final ShardClient client;
  /** Where a rewrite of a type without unique fields runs: its host's next transaction of client writes. */
  private final GroupCommit groups;
  private final SchemaSource schemas;
  private final Changes changes;
  private final UniqueClaims unique;
  private final VersionFence<Schema> writes;
  private final Clock clock;
  private final ChangeWriter log;
  /** Node read statements issued: one per getNode, one per shard of a getNodes. */
  private final LongAdder readQueries;
  /** How this store's reads go: to the primary ({@code READ}), or within the replicas' lag bound ({@code STALE_READ}). */
  private final Access reads;

  /** @param log logs every node this store writes, in the write's transaction */
  NodeStore(ShardRouter router, ShardClient client, GroupCommit groups, SchemaSource schemas, Changes changes,
      UniqueClaims unique, VersionFence<Schema> writes, ChangeWriter log, Clock clock) {
    this(router, client, groups, schemas, changes, unique, writes, log, clock, new LongAdder(), Access.READ);
  }

  private NodeStore(ShardRouter router, ShardClient client, GroupCommit groups, SchemaSource schemas,
      Changes changes, UniqueClaims unique, VersionFence<Schema> writes, ChangeWriter log, Clock clock,
      LongAdder readQueries, Access reads) {
    this.router = router;
    this.client = client;
    this.groups = groups;
    this.schemas = schemas;
    this.changes = changes;
    this.unique = unique;
    this.writes = writes;
    this.log = log;
    this.clock = clock;
    this.readQueries = readQueries;
    this.reads = reads;
  }

  /** The same store, its reads tolerating the replicas' lag bound; its writes and counters are this one's. */
  NodeStore staleTolerant() {
    return new NodeStore(router, client, groups, schemas, changes, unique, writes, log, clock, readQueries,
        Access.STALE_READ);
  }

  // ---- create ----

  record Creation(NodesTable table, ShardRoute route, ObjectNode data, Instant now) {
    /** The node this creation made, once its table gave it a local ID. */
    Node node(long local) {
      NodeType type = table.type();
      return new Node(NodeId.of(route.shard(), type.id(), local), type.name(), type.withDefaults(data), 1, now, now);
    }
  }

  /** Creates a node on {@code colocateWith}'s shard if given, else on a random open, writable shard. */
  Future<Node> create(String typeName, ObjectNode data, NodeId colocateWith) {
    return underSchema(schema -> Futures.attempt(() -> planCreation(schema, typeName, data, colocateWith))
            .compose(this::insert))
        .onSuccess(this::announce);
  }

  /**
   * Runs node writes under one schema snapshot, counted in flight until they complete: every node
   * write goes through here (a bulk import's too), so a version is acknowledged only once no write
   * of an older one can commit ({@link VersionFence}).
   */
  <T> Future<T> underSchema(java.util.function.Function<Schema, Future<T>> work) {
    return writes.write(work);
  }

  /** The checked creation of a node, its shard picked; throws what the create would fail with. */
  Creation planCreation(Schema schema, String typeName, ObjectNode data, NodeId colocateWith) {
    NodeType type = TypeChecks.nodeType(schema, typeName);
    TypeChecks.requireValid("node data", type.validate(data, TypeChecks.idTypes(schema, router.shardMap())));
    if (colocateWith != null) {
      TypeChecks.issued(schema, router.shardMap(), colocateWith);
    }
    ShardRoute route = colocateWith != null ? router.route(colocateWith.shard(), Access.WRITE)
        : router.routeNewNode(ThreadLocalRandom.current());
    return new Creation(new NodesTable(type), route, data, SqlValues.now(clock));
  }

  private Future<Node> insert(Creation creation) {
    return client.inTransaction(creation.route(), connection -> creation.table()
            .insert(connection, creation.route(), creation.data(), creation.now())
            .compose(NodeStore::requireLocalIdInRange)
            .compose(local -> claimCreated(creation, local))
            .compose(local -> logCreated(connection, creation, local)))
        .map(creation::node);
  }

  /** Logs a new node in its insert's transaction ({@link ChangeWriter}); answers its local ID. */
  Future<Long> logCreated(SqlConnection connection, Creation creation, long local) {
    Node node = creation.node(local);
    return log.log(connection, creation.route(), log.node(node.id(), node)).map(local);
  }

  /** Claims a new node's unique values before its insert commits; undoes the claims if they fail. */
  Future<Long> claimCreated(Creation creation, long local) {
    UniqueClaims.Change change = UniqueClaims.change(creation.table().type(), null, creation.data());
    if (change.isEmpty()) {
      return Future.succeededFuture(local);
    }
    NodeId id = NodeId.of(creation.route().shard(), creation.table().type().id(), local);
    return unique.claim(change.claimed(), id, 1)
        .map(claimedUs -> {
          unique.requireFresh(claimedUs);
          return local;
        })
        .recover(failure -> unique.unclaim(change.claimed(), id, 1).transform(undone -> Future.failedFuture(failure)));
  }

  /** A local ID of 2^36 or more cannot be encoded; failing here rolls the insert back. */
  static Future<Long> requireLocalIdInRange(Long local) {
    if (local == null || local <= 0 || local > NodeId.MAX_LOCAL) {
      return Future.failedFuture(GraphException.of(GraphException.Code.INTERNAL,
          "local ID " + local + " does not fit in " + NodeId.LOCAL_BITS + " bits; the shard's table is full"));
    }
    return Future.succeededFuture(local);
  }

  // ---- read ----

  private record Lookup(NodesTable table, ShardRoute route) {}

  Future<Node> get(NodeId id) {
    return Futures.attempt(() -> lookup(id, reads))
        .compose(lookup -> {
          readQueries.increment();
          return client.read(lookup.route(), sql -> lookup.table().select(sql, lookup.route(), id, NodesTable.Lock.NONE))
              .map(row -> lookup.table().node(id, found(row, id)));
        });
  }

  /**
   * The nodes with these IDs, with one query per shard however many types and IDs it holds
   * ({@link NodesTable#selectMany}).
   */
  Future<NodeBatch> getMany(List<NodeId> ids) {
    return Futures.attempt(() -> planMultiGet(ids))
        .compose(this::fetchAll)
        .map(found -> NodeBatch.of(ids, found));
  }

  private record ShardFetch(ShardRoute route, Map<NodesTable, List<NodeId>> byTable) {}

  private List<ShardFetch> planMultiGet(List<NodeId> ids) {
    Schema schema = schemas.current();
    List<ShardFetch> fetches = new ArrayList<>();
    Map<Integer, List<NodeId>> byShard = new LinkedHashMap<>();
    ids.forEach(id -> byShard.computeIfAbsent(id.shard(), shard -> new ArrayList<>()).add(id));
    byShard.forEach((shard, onShard) -> {
      Map<Integer, NodesTable> tables = new HashMap<>();
      Map<NodesTable, List<NodeId>> byTable = new LinkedHashMap<>();
      for (NodeId id : onShard) {
        NodesTable table = tables.computeIfAbsent(id.type(), typeId -> new NodesTable(TypeChecks.issued(schema, router.shardMap(), id)));
        byTable.computeIfAbsent(table, t -> new ArrayList<>()).add(id);
      }
      fetches.add(new ShardFetch(router.route(shard, reads), byTable));
    });
    return fetches;
  }

  private Future<Map<NodeId, Node>> fetchAll(List<ShardFetch> fetches) {
    List<Future<List<Node>>> pending = new ArrayList<>();
    for (ShardFetch fetch : fetches) {
      readQueries.increment();
      pending.add(client.read(fetch.route(), sql -> NodesTable.selectMany(sql, fetch.route(), fetch.byTable())));
    }
    return Future.all(pending).map(done -> {
      Map<NodeId, Node> found = new HashMap<>();
      for (Future<List<Node>> shard : pending) {
        shard.result().forEach(node -> found.put(node.id(), node));
      }
      return found;
    });
  }


  // ---- update, replace ----

  /** Applies a JSON merge patch to the stored data, if the node meets {@code condition}. */
  Future<Node> update(NodeId id, ObjectNode patch, NodeCondition condition) {
    return rewrite(id, condition, stored -> MergePatch.apply(stored, patch));
  }

  /** Replaces the stored data whole, if the node meets {@code condition}. */
  Future<Node> replace(NodeId id, ObjectNode data, NodeCondition condition) {
    return rewrite(id, condition, stored -> data.deepCopy());
  }

  private interface Rewrite {
    ObjectNode apply(ObjectNode stored);
  }

  private record Rewriting(Schema schema, Lookup lookup) {}

  /** A written node, and the outbox entries of the unique values it released, to carry out after commit. */
  private record Rewritten(Node node, List<Released> released) {}

  private Future<Node> rewrite(NodeId id, NodeCondition condition, Rewrite rewrite) {
    return underSchema(schema -> Futures.attempt(() -> new Rewriting(schema, lookup(schema, id, Access.WRITE)))
            .compose(rewriting -> rewriting.lookup().table().type().uniqueFields().isEmpty()
                ? grouped(rewriting, id, condition, rewrite)
                : claiming(rewriting, id, condition, rewrite)))
        .onSuccess(this::announce);
  }

  /**
   * A rewrite of a type without unique fields, which has nothing to claim outside its
   * transaction: it runs in its host's next transaction of client writes ({@link GroupCommit}),
   * shared with the edge writes and rewrites waiting for the host — its locking read with theirs,
   * then its row and change-log entry with their statements, one COMMIT for all.
   */
  private Future<Node> grouped(Rewriting rewriting, NodeId id, NodeCondition condition, Rewrite rewrite) {
    Lookup lookup = rewriting.lookup();
    return groups.submit(new GroupCommit.Member<>(lookup.route(), GroupCommit.Key.node(id),
        connection -> lookup.table().select(connection, lookup.route(), id, NodesTable.Lock.FOR_UPDATE)
            .map(row -> rewriteStep(rewriting, id, row, condition, rewrite))));
  }

  /** What a grouped rewrite does with the row as locked: refused when it is gone or fails the condition, else written. */
  private GroupCommit.Step<Node> rewriteStep(Rewriting rewriting, NodeId id, Row row, NodeCondition condition,
      Rewrite rewrite) {
    Node next;
    try {
      next = nextVersion(rewriting, id, found(row, id), condition, rewrite);
    } catch (GraphException refused) {
      return GroupCommit.Step.refuse(refused);
    }
    Step step = new Step(next, UniqueClaims.Change.NONE);
    return GroupCommit.Step.write(connection -> written(connection, rewriting.lookup(), step).map(Rewritten::node));
  }

  /**
   * A rewrite of a type with unique fields, in a transaction of its own: its new values are
   * claimed (in ZooKeeper-guarded tables of other shards) between its locking read and its write,
   * which a shared transaction's phases have no room for; the values it dropped are released
   * once it commits.
   */
  private Future<Node> claiming(Rewriting rewriting, NodeId id, NodeCondition condition, Rewrite rewrite) {
    return client.inTransaction(rewriting.lookup().route(),
            connection -> rewriteLocked(connection, rewriting, id, condition, rewrite))
        .compose(rewritten -> releaseNow(rewriting.lookup().route(), rewritten.released()).map(rewritten.node()));
  }

  private Future<Rewritten> rewriteLocked(
      SqlConnection connection, Rewriting rewriting, NodeId id, NodeCondition condition, Rewrite rewrite) {
    Lookup lookup = rewriting.lookup();
    return lookup.table().select(connection, lookup.route(), id, NodesTable.Lock.FOR_UPDATE)
        .compose(row -> Futures.attempt(() -> {
          Node next = nextVersion(rewriting, id, found(row, id), condition, rewrite);
          return new Step(next, UniqueClaims.change(lookup.table().type(), NodesTable.storedData(row), next.data()));
        }))
        .compose(step -> claimRewritten(step)
            .compose(claimedUs -> written(connection, lookup, step).map(rewritten -> {
              if (claimedUs != null) {
                unique.requireFresh(claimedUs);
              }
              return rewritten;
            }))
            .recover(failure -> unclaimRewritten(step, failure)));
  }

  /**
   * Writes a rewrite's row, its released values' outbox entries and its change-log entry, sent
   * together: none needs another's answer (issue 37: a node update is three round trips, not four).
   */
  private Future<Rewritten> written(SqlConnection connection, Lookup lookup, Step step) {
    Node next = step.next();
    Node node = new Node(next.id(), next.type(), lookup.table().type().withDefaults(next.data()), next.version(),
        next.createdAt(), next.updatedAt());
    Future<Void> updated = lookup.table().update(connection, lookup.route(), next);
    Future<List<Released>> released = appendReleases(connection, lookup.route(), step.change().released(), next.id(),
        next.version());
    Future<Void> logged = log.log(connection, lookup.route(), log.node(next.id(), node));
    return Future.all(updated, released, logged).map(all -> new Rewritten(node, released.result()));
  }

  /** The next version of a node, and what it changes in its type's unique indexes. */
  private record Step(Node next, UniqueClaims.Change change) {}

  /** Claims the new unique values of a rewrite; answers when (null when there were none). */
  private Future<Long> claimRewritten(Step step) {
    List<UniqueClaims.Value> claimed = step.change().claimed();
    return claimed.isEmpty() ? Future.succeededFuture(null) : unique.claim(claimed, step.next().id(), step.next().version());
  }

  /** Removes a failed rewrite's claims, then fails as it did. */
  private <T> Future<T> unclaimRewritten(Step step, Throwable failure) {
    List<UniqueClaims.Value> claimed = step.change().claimed();
    return claimed.isEmpty() ? Future.failedFuture(failure)
        : unique.unclaim(claimed, step.next().id(), step.next().version()).transform(undone -> Future.failedFuture(failure));
  }

  // ---- unique values released ----

  /** An outbox entry releasing a unique value, appended by a committed write. */
  private record Released(long entryId, UniqueReleaseOp op) {}

  /** Appends the release of each dropped value in the write's transaction. */
  private Future<List<Released>> appendReleases(SqlConnection connection, ShardRoute route,
      List<UniqueClaims.Value> values, NodeId id, long version) {
    List<Future<Released>> appended = new ArrayList<>();
    for (UniqueClaims.Value value : values) {
      UniqueReleaseOp op = UniqueClaims.releaseOp(value, id, version);
      appended.add(OutboxTable.INSTANCE.append(connection, route, op.columns(), SqlValues.nowMicros(clock))
          .map(entryId -> new Released(entryId, op)));
    }
    return Future.all(appended).map(done -> done.<Released>list());
  }

  /**
   * Carries out a committed write's releases and retires their entries; what fails stays for the
   * drainer. Never fails the write, which has committed.
   */
  private Future<Void> releaseNow(ShardRoute route, List<Released> released) {
    List<Future<Void>> done = new ArrayList<>();
    for (Released entry : released) {
      done.add(unique.release(entry.op())
          .compose(freed -> client.write(route, sql -> OutboxTable.INSTANCE.delete(sql, route, entry.entryId())))
          .otherwiseEmpty());
    }
    return Future.join(done).mapEmpty();
  }

  /** The next version as stored: the rewritten data, without defaults. */
  private Node nextVersion(Rewriting rewriting, NodeId id, Row row, NodeCondition condition, Rewrite rewrite) {
    long stored = row.getLong("version");
    NodeType type = rewriting.lookup().table().type();
    ObjectNode storedData = NodesTable.storedData(row);
    if (condition.version() != GraphStore.ANY_VERSION && condition.version() != stored) {
      throw GraphException.of(GraphException.Code.VERSION_CONFLICT,
          "node " + id + " is at version " + stored + ", not " + condition.version(),
          Map.of("currentVersion", stored, "current", type.withDefaults(storedData)));
    }
    // The data as a reader sees it is built only for a write that asks about its fields.
    ObjectNode current = condition.fields().isEmpty() ? null : type.withDefaults(storedData);
    String unmet = current == null ? null : condition.unmet(current);
    if (unmet != null) {
      throw GraphException.of(GraphException.Code.VERSION_CONFLICT,
          "node " + id + "'s field '" + unmet + "' is " + current.get(unmet) + ", not " + condition.fields().get(unmet)
              + " as the write's condition asks; nothing was written",
          Map.of("currentVersion", stored, "current", current));
    }
    ObjectNode data = rewrite.apply(storedData);
    TypeChecks.requireValid("node data", type.validate(data, TypeChecks.idTypes(rewriting.schema(), router.shardMap())));
    return new Node(id, type.name(), data, stored + 1,
        SqlValues.fromDateTime(row.getLocalDateTime("created_at")), SqlValues.now(clock));
  }

  // ---- delete ----

  /** A further statement that must commit or roll back with a node's deletion. */
  @FunctionalInterface
  interface AlsoInTransaction {
    Future<?> run(SqlConnection connection, ShardRoute route);

    AlsoInTransaction NOTHING = (connection, route) -> Future.succeededFuture();
  }

  /**
   * Deletes the node's row, and runs {@code also} in the same transaction. A node with unique
   * values is read first, locked, and its values released once the deletion commits.
   */
  Future<Void> delete(NodeId id, AlsoInTransaction also) {
    List<Released> released = new ArrayList<>();
    return withRow(id, (lookup, connection) -> {
          released.clear();
          if (lookup.table().type().uniqueFields().isEmpty()) {
            return lookup.table().delete(connection, lookup.route(), id)
                .compose(deleted -> logDeleted(connection, lookup.route(), id, deleted));
          }
          return lookup.table().select(connection, lookup.route(), id, NodesTable.Lock.FOR_UPDATE)
              .compose(row -> row == null ? Future.succeededFuture(false)
                  : lookup.table().delete(connection, lookup.route(), id)
                      .compose(deleted -> appendReleases(connection, lookup.route(),
                          UniqueClaims.change(lookup.table().type(), NodesTable.storedData(row), null).released(), id,
                          Long.MAX_VALUE))
                      .compose(appended -> {
                        released.addAll(appended);
                        return logDeleted(connection, lookup.route(), id, true);
                      }));
        }, also)
        .compose(done -> released.isEmpty() ? Future.succeededFuture()
            : Futures.attempt(() -> router.route(id.shard(), Access.WRITE))
                .compose(route -> releaseNow(route, released))
                .otherwiseEmpty())
        .onSuccess(done -> changes.announce(new GraphChange.NodeChanged(id, null)));
  }

  /** Logs a node's deletion in its transaction, if a row was deleted; answers whether one was. */
  private Future<Boolean> logDeleted(SqlConnection connection, ShardRoute route, NodeId id, boolean deleted) {
    return deleted ? log.log(connection, route, log.node(id, null)).map(true) : Future.succeededFuture(false);
  }

  /** Runs {@code also} in a transaction holding the node's row share-locked; NOT_FOUND when the node is gone. */
  Future<Void> whileHeld(NodeId id, AlsoInTransaction also) {
    return withRow(id, (lookup, connection) -> lookup.table().existsLocked(connection, lookup.route(), id), also);
  }

  /** {@code row} (a statement on the node's row answering whether it was there), then {@code also}, in one transaction. */
  private Future<Void> withRow(NodeId id, BiFunction<Lookup, SqlConnection, Future<Boolean>> row,
      AlsoInTransaction also) {
    return underSchema(schema -> Futures.attempt(() -> lookup(schema, id, Access.WRITE))
            .compose(lookup -> client.inTransaction(lookup.route(), connection -> row.apply(lookup, connection)
                .compose(there -> there
                    ? also.run(connection, lookup.route())
                    : Future.failedFuture(GraphException.notFound("no node " + id))))))
        .mapEmpty();
  }

  // ---- unique lookups ----

  Future<java.util.Optional<io.quiver.store.UniqueClaim>> uniqueClaim(String type, String field, String value) {
    return unique.lookup(type, field, value);
  }

  // ---- shared ----

  /** Node read statements issued since start. */
  long readQueries() {
    return readQueries.sum();
  }

  void announce(Node node) {
    changes.announce(new GraphChange.NodeChanged(node.id(), node));
  }

  private Lookup lookup(NodeId id, Access access) {
    return lookup(schemas.current(), id, access);
  }

  private Lookup lookup(Schema schema, NodeId id, Access access) {
    return new Lookup(new NodesTable(TypeChecks.issued(schema, router.shardMap(), id)), router.route(id.shard(), access));
  }

  private static Row found(Row row, NodeId id) {
    if (row == null) {
      throw GraphException.notFound("no node " + id);
    }
    return row;
  }
}
