package io.quiver.store.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.store.Cursor;
import io.quiver.store.Edge;
import io.quiver.store.EdgeCondition;
import io.quiver.store.EdgeId;
import io.quiver.store.EdgeListHead;
import io.quiver.store.EdgeListId;
import io.quiver.store.EdgeLookup;
import io.quiver.store.EdgePage;
import io.quiver.store.EdgeQuery;
import io.quiver.store.EdgeResult;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphChange;
import io.quiver.store.GraphStore;
import io.quiver.store.NodeId;
import io.quiver.store.internal.outbox.InverseOp;
import io.quiver.store.internal.sql.Access;
import io.quiver.store.internal.sql.GroupCommit;
import io.quiver.store.internal.sql.Returning;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.CountsTable;
import io.quiver.store.internal.table.EdgeRow;
import io.quiver.store.internal.table.EdgesTable;
import io.quiver.store.internal.table.NodesTable;
import io.quiver.store.internal.table.OutboxTable;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Edges on the FROM node's shard, in their type's {@link EdgesTable}.
 *
 * <h2>Consistency</h2>
 * An edge write and its change to {@link CountsTable edge_counts} commit in one transaction, so
 * the count always equals the number of active rows. Two concurrent adds of one edge serialize on
 * its row, and the second sees the first's result: the count moves once. On MariaDB a client's
 * add without a condition, and a removal, is one upsert that locks the row (a new edge's
 * primary key: the second insert waits, then updates) and answers what it replaced
 * ({@link EdgesTable#upsertFrom}); a conditional write, an archive or a restore, and every write
 * on MySQL, reads the row locked first ({@link EdgesTable#readLocked}; of a new edge, the
 * second's insert fails on the key and its transaction runs again).
 *
 * <p>Removal keeps the row as a tombstone: its write time lets copies of an edge written in
 * different orders converge on the newest operation ({@link EdgeRow}). When the edge type has an
 * inverse, the operation's {@link OutboxTable outbox} entry commits in the same transaction, so
 * the inverse is never lost — or, with the change log written from the binary log, nothing more
 * does: the forward copy's row there is the record its host's tailer writes the inverse from
 * ({@link InverseEntries}).
 *
 * <h2>Group commit</h2>
 * A client's write runs in its host's next transaction ({@link GroupCommit}): alone when the host
 * has a transaction slot free, else with the writes that waited with it. Each write is a
 * {@link GroupCommit.Member}: its locking reads (or its upsert), then a {@link GroupCommit.Step}
 * decided on what they found — its statements, an answer with nothing to write, or a refusal
 * (node gone, condition unmet) that leaves the others of its group unaffected.
 *
 * <h2>Write time</h2>
 * Every write stamps {@code updated_us}, and a client's write on the forward copy always lands:
 * its stamp is the later of now and the stored stamp plus one, so clock skew between servers
 * cannot make a newer request lose to an older one.
 */
final class EdgeStore {
  private final ShardRouter router;
  private final ShardClient client;
  /** Where a client's edge write runs: its host's next transaction, shared with the writes waiting for it. */
  private final GroupCommit groups;
  private final SchemaSource schemas;
  private final Changes changes;
  private final Clock clock;
  private final ChangeWriter log;
  /** Where a write leaves its inverse copy to be written. */
  private final InverseEntries inverseEntries;
  private final LongAdder readQueries;
  /** How this store's reads go: to the primary ({@code READ}), or within the replicas' lag bound ({@code STALE_READ}). */
  private final Access reads;

  /** @param log logs every edge copy this store writes, in the write's transaction */
  EdgeStore(ShardRouter router, ShardClient client, GroupCommit groups, SchemaSource schemas, Changes changes,
      ChangeWriter log, InverseEntries inverseEntries, Clock clock) {
    this(router, client, groups, schemas, changes, log, inverseEntries, clock, new LongAdder(), Access.READ);
  }

  private EdgeStore(ShardRouter router, ShardClient client, GroupCommit groups, SchemaSource schemas,
      Changes changes, ChangeWriter log, InverseEntries inverseEntries, Clock clock, LongAdder readQueries,
      Access reads) {
    this.router = router;
    this.client = client;
    this.groups = groups;
    this.schemas = schemas;
    this.changes = changes;
    this.log = log;
    this.inverseEntries = inverseEntries;
    this.clock = clock;
    this.readQueries = readQueries;
    this.reads = reads;
  }

  /** The same store, its reads tolerating the replicas' lag bound; its writes and counters are this one's. */
  EdgeStore staleTolerant() {
    return new EdgeStore(router, client, groups, schemas, changes, log, inverseEntries, clock, readQueries,
        Access.STALE_READ);
  }

  /** List and count statements issued since start. */
  long readQueries() {
    return readQueries.sum();
  }

  /** One edge operation's resolved types and route; {@code inverse} is null when none is defined. */
  record Target(EdgesTable table, NodeType fromType, ShardRoute route, EdgeType inverse) {
    EdgeType type() {
      return table.type();
    }

    /** The operation that tells the inverse copy of (from, to), or null when there is none to tell. */
    InverseOp inverseOf(NodeId from, NodeId to, EdgeRow written) {
      return InverseOp.mirror(type(), inverse, from, to, written);
    }
  }

  // ---- add ----

  /**
   * Adds the edge, or updates it if present (adding twice keeps one edge). A null sequence keeps
   * an active edge's sequence and gives a new one the write time; null data keeps an active
   * edge's data. The inverse is left in the same transaction ({@link InverseEntries}).
   */
  Future<EdgeWrite> add(NodeId from, String typeName, NodeId to, Long sequence, ObjectNode data, EdgeState state,
      EdgeCondition condition) {
    int rowState = state == EdgeState.ARCHIVED ? EdgeRow.ARCHIVED : EdgeRow.ACTIVE;
    return Futures.attempt(() -> planWrite(from, typeName, to, data))
        .compose(target -> grouped(target, from, to, connection -> condition.expect() == EdgeCondition.Expect.ANY
            && Returning.answers(connection)
            ? upsertAdd(connection, target, from, to, sequence, data, rowState)
            : lockFromExisting(connection, target, from, to)
                .map(locked -> addStep(target, from, to, locked, sequence, data, rowState, condition))));
  }

  /**
   * An add with no condition, in one statement that checks the node, writes the row and answers
   * what it replaced ({@link EdgesTable#upsertFrom}, applying {@link #added}'s rule in SQL): with
   * nothing to check against the stored row, no locking read has to come first. MariaDB only
   * ({@link Returning#answers}); a conditional add reads the row, locked, and decides in Java.
   */
  private Future<GroupCommit.Step<EdgeWrite>> upsertAdd(SqlConnection connection, Target target, NodeId from,
      NodeId to, Long sequence, ObjectNode data, int state) {
    return target.table().upsertFrom(connection, target.route(), new NodesTable(target.fromType()), from, to.value(),
            sequence, state, data == null ? null : SqlValues.toJson(data), nowUs())
        .map(upserted -> upserted == null ? GroupCommit.Step.refuse(noNode(from))
            : GroupCommit.Step.write(written -> recordUpserted(written, target, from, to, upserted)
                .map(recorded -> addWrite(target, from, to, upserted.before(), upserted.after(), recorded))));
  }

  /** What an add does to the row as locked: refused when its node is gone or its condition unmet, else written. */
  private GroupCommit.Step<EdgeWrite> addStep(Target target, NodeId from, NodeId to, EdgesTable.LockedFrom locked,
      Long sequence, ObjectNode data, int state, EdgeCondition condition) {
    if (!locked.fromExists()) {
      return GroupCommit.Step.refuse(noNode(from));
    }
    EdgeRow held = EdgeRow.orAbsent(locked.row());
    if (!condition.metBy(held.live(), held.live() ? held.sequence() : 0)) {
      return GroupCommit.Step.refuse(unmet(target, from, to, held, condition));
    }
    EdgeRow added = added(held, sequence, data == null ? null : SqlValues.toJson(data), state);
    return GroupCommit.Step.write(connection -> record(connection, target, from, to, locked.row(), added)
        .map(recorded -> addWrite(target, from, to, locked.row(), added, recorded)));
  }

  /** An add's answer: what it did to the row ({@code stored}, null where there was none) it wrote as {@code added}. */
  private static EdgeWrite addWrite(Target target, NodeId from, NodeId to, EdgeRow stored, EdgeRow added,
      Recorded recorded) {
    return new EdgeWrite(recorded.inverse(), addChange(EdgeRow.orAbsent(stored), added), recorded.changed(),
        target.table().edge(from, to, added));
  }

  /**
   * Runs a client's write of one edge in its host's next transaction ({@link GroupCommit}, shared
   * with the other writes waiting for the host), and announces its change once committed.
   */
  private Future<EdgeWrite> grouped(Target target, NodeId from, NodeId to,
      Function<SqlConnection, Future<GroupCommit.Step<EdgeWrite>>> lock) {
    GroupCommit.Key key = GroupCommit.Key.edge(target.route().shard(), target.type().id(), from.value(), to.value());
    return groups.submit(new GroupCommit.Member<>(target.route(), key, lock)).onSuccess(this::announce);
  }

  /**
   * Locks the edge's row (null when there is none: {@link EdgesTable#readLocked}), and share-locks
   * its FROM node, which must exist: a write that would leave a live edge on a node that is gone
   * is NOT_FOUND (a deleted node's edges are only ever removed, by a client or by the delete
   * rule's inverse). One statement ({@link EdgesTable#readLockedFrom}).
   */
  private static Future<EdgesTable.LockedFrom> lockFromExisting(SqlConnection connection, Target target, NodeId from,
      NodeId to) {
    return target.table().readLockedFrom(connection, target.route(), new NodesTable(target.fromType()), from,
        to.value());
  }

  private static GraphException noNode(NodeId from) {
    return GraphException.notFound("no node " + from);
  }

  /** VERSION_CONFLICT: the edge as it is ({@code details.current}, null when absent) fails {@code condition}. */
  private static GraphException unmet(Target target, NodeId from, NodeId to, EdgeRow held,
      EdgeCondition condition) {
    boolean present = held.live();
    Map<String, Object> current = new HashMap<>();
    if (present) {
      Edge edge = target.table().edge(from, to, held);
      current.put("sequence", edge.sequence());
      current.put("state", edge.state().name().toLowerCase(java.util.Locale.ROOT));
      current.put("data", edge.data());
    }
    String wanted = switch (condition.expect()) {
      case ABSENT -> "no edge";
      case AT_SEQUENCE -> "an edge at sequence " + condition.sequence();
      default -> "an edge";
    };
    Map<String, Object> details = new HashMap<>();
    details.put("current", present ? current : com.fasterxml.jackson.databind.node.NullNode.getInstance());
    return GraphException.of(GraphException.Code.VERSION_CONFLICT, "the write asked for " + wanted + " from " + from
        + " to " + to + ", and " + (present ? "there is one at sequence " + held.sequence() : "there is none")
        + "; nothing was written", details);
  }

  // ---- remove ----

  /**
   * Removes the edge, leaving a tombstone. Removing an absent edge of a type with an inverse still
   * records a tombstone and tells the inverse: the other copy may hold an add that this removal
   * is newer than — in one statement that writes the tombstone and answers what it replaced
   * ({@link EdgesTable#upsertTombstone}; on MySQL, a locking read of its row and then the write).
   * Without an inverse there is nothing to tell, and an absent edge is left as it is: its row is
   * read, locked, first.
   */
  Future<EdgeWrite> remove(NodeId from, String typeName, NodeId to) {
    return Futures.attempt(() -> planWrite(from, typeName, to, null))
        .compose(target -> grouped(target, from, to, connection -> target.inverse() != null
            && Returning.answers(connection)
            ? upsertRemove(connection, target, from, to)
            : lockedRemove(connection, target, from, to)));
  }

  /** A removal as one upsert that writes the tombstone and answers the row it replaced. */
  private Future<GroupCommit.Step<EdgeWrite>> upsertRemove(SqlConnection connection, Target target, NodeId from,
      NodeId to) {
    return target.table().upsertTombstone(connection, target.route(), from.value(), to.value(), nowUs())
        .map(upserted -> GroupCommit.Step.write(written -> recordUpserted(written, target, from, to, upserted)
            .map(recorded -> removeWrite(upserted.before(), recorded))));
  }

  /** A removal that reads its row, locked, first: of a type without an inverse, an absent edge writes nothing. */
  private Future<GroupCommit.Step<EdgeWrite>> lockedRemove(SqlConnection connection, Target target, NodeId from,
      NodeId to) {
    return target.table().readLocked(connection, target.route(), from.value(), to.value())
        .map(stored -> target.inverse() == null && (stored == null || !stored.live())
            ? GroupCommit.Step.answer(new EdgeWrite(null, EdgeResult.Change.ABSENT, null))
            : GroupCommit.Step.write(written -> tombstone(written, target, from, to, stored)));
  }

  // ---- archive and restore ----

  /**
   * Archives an active edge ({@link EdgeRow#ARCHIVED}) or restores an archived one: the row, its
   * sequence and data kept, its write time moved, its list's count and version moved with it, and
   * the inverse told through the outbox like any other write. An edge already in that state is
   * left unchanged; one that is not there, or whose FROM node is gone, is NOT_FOUND.
   */
  Future<EdgeWrite> setState(NodeId from, String typeName, NodeId to, boolean archived) {
    return Futures.attempt(() -> planWrite(from, typeName, to, null))
        .compose(target -> grouped(target, from, to, connection -> lockFromExisting(connection, target, from, to)
            .map(locked -> stateStep(target, from, to, locked, archived))));
  }

  /** What an archive or a restore does to the row as locked. */
  private GroupCommit.Step<EdgeWrite> stateStep(Target target, NodeId from, NodeId to, EdgesTable.LockedFrom locked,
      boolean archived) {
    EdgeRow stored = locked.row();
    if (!locked.fromExists()) {
      return GroupCommit.Step.refuse(noNode(from));
    }
    if (stored == null || !stored.live()) {
      return GroupCommit.Step.refuse(GraphException.notFound("no " + target.type().name() + " edge from " + from
          + " to " + to));
    }
    int wanted = archived ? EdgeRow.ARCHIVED : EdgeRow.ACTIVE;
    if (stored.state() == wanted) {
      return GroupCommit.Step.answer(new EdgeWrite(null, EdgeResult.Change.UNCHANGED, null,
          target.table().edge(from, to, stored)));
    }
    EdgeRow written = stored.inState(wanted, nextWriteTime(stored));
    return GroupCommit.Step.write(connection -> record(connection, target, from, to, stored, written)
        .map(recorded -> new EdgeWrite(recorded.inverse(),
            archived ? EdgeResult.Change.ARCHIVED : EdgeResult.Change.RESTORED, recorded.changed(),
            target.table().edge(from, to, written))));
  }

  /** Removes the edge whose row is {@code stored} (null when there is none: a tombstone is inserted). */
  private Future<EdgeWrite> tombstone(SqlConnection connection, Target target, NodeId from, NodeId to,
      EdgeRow stored) {
    EdgeRow held = EdgeRow.orAbsent(stored);
    return record(connection, target, from, to, stored, held.removedAt(nextWriteTime(held)))
        .map(recorded -> removeWrite(stored, recorded));
  }

  /** A removal's answer: whether the row it replaced ({@code stored}, null where there was none) was an edge. */
  private static EdgeWrite removeWrite(EdgeRow stored, Recorded recorded) {
    EdgeResult.Change change = stored != null && stored.live() ? EdgeResult.Change.REMOVED : EdgeResult.Change.ABSENT;
    return new EdgeWrite(recorded.inverse(), change, recorded.changed());
  }

  /** What {@link #record} wrote: the change to announce, and the inverse's entry (null when none). */
  private record Recorded(GraphChange.EdgeChanged changed, EdgeWrite.PendingInverse inverse) {}

  /**
   * Writes the forward row (with its list's count and version) and the inverse's outbox entry, sent
   * together in the caller's transaction; {@code stored} is the row as locked, null when there is
   * none (and the row is inserted).
   */
  private Future<Recorded> record(SqlConnection connection, Target target, NodeId from, NodeId to,
      EdgeRow stored, EdgeRow written) {
    return withInverse(connection, target, from, to, written, log.writeEdge(connection, target.table(),
        target.route(), from, to, stored, written, ChangeWriter.Copy.FORWARD));
  }

  /** {@link #record} for a row an upsert already wrote: its count, its log entry and the inverse left ({@link InverseEntries}). */
  private Future<Recorded> recordUpserted(SqlConnection connection, Target target, NodeId from, NodeId to,
      EdgesTable.Upserted upserted) {
    return withInverse(connection, target, from, to, upserted.after(), log.upsertedEdge(connection, target.table(),
        target.route(), from, to, upserted, ChangeWriter.Copy.FORWARD));
  }

  /** The forward copy's statements ({@code forward}), and behind them the inverse of {@code written} left ({@link InverseEntries}). */
  private Future<Recorded> withInverse(SqlConnection connection, Target target, NodeId from, NodeId to,
      EdgeRow written, Future<GraphChange.EdgeChanged> forward) {
    InverseOp inverse = target.inverseOf(from, to, written);
    if (inverse == null) {
      return forward.map(changed -> new Recorded(changed, null));
    }
    Future<EdgeWrite.PendingInverse> left = inverseEntries.leave(connection, target.route(), target.type().id(),
        inverse);
    return Future.all(forward, left).map(both -> new Recorded(forward.result(), left.result()));
  }

  private void announce(EdgeWrite written) {
    if (written.changed() != null) {
      changes.announce(written.changed());
    }
  }

  /**
   * What an add did to the copy it wrote, for single adds and bulk imports alike: it created the
   * edge where there was none or where it made an archived one active again (as a new add would);
   * it left it unchanged when sequence, data and state are what they were; else it updated it.
   */
  static EdgeResult.Change addChange(EdgeRow stored, EdgeRow added) {
    if (!stored.live() || (!stored.active() && added.active())) {
      return EdgeResult.Change.CREATED;
    }
    boolean same = stored.sequence() == added.sequence() && stored.state() == added.state()
        && java.util.Objects.equals(stored.data(), added.data());
    return same ? EdgeResult.Change.UNCHANGED : EdgeResult.Change.UPDATED;
  }

  /**
   * What an add makes of a stored copy: a null sequence keeps an active edge's (a new edge gets
   * the write time), null data keeps an active edge's; written in {@code state}, at the next
   * write time. Shared by single adds and bulk imports, so both mean the same.
   */
  EdgeRow added(EdgeRow stored, Long sequence, String data, int state) {
    return new EdgeRow(
        sequence != null ? sequence : stored.active() ? stored.sequence() : nowUs(),
        state,
        data != null ? data : stored.active() ? stored.data() : null,
        nextWriteTime(stored));
  }

  /** A client's write always lands on the copy it writes: later than now, and than what is stored. */
  private long nextWriteTime(EdgeRow stored) {
    return Math.max(nowUs(), stored.updatedUs() + 1);
  }

  private long nowUs() {
    return SqlValues.nowMicros(clock);
  }

  // ---- read ----

  Future<Edge> get(NodeId from, String typeName, NodeId to) {
    return Futures.attempt(() -> planRead(from, typeName, to))
        .compose(target -> {
          readQueries.increment();
          return client.read(target.route(),
                  sql -> target.table().getLive(sql, target.route(), from.value(), to.value()))
              .map(row -> {
                if (row == null) {
                  throw GraphException.notFound("no " + typeName + " edge from " + from + " to " + to);
                }
                return target.table().edge(from, to, row);
              });
        });
  }

  /** The edges in {@code states} from a node to any of {@code tos}, newest first ({@link EdgesTable#liveTo}). */
  Future<List<Edge>> getTo(NodeId from, String typeName, List<NodeId> tos, Set<EdgeState> states) {
    List<NodeId> targets = tos.stream().distinct().toList();
    return Futures.attempt(() -> {
          if (tos.isEmpty() || tos.size() > GraphStore.MAX_EDGE_TARGETS) {
            throw GraphException.invalid("a multi-get names 1 to " + GraphStore.MAX_EDGE_TARGETS + " targets, got "
                + tos.size());
          }
          if (states.isEmpty()) {
            throw GraphException.invalid("a multi-get asks for edges in at least one state");
          }
          return resolve(schemas.current(), from, typeName, targets, reads);
        })
        .compose(target -> {
          readQueries.increment();
          List<Long> values = targets.stream().map(NodeId::value).toList();
          return client.read(target.route(),
                  sql -> target.table().liveTo(sql, target.route(), from.value(), values, states))
              .map(rows -> rows.stream().map(row -> target.table().edge(from, row.to(), row.row())).toList());
        });
  }

  /** The edges of one shard a lookup reads, by table. */
  private record ShardLookup(ShardRoute route, Map<EdgesTable, List<EdgesTable.Key>> byTable) {}

  /**
   * Single edges from any lists, each checked as a getEdge's ends are, and with
   * {@code withVersions} their lists' versions: one statement per shard ({@link EdgesTable#lookupMany}),
   * or, when every ID names one list, one plain statement ({@link EdgesTable#lookupList}). Either
   * also reads each list of {@code readWhole} whole when it has at most {@code wholeUpTo} live edges.
   */
  Future<EdgeLookup> lookup(List<EdgeId> ids, boolean withVersions, Set<EdgeListId> readWhole, int wholeUpTo) {
    return Futures.attempt(() -> planLookup(ids))
        .compose(shards -> withVersions && oneList(shards)
            ? lookupList(shards.get(0), readWhole, wholeUpTo)
            : lookupMany(shards, withVersions, readWhole, wholeUpTo));
  }

  /** Whether the lookup names one list: one shard, one table, one source. */
  private static boolean oneList(List<ShardLookup> shards) {
    if (shards.size() != 1 || shards.get(0).byTable().size() != 1) {
      return false;
    }
    List<EdgesTable.Key> keys = shards.get(0).byTable().values().iterator().next();
    return keys.stream().map(EdgesTable.Key::from).distinct().count() == 1;
  }

  private Future<EdgeLookup> lookupList(ShardLookup shard, Set<EdgeListId> readWhole, int wholeUpTo) {
    Map.Entry<EdgesTable, List<EdgesTable.Key>> only = shard.byTable().entrySet().iterator().next();
    EdgesTable table = only.getKey();
    long from = only.getValue().get(0).from();
    EdgeListId list = new EdgeListId(new NodeId(from), table.type().name());
    List<Long> tos = only.getValue().stream().map(EdgesTable.Key::to).toList();
    readQueries.increment();
    return client.read(shard.route(),
            sql -> table.lookupList(sql, shard.route(), from, tos, readWhole.contains(list) ? wholeUpTo : 0))
        .map(read -> {
          Map<EdgeId, Edge> found = new HashMap<>();
          read.found().forEach(edge -> found.put(edge.id(), edge));
          return new EdgeLookup(found, Map.of(list, read.version()), read.whole() ? Set.of(list) : Set.of());
        });
  }

  private Future<EdgeLookup> lookupMany(List<ShardLookup> shards, boolean withVersions, Set<EdgeListId> readWhole,
      int wholeUpTo) {
    List<Future<EdgesTable.Lookup>> reads = new ArrayList<>();
    for (ShardLookup shard : shards) {
      readQueries.increment();
      reads.add(client.read(shard.route(),
          sql -> EdgesTable.lookupMany(sql, shard.route(), shard.byTable(), withVersions, readWhole, wholeUpTo)));
    }
    return Future.all(reads).map(done -> {
      Map<EdgeId, Edge> found = new HashMap<>();
      Map<EdgeListId, Long> versions = new HashMap<>();
      Set<EdgeListId> whole = new HashSet<>();
      for (Future<EdgesTable.Lookup> read : reads) {
        found.putAll(read.result().found());
        versions.putAll(read.result().versions());
        whole.addAll(read.result().whole());
      }
      return new EdgeLookup(found, versions, whole);
    });
  }

  private List<ShardLookup> planLookup(List<EdgeId> ids) {
    if (ids.isEmpty() || ids.size() > GraphStore.MAX_EDGE_BATCH) {
      throw GraphException.invalid("a batch names 1 to " + GraphStore.MAX_EDGE_BATCH + " edges, got " + ids.size());
    }
    Schema schema = schemas.current();
    Map<Integer, ShardLookup> shards = new LinkedHashMap<>();
    // One table object per type (a table names its shard per statement), so the per-shard maps group by it.
    Map<String, EdgesTable> tables = new HashMap<>();
    for (EdgeId id : ids.stream().distinct().toList()) {
      Target target = resolve(schema, id.from(), id.type(), id.to(), reads);
      EdgesTable table = tables.computeIfAbsent(id.type(), name -> target.table());
      shards.computeIfAbsent(target.route().shard(), shard -> new ShardLookup(target.route(), new LinkedHashMap<>()))
          .byTable().computeIfAbsent(table, t -> new ArrayList<>())
          .add(new EdgesTable.Key(id.from().value(), id.to().value()));
    }
    return List.copyOf(shards.values());
  }

  /** Targets of the active edges from a node in ascending ID order, after {@code after} ({@link EdgesTable#targets}). */
  Future<List<NodeId>> targets(NodeId from, String typeName, NodeId after, int limit) {
    return Futures.attempt(() -> {
          EdgeQuery.requireLimit(limit);
          if (after != null) {
            TypeChecks.issued(schemas.current(), router.shardMap(), after);
          }
          return planRead(from, typeName, null);
        })
        .compose(target -> {
          readQueries.increment();
          return client.read(target.route(), sql -> target.table().targets(sql, target.route(), from.value(),
              after == null ? 0 : after.value(), limit));
        });
  }

  /** One page of the active edges from a node, in the query's order ({@link EdgesTable#page}). */
  Future<EdgePage> list(NodeId from, String typeName, EdgeQuery query) {
    return Futures.attempt(() -> planRead(from, typeName, null))
        .compose(target -> {
          readQueries.increment();
          return client.read(target.route(), sql -> target.table().page(sql, target.route(), from.value(), query))
              .map(rows -> page(target.table(), from, query, rows));
        });
  }

  private static EdgePage page(EdgesTable table, NodeId from, EdgeQuery query, List<EdgesTable.Listed> rows) {
    List<Edge> edges = new ArrayList<>();
    for (EdgesTable.Listed row : rows) {
      if (edges.size() == query.limit()) {
        Edge last = edges.get(edges.size() - 1);
        return new EdgePage(edges, new Cursor(last.sequence(), last.to().value()));
      }
      edges.add(table.edge(from, row.to(), row.row()));
    }
    return new EdgePage(edges, null);
  }

  Future<Long> count(NodeId from, String typeName) {
    return Futures.attempt(() -> planRead(from, typeName, null))
        .compose(target -> {
          readQueries.increment();
          return client.read(target.route(),
              sql -> CountsTable.INSTANCE.read(sql, target.route(), target.type().id(), from.value()));
        });
  }

  /** The inverse type of {@code typeName} under the current schema; null when it has none. */
  String inverseTypeOf(String typeName) {
    return edgeType(typeName).inverse();
  }

  /** The edge type named {@code typeName}; INVALID_ARGUMENT when the schema has none. */
  EdgeType edgeType(String typeName) {
    return TypeChecks.edgeType(schemas.current(), typeName);
  }

  /** The newest edges of a list with its count and version, from one statement ({@link EdgesTable#head}). */
  Future<EdgeListHead> head(NodeId from, String typeName, int limit) {
    return Futures.attempt(() -> planRead(from, typeName, null))
        .compose(target -> {
          readQueries.increment();
          return client.read(target.route(), sql -> target.table().head(sql, target.route(), from.value(), limit))
              .map(head -> {
                List<Edge> edges = new ArrayList<>(head.newest().size());
                head.newest().forEach(row -> edges.add(target.table().edge(from, row.to(), row.row())));
                return new EdgeListHead(edges, head.count(), head.version());
              });
        });
  }

  // ---- planning ----

  /** The resolved, checked target of a write; throws what the write would fail with. */
  Target planWrite(NodeId from, String typeName, NodeId to, ObjectNode data) {
    Schema schema = schemas.current();
    Target target = resolve(schema, from, typeName, to, Access.WRITE);
    if (data != null) {
      TypeChecks.requireValid("edge data", target.type().validate(data, TypeChecks.idTypes(schema, router.shardMap())));
    }
    return target;
  }

  private Target planRead(NodeId from, String typeName, NodeId to) {
    return resolve(schemas.current(), from, typeName, to, reads);
  }

  private Target resolve(Schema schema, NodeId from, String typeName, NodeId to, Access access) {
    return resolve(schema, from, typeName, to == null ? List.of() : List.of(to), access);
  }

  /** Checks both ends against the edge type; an ID of the wrong node type is an invalid argument. */
  private Target resolve(Schema schema, NodeId from, String typeName, List<NodeId> tos, Access access) {
    EdgeType type = TypeChecks.edgeType(schema, typeName);
    NodeType fromType = TypeChecks.issued(schema, router.shardMap(), from);
    requireEnd(type, "from", type.from(), fromType, from);
    for (NodeId to : tos) {
      requireEnd(type, "to", type.to(), TypeChecks.issued(schema, router.shardMap(), to), to);
    }
    return new Target(new EdgesTable(type), fromType, router.route(from.shard(), access),
        schema.inverseOf(type).orElse(null));
  }

  private static void requireEnd(EdgeType type, String end, String expected, NodeType actual, NodeId id) {
    if (!actual.name().equals(expected)) {
      throw GraphException.invalid("edge type '" + type.name() + "' runs from " + type.from() + " to "
          + type.to() + ", but the " + end + " ID " + id + " is a " + actual.name());
    }
  }
}
