package io.quiver.store.internal.outbox;

import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.schema.EdgeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.store.GraphChange;
import io.quiver.store.internal.ChangeWriter;
import io.quiver.store.internal.Changes;
import io.quiver.store.internal.TypeChecks;
import io.quiver.store.internal.sql.Access;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.table.EdgeRow;
import io.quiver.store.internal.table.EdgesTable;
import io.quiver.store.internal.table.NodesTable;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import io.quiver.store.NodeId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The handler of {@link InverseOp}: applies one operation to one copy of an edge, idempotently.
 * The copy changes only if the operation outranks what it holds ({@link EdgeRow}), so applying
 * twice, late or out of order leaves the same result. Used by the drainer, by a request that
 * waits for its inverse, and by repair; a change is announced on the change feed.
 *
 * <h2>Edges to a node that is gone</h2>
 * An add's forward copy commits on its FROM node's shard without knowing whether its TO node
 * still exists (that node lives elsewhere). Its inverse copy would start from that node, so the
 * writer takes the node's row lock first, as a client's write on that shard does. If the node is
 * gone, the edge is removed from both copies: the inverse copy becomes the tombstone
 * {@link #goneTombstone} of the operation, and the forward copy that asked for it becomes the very
 * same tombstone, unless a newer write has replaced it (whose own inverse then decides). Both
 * copies end on one row, so they compare equal whatever they held before — a node deleted
 * without cascade keeps its edges' rows live, and a later write to one of them, from either side,
 * must take both copies along, not only the side whose node still exists.
 *
 * <p>A deletion and an inverse serialize on the node's row: the inverse that committed first is
 * found by the deletion's cascade, one that comes later finds the node gone. So once a cascade
 * has drained, a deleted node has no active edges, in or out — Meta's DELF removes what a
 * deletion leaves behind the same way, asynchronously; TAO leaves dangling edges.
 */
public final class InverseWriter implements OutboxHandler<InverseOp> {
  private final ShardRouter router;
  private final ShardClient client;
  private final SchemaSource schemas;
  private final Changes changes;
  private final ChangeWriter log;

  /** @param log logs every copy this writer writes, in the write's transaction */
  public InverseWriter(ShardRouter router, ShardClient client, SchemaSource schemas, Changes changes, ChangeWriter log) {
    this.router = router;
    this.client = client;
    this.schemas = schemas;
    this.changes = changes;
    this.log = log;
  }

  /** What applying one operation did to the edge. */
  public enum Outcome {
    /** The copy already held the operation, or something newer. */
    HELD,
    /** The copy changed to the operation's version. */
    WRITTEN,
    /** The copy's FROM node is gone: the edge was removed from both copies (the delete rule). */
    REMOVED;

    /** Whether either copy changed. */
    public boolean changed() {
      return this != HELD;
    }
  }

  /** What applying did: the change made (null when the copy already held it), or that the node is gone. */
  private record Applied(GraphChange.EdgeChanged changed, boolean nodeGone) {}

  @Override
  public Future<Outcome> apply(InverseOp op) {
    return Futures.attempt(() -> target(op))
        .compose(target -> client.inTransaction(target.route(), connection -> applyLocked(connection, target, op))
            .compose(applied -> announce(applied.changed())
                .compose(announced -> applied.nodeGone() ? removeForward(target, op).map(Outcome.REMOVED)
                    : Future.succeededFuture(applied.changed() != null ? Outcome.WRITTEN : Outcome.HELD))));
  }

  /**
   * The tombstone that ends an edge whose inverse finds its node gone: the operation's own row,
   * removed one microsecond later, so it outranks the operation on both copies and is the same
   * row on each.
   */
  static EdgeRow goneTombstone(InverseOp op) {
    return op.row().removedAt(op.row().updatedUs() + 1);
  }

  /** What a batch announces of the copies it wrote. */
  public enum Announce {
    /** Every edge written, with its list's version: caches update their windows in place. */
    EDGES,
    /** Each list written once, undescribed: caches drop their windows (a bulk import's many rows). */
    LISTS
  }

  /**
   * Applies many operations in few transactions: one per host of the copies they write, each
   * host's shards and edge types taken in one order, so that two drainers writing to one host lock
   * in the same order. Per copy only the operation that ranks highest counts, and it is written
   * only where it outranks what the copy holds — exactly what applying them one by one, in any
   * order, leaves. Each shard and edge type's FROM nodes are share-locked and its copies read
   * locked in one statement ({@link EdgesTable#readLockedManyFrom}), every group's sent at once;
   * then every group's rows, counts and log rows. An operation whose node is gone is then applied
   * alone ({@link #apply}), which removes its forward copy. Idempotent, as {@link #apply} is.
   *
   * <p>One transaction per host, not per shard and type (issue 37): a drainer's pass over a busy
   * host carries some tens of inverses to each of the fleet's shards, and a transaction per shard
   * and type paid its BEGIN, COMMIT and log flush for two or three of them.
   */
  public Future<Void> applyAll(List<InverseOp> ops, Announce announce) {
    return Futures.attempt(() -> byHost(ops, null)).compose(hosts -> {
      List<Future<Void>> applied = new ArrayList<>(hosts.size());
      hosts.forEach(groups -> applied.add(applyOnHost(groups, announce)));
      return Future.all(applied).mapEmpty();
    });
  }

  /**
   * {@link #applyAll} for a writer that keeps what could not be written (the tailer): each host's
   * transaction stands alone, and the answer is the operations of the hosts that failed — or that
   * cannot be written to now (read-only, offline, a type the schema lacks) — empty when every one
   * was written. Never fails.
   */
  Future<List<InverseOp>> applyAllLeaving(List<InverseOp> ops, Announce announce) {
    List<InverseOp> left = new ArrayList<>();
    List<List<Group>> hosts = byHost(ops, left);
    List<Future<List<InverseOp>>> applied = new ArrayList<>(hosts.size());
    for (List<Group> groups : hosts) {
      List<InverseOp> onHost = groups.stream().flatMap(group -> group.best().stream()).toList();
      applied.add(applyOnHost(groups, announce).map(List.<InverseOp>of()).otherwise(onHost));
    }
    return Future.all(applied).map(all -> {
      applied.forEach(host -> left.addAll(host.result()));
      return left;
    });
  }

  /** The drainer's batch: every edge announced, so caches update their windows in place. */
  @Override
  public Future<?> applyAll(List<InverseOp> ops) {
    return applyAll(ops, Announce.EDGES);
  }

  /** One shard's copies of one edge type: per copy, the operation that ranks highest. */
  private record Group(Target target, List<InverseOp> best) {
    List<EdgesTable.Key> keys() {
      return best.stream().map(InverseWriter::key).toList();
    }

    /** Live copies need their FROM node; every operation of a group is of one edge type, so of one node type. */
    List<NodeId> liveFroms() {
      return best.stream().filter(op -> op.row().live()).map(InverseOp::from).distinct().toList();
    }
  }

  /**
   * {@code ops} as groups, host by host, each host's in order of shard and edge type. A group that
   * cannot be routed now (its shard read-only or offline, its type not in the schema) fails the
   * call, or, given {@code unroutable}, goes there instead.
   */
  private List<List<Group>> byHost(List<InverseOp> ops, List<InverseOp> unroutable) {
    Map<Long, Map<EdgesTable.Key, InverseOp>> bestByGroup = new TreeMap<>();
    for (InverseOp op : ops) {
      bestByGroup.computeIfAbsent(((long) op.from().shard() << 32) | op.edgeTypeId(), group -> new LinkedHashMap<>())
          .merge(key(op), op, (held, next) -> next.row().outranks(held.row()) ? next : held);
    }
    Map<String, List<Group>> hosts = new LinkedHashMap<>();
    for (Map<EdgesTable.Key, InverseOp> best : bestByGroup.values()) {
      Target target;
      try {
        target = target(best.values().iterator().next());
      } catch (GraphException notNow) {
        if (unroutable == null) {
          throw notNow;
        }
        unroutable.addAll(best.values());
        continue;
      }
      hosts.computeIfAbsent(target.route().host(), host -> new ArrayList<>())
          .add(new Group(target, List.copyOf(best.values())));
    }
    return List.copyOf(hosts.values());
  }

  /** One host's groups in one transaction, then their changes announced and their orphans applied. */
  private Future<Void> applyOnHost(List<Group> groups, Announce announce) {
    List<ShardRoute> routes = groups.stream().map(group -> group.target().route()).distinct().toList();
    return client.inTransaction(routes, connection -> {
          List<Future<Locked>> locking = new ArrayList<>(groups.size());
          groups.forEach(group -> locking.add(lock(connection, group)));
          return Future.all(locking).compose(locked -> {
            List<Future<GroupOutcome>> writing = new ArrayList<>(groups.size());
            locking.forEach(group -> writing.add(write(connection, group.result())));
            return Future.all(writing).map(written -> writing.stream().map(Future::result).toList());
          });
        })
        .compose(outcomes -> {
          Future<Void> chain = Future.succeededFuture();
          for (GroupOutcome outcome : outcomes) {
            announceAll(outcome.changed(), announce);
            // Rare: an inverse whose node is gone. Applied alone, which removes the forward copy.
            for (InverseOp orphan : outcome.orphans()) {
              chain = chain.compose(done -> apply(orphan).mapEmpty());
            }
          }
          return chain;
        });
  }

  /** A group and what it locked: its live copies' FROM nodes that exist, share-locked, and what its copies hold. */
  private record Locked(Group group, EdgesTable.LockedMany read) {}

  /** Sends the group's locking read: one statement, sent without waiting for another group's. */
  private static Future<Locked> lock(SqlConnection connection, Group group) {
    Target target = group.target();
    return target.table().readLockedManyFrom(connection, target.route(), target.fromNodes(), group.liveFroms(),
            group.keys())
        .map(locked -> new Locked(group, locked));
  }

  /** Writes what outranks the locked copies, and logs it; a live copy whose node is gone is left an orphan. */
  private Future<GroupOutcome> write(SqlConnection connection, Locked locked) {
    Target target = locked.group().target();
    List<InverseOp> orphans = new ArrayList<>();
    List<EdgesTable.Rewrite> rewrites = new ArrayList<>();
    for (InverseOp op : locked.group().best()) {
      if (op.row().live() && !locked.read().fromsPresent().contains(op.from())) {
        orphans.add(op);
        continue;
      }
      EdgeRow before = locked.read().rows().get(key(op));
      if (op.row().outranks(EdgeRow.orAbsent(before))) {
        rewrites.add(new EdgesTable.Rewrite(key(op), before, op.row()));
      }
    }
    return target.table().writeMany(connection, target.route(), rewrites)
        .compose(changed -> log.logInverses(connection, target.route(), changed, rewrites)
            .map(new GroupOutcome(orphans, changed)));
  }

  private record GroupOutcome(List<InverseOp> orphans, List<GraphChange.EdgeChanged> changed) {}

  /** Announces a batch's changes, each edge or each list once. */
  public void announceAll(List<GraphChange.EdgeChanged> changed, Announce announce) {
    if (announce == Announce.EDGES) {
      changed.forEach(changes::announce);
    } else {
      changed.stream().map(edge -> new GraphChange.EdgeListChanged(edge.from(), edge.edgeType())).distinct()
          .forEach(changes::announce);
    }
  }

  private static EdgesTable.Key key(InverseOp op) {
    return new EdgesTable.Key(op.from().value(), op.to().value());
  }

  private Future<Applied> applyLocked(SqlConnection connection, Target target, InverseOp op) {
    // Only a live copy (active or archived) needs its FROM node: one statement reads both.
    Future<EdgesTable.LockedFrom> locking = op.row().live()
        ? target.table().readLockedFrom(connection, target.route(), target.fromNodes(), op.from(), op.to().value())
        : target.table().readLocked(connection, target.route(), op.from().value(), op.to().value())
            .map(row -> new EdgesTable.LockedFrom(true, row));
    return locking.compose(locked -> {
      boolean nodeGone = !locked.fromExists();
      EdgeRow wanted = nodeGone ? goneTombstone(op) : op.row();
      return wanted.outranks(EdgeRow.orAbsent(locked.row()))
          ? log.writeEdge(connection, target.table(), target.route(), op.from(), op.to(), locked.row(), wanted,
                  ChangeWriter.Copy.INVERSE)
              .map(changed -> new Applied(changed, nodeGone))
          : Future.succeededFuture(new Applied(null, nodeGone));
    });
  }

  /**
   * The inverse's node is gone: the forward copy that asked for it (from {@code op.to()} to
   * {@code op.from()}) becomes the tombstone the inverse copy now holds, unless a newer write has
   * replaced it (whose own inverse will decide).
   */
  private Future<Void> removeForward(Target target, InverseOp op) {
    EdgesTable forward = target.forward();
    ShardRoute route = router.route(op.to().shard(), Access.WRITE);
    EdgeRow removed = goneTombstone(op);
    return client.inTransaction(route, connection -> forward.readLocked(connection, route, op.to().value(),
                op.from().value())
            .compose(stored -> tombstoneForward(connection, forward, route, op, stored, removed)))
        .compose(this::announce);
  }

  /** Writes {@code removed} over the forward copy as locked ({@code stored}, null when absent), unless it is newer. */
  private Future<GraphChange.EdgeChanged> tombstoneForward(SqlConnection connection, EdgesTable forward,
      ShardRoute route, InverseOp op, EdgeRow stored, EdgeRow removed) {
    EdgeRow held = EdgeRow.orAbsent(stored);
    if (held.outranks(op.row()) || !removed.outranks(held)) {
      return Future.succeededFuture(null);
    }
    return log.writeEdge(connection, forward, route, op.to(), op.from(), stored, removed, ChangeWriter.Copy.FORWARD);
  }

  private Future<Void> announce(GraphChange.EdgeChanged changed) {
    if (changed != null) {
      changes.announce(changed);
    }
    return Future.succeededFuture();
  }

  /**
   * Tells the caches that neither copy of {@code op}'s pair is what they may hold: a repair fixes
   * damage that was made without an announcement (a change committed while its caller was told it
   * failed, or made behind Quiver's back), so whatever is held of either copy's list is dropped —
   * not only the list of the copy the fix writes.
   */
  public void announceDamaged(InverseOp op) {
    Target target = target(op);
    changes.announce(new GraphChange.EdgeListChanged(op.from(), target.table().type().name()));
    changes.announce(new GraphChange.EdgeListChanged(op.to(), target.forward().type().name()));
  }

  /** The copy's table and route, the FROM node's table, and the forward copy's table. */
  private record Target(EdgesTable table, ShardRoute route, NodesTable fromNodes, EdgesTable forward) {}

  private Target target(InverseOp op) {
    Schema schema = schemas.current();
    EdgeType type = schema.edgeType(op.edgeTypeId())
        .orElseThrow(() -> GraphException.of(GraphException.Code.INTERNAL,
            "edge type id " + op.edgeTypeId() + " is not in the schema"));
    EdgeType forward = schema.inverseOf(type).orElse(type);
    return new Target(new EdgesTable(type), router.route(op.from().shard(), Access.WRITE),
        new NodesTable(TypeChecks.issued(schema, router.shardMap(), op.from())), new EdgesTable(forward));
  }
}
