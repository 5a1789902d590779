package io.quiver.store.internal;

import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.store.BulkImport;
import io.quiver.store.BulkLine;
import io.quiver.store.BulkReport;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphChange;
import io.quiver.store.Node;
import io.quiver.store.NodeId;
import io.quiver.store.internal.outbox.InverseOp;
import io.quiver.store.internal.outbox.InverseWriter;
import io.quiver.store.internal.sql.Access;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.EdgeRow;
import io.quiver.store.internal.table.EdgesTable;
import io.quiver.store.internal.table.ImportRefsTable;
import io.quiver.store.internal.table.NodesTable;
import io.quiver.store.internal.table.OutboxTable;
import io.vertx.core.Future;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of a bulk import: each batch of lines written as few transactions as its shards allow,
 * each holding many rows per statement. The single-write path's rules hold unchanged — what an
 * add makes of a stored copy ({@link EdgeStore#added}), a count moved in the transaction that
 * moves its rows, the inverse's outbox entry committed with the forward copy, a copy changed only
 * by an operation that outranks it ({@link EdgeRow}) — only the statements carry many rows.
 *
 * <h2>A batch, step by step</h2>
 * <ol>
 *   <li><b>references</b>: those the batch names that this run has not seen are looked up on every
 *       shard ({@link ImportRefsTable}), so a rerun finds what an earlier run created;
 *   <li><b>nodes</b>: per shard, one transaction inserting the nodes and recording their
 *       references;
 *   <li><b>edges</b>: per shard and edge type, one transaction: the FROM nodes share-locked, the
 *       rows locked and read ({@link EdgesTable#readLockedManyFrom}), rewritten with their lists' counts
 *       ({@link EdgesTable#writeMany}), and the inverses' outbox entries appended, due only after
 *       {@link #HANDOVER};
 *   <li><b>inverses</b>: per host, one transaction of the same batch write per shard and inverse type
 *       ({@link InverseWriter#applyAll}), applying each
 *       operation only where it outranks the copy (an inverse whose FROM node is gone goes
 *       through the {@link InverseWriter} one by one, which removes the forward copy); then the
 *       batch's outbox entries are deleted.
 * </ol>
 * If the inverse step fails (a host stops answering), its entries stay in the outbox and the
 * drainer applies them once they fall due: never lost, only later — Meta's bulk loaders into TAO
 * lean on the same asynchronous inverse path.
 *
 * <p>The lookups and the node and edge transactions are run again while they fail having written
 * nothing ({@link ShardClient.Retry#UNWRITTEN}: no connection lent within the pool's wait, a
 * deadline passed before COMMIT), so a moment's overload of a busy host does not end an import
 * that no caller waits on with a deadline; the figures stay exact, as nothing was written. A
 * failure that may have written (COMMIT sent) ends the import: its rerun under the same name
 * finishes it. A node holding unique values is not retried so: its claims live outside its
 * transaction.
 *
 * <p>Batches of one run must be written one after another; the HTTP route does.
 */
final class BulkWriter implements BulkImport {
  private static final Logger log = LoggerFactory.getLogger(BulkWriter.class);
  /** When the drainer takes over inverse entries a batch has not applied and retired itself. */
  static final Duration HANDOVER = Duration.ofSeconds(30);
  /** An import's name: what its references are recorded under. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}");
  /** References looked up per statement. */
  private static final int LOOKUP_CHUNK = 1024;

  private final String name;
  private final ShardRouter router;
  private final ShardClient client;
  private final SchemaSource schemas;
  private final NodeStore nodes;
  private final EdgeStore edges;
  private final InverseWriter inverseWriter;
  /** This run's hold on its name. */
  private final ImportClaims.Claim claim;
  private final Changes changes;
  private final Clock clock;
  /**
   * Every reference this run knows: created by it, or found from an earlier run. Concurrent:
   * a batch's shards complete on whichever event loops their connections run on.
   */
  private final Map<String, NodeId> refs = new ConcurrentHashMap<>();
  private final ChangeWriter changeLog;
  /** Where the batch's forward copies leave their inverses (retired here once this import writes them). */
  private final InverseEntries inverseEntries;
  /** The line that defined each reference in this run. */
  private final Map<String, Long> definedAt = new HashMap<>();

  BulkWriter(String name, ImportClaims.Claim claim, ShardRouter router, ShardClient client, SchemaSource schemas,
      NodeStore nodes, EdgeStore edges, InverseWriter inverseWriter, Changes changes, ChangeWriter changeLog,
      InverseEntries inverseEntries, Clock clock) {
    this.name = requireName(name);
    this.changeLog = changeLog;
    this.inverseEntries = inverseEntries;
    this.claim = claim;
    this.router = router;
    this.client = client;
    this.schemas = schemas;
    this.nodes = nodes;
    this.edges = edges;
    this.inverseWriter = inverseWriter;
    this.changes = changes;
    this.clock = clock;
  }

  /** The name, if it is one an import may have. */
  static String requireName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw GraphException.invalid("an import's name is 1 to 64 of letters, digits and _ . : -, starting with a letter"
          + " or a digit, got '" + name + "'");
    }
    return name;
  }

  @Override
  public Future<Void> close() {
    return claim.release();
  }

  @Override
  public Future<BulkReport> write(List<BulkLine> lines) {
    return Futures.attempt(() -> {
          if (lines.size() > MAX_BATCH) {
            throw GraphException.invalid("a batch holds at most " + MAX_BATCH + " lines, got " + lines.size());
          }
          return new Batch(lines);
        })
        .compose(batch -> claim.stillHeld().map(batch))
        .compose(batch -> lookUpRefs(batch)
            .compose(looked -> createNodes(batch))
            .compose(created -> addEdges(batch))
            .compose(pending -> applyInverses(batch, pending))
            .map(applied -> batch.report()));
  }

  /** What one batch has done so far. */
  private static final class Batch {
    final List<BulkLine> lines;
    long nodesCreated;
    long nodesExisting;
    long edgesCreated;
    long edgesUpdated;
    long edgesUnchanged;
    long inversesLeft;
    final List<BulkReport.Refused> refused = new ArrayList<>();
    /** The node of each node line written or found, by reference. */
    final Map<String, NodeId> nodes = new LinkedHashMap<>();

    Batch(List<BulkLine> lines) {
      this.lines = lines;
    }

    /** Nodes created, by reference: counted, and their IDs kept for the answer. */
    void created(Map<String, NodeId> byRef) {
      nodesCreated += byRef.size();
      nodes.putAll(byRef);
    }

    void refuse(BulkLine line, GraphException why) {
      refused.add(new BulkReport.Refused(line.line(), why.code(), why.getMessage()));
    }

    BulkReport report() {
      return new BulkReport(lines.size(), nodesCreated, nodesExisting, edgesCreated, edgesUpdated, edgesUnchanged,
          inversesLeft, refused, nodes);
    }
  }

  // ---- references ----

  private Future<Void> lookUpRefs(Batch batch) {
    List<String> unknown = batch.lines.stream()
        .flatMap(line -> line.refs().stream())
        .filter(ref -> !refs.containsKey(ref))
        .distinct()
        .toList();
    if (unknown.isEmpty()) {
      return Future.succeededFuture();
    }
    List<Future<Map<String, NodeId>>> lookups = new ArrayList<>();
    for (int shard : router.shardMap().allShards()) {
      ShardRoute route = router.route(shard, Access.READ);
      for (int start = 0; start < unknown.size(); start += LOOKUP_CHUNK) {
        List<String> chunk = unknown.subList(start, Math.min(unknown.size(), start + LOOKUP_CHUNK));
        lookups.add(client.read(route, ShardClient.Retry.UNWRITTEN,
            sql -> ImportRefsTable.INSTANCE.find(sql, route, name, chunk)));
      }
    }
    return Future.all(lookups).map(all -> {
      lookups.forEach(lookup -> refs.putAll(lookup.result()));
      return null;
    });
  }

  /**
   * The node an endpoint on line {@code line} names: its ID, or the node this import created under
   * its reference on an earlier line (or in an earlier run). A ref defined on a later line is
   * NOT_FOUND however the lines fall into batches, so an import means the same at any batch size.
   */
  private NodeId resolve(BulkLine.Endpoint endpoint, long line) {
    if (endpoint.id() != null) {
      return endpoint.id();
    }
    Long defined = definedAt.get(endpoint.ref());
    NodeId id = refs.get(endpoint.ref());
    if (id == null || defined != null && defined > line) {
      throw GraphException.notFound("no node has ref '" + endpoint.ref() + "' in import '" + name
          + "' (a ref is defined by a node line before the lines that use it)");
    }
    return id;
  }

  /** Whether a node line's {@code colocateWith} names a ref of an earlier line whose node is still being created. */
  private boolean waitsForItsColocation(BulkLine.NodeLine node) {
    BulkLine.Endpoint colocateWith = node.colocateWith();
    if (colocateWith == null || colocateWith.ref() == null || refs.containsKey(colocateWith.ref())) {
      return false;
    }
    Long defined = definedAt.get(colocateWith.ref());
    return defined != null && defined < node.line();
  }

  // ---- nodes ----

  private record Planned(BulkLine.NodeLine line, NodeStore.Creation creation) {}

  private Future<Void> createNodes(Batch batch) {
    return nodes.underSchema(schema -> createNodes(schema, batch));
  }

  /**
   * Creates the batch's nodes, one transaction per shard, in waves: a node placed with a node of
   * an earlier line of the same batch ({@code colocateWith} naming its ref) waits for the wave
   * that creates that node.
   */
  private Future<Void> createNodes(Schema schema, Batch batch) {
    return createNodes(schema, batch, batch.lines);
  }

  private Future<Void> createNodes(Schema schema, Batch batch, List<BulkLine> lines) {
    Map<Integer, List<Planned>> byShard = new LinkedHashMap<>();
    List<Planned> claiming = new ArrayList<>();
    List<BulkLine> waiting = new ArrayList<>();
    for (BulkLine line : lines) {
      if (!(line instanceof BulkLine.NodeLine node)) {
        continue;
      }
      Long earlier = definedAt.putIfAbsent(node.ref(), node.line());
      if (earlier != null && earlier != node.line()) {
        batch.refuse(line, GraphException.invalid("ref '" + node.ref() + "' is already defined, on line " + earlier));
        continue;
      }
      if (waitsForItsColocation(node)) {
        waiting.add(node);
        continue;
      }
      NodeId existing = refs.get(node.ref());
      if (existing != null) {
        batch.nodesExisting++;
        batch.nodes.put(node.ref(), existing);
        continue;
      }
      try {
        NodeId colocateWith = node.colocateWith() == null ? null : resolve(node.colocateWith(), node.line());
        NodeStore.Creation creation = nodes.planCreation(schema, node.type(), node.data(), colocateWith);
        Planned plan = new Planned(node, creation);
        if (UniqueClaims.change(creation.table().type(), null, creation.data()).isEmpty()) {
          byShard.computeIfAbsent(creation.route().shard(), shard -> new ArrayList<>()).add(plan);
        } else {
          claiming.add(plan);
        }
      } catch (GraphException refused) {
        definedAt.remove(node.ref());
        batch.refuse(line, refused);
      }
    }
    List<Future<Map<String, NodeId>>> shards = byShard.values().stream()
        .map(shard -> insertNodes(shard, ShardClient.Retry.UNWRITTEN))
        .toList();
    return Future.all(shards)
        .compose(written -> claimingOneByOne(batch, claiming))
        .compose(claimed -> {
          shards.forEach(shard -> batch.created(shard.result()));
          batch.created(claimed);
          return waiting.isEmpty() ? Future.succeededFuture() : createNodes(schema, batch, waiting);
        });
  }

  /** What a shard's node transaction created: the nodes, and each one's reference. */
  private record Created(List<Node> nodes, Map<String, NodeId> byRef) {}

  /**
   * A batch's nodes that hold unique values, once its other nodes are written: each claims its
   * values in a transaction of its own, so one held value refuses its line only, and one after
   * another. A claim holds its node's connection while it takes another on the value's shard, so
   * thousands at once overflowed the pools' wait queues, and a few per shard beside the batch's
   * transactions could take every connection of a host and wait for one more: either failed the
   * whole import as "unavailable", the nodes without a value with it.
   */
  private Future<Map<String, NodeId>> claimingOneByOne(Batch batch, List<Planned> planned) {
    Map<String, NodeId> created = new LinkedHashMap<>();
    Future<Void> chain = Future.succeededFuture();
    for (Planned plan : planned) {
      chain = chain.compose(previous -> insertNodes(List.of(plan), ShardClient.Retry.ABORTED)
          .recover(failure -> {
            if (failure instanceof GraphException held && held.code() == GraphException.Code.UNIQUE_VIOLATION) {
              definedAt.remove(plan.line().ref());
              batch.refuse(plan.line(), held);
              return Future.succeededFuture(Map.of());
            }
            return Future.failedFuture(failure);
          })
          .map(one -> {
            created.putAll(one);
            return null;
          }));
    }
    return chain.map(created);
  }

  /**
   * One shard's nodes and their references, in one transaction retried as {@code retry} says;
   * answers the nodes created, by reference.
   */
  private Future<Map<String, NodeId>> insertNodes(List<Planned> planned, ShardClient.Retry retry) {
    ShardRoute route = planned.get(0).creation().route();
    return client.inTransaction(route, retry, connection -> {
          List<Future<Long>> inserted = planned.stream()
              .map(plan -> plan.creation().table().insert(connection, route, plan.creation().data(), plan.creation().now())
                  .compose(NodeStore::requireLocalIdInRange)
                  .compose(local -> nodes.claimCreated(plan.creation(), local))
                  .compose(local -> nodes.logCreated(connection, plan.creation(), local)))
              .toList();
          return Future.all(inserted).compose(all -> {
            Created created = new Created(new ArrayList<>(planned.size()), new LinkedHashMap<>());
            for (int i = 0; i < planned.size(); i++) {
              Node node = planned.get(i).creation().node(inserted.get(i).result());
              created.nodes().add(node);
              created.byRef().put(planned.get(i).line().ref(), node.id());
            }
            return ImportRefsTable.INSTANCE.insert(connection, route, name, created.byRef()).map(created);
          });
        })
        .map(created -> {
          created.nodes().forEach(nodes::announce);
          refs.putAll(created.byRef());
          return created.byRef();
        });
  }


  // ---- edges ----

  /** An edge line resolved and checked: its ends, its target table and route, and its stored data. */
  private record EdgePlan(BulkLine.EdgeLine line, NodeId from, NodeId to, EdgeStore.Target target, String data) {
    EdgesTable.Key key() {
      return new EdgesTable.Key(from.value(), to.value());
    }
  }

  /** Inverse operations that a committed forward batch left in one shard's outbox. */
  private record Pending(ShardRoute route, List<InverseOp> ops, List<Long> entryIds) {}

  /**
   * What one forward transaction did. Transactions of a batch run in parallel and may complete on
   * different event loops, so each answers its own figures and the batch adds them up once all are in.
   */
  private record Forward(Pending pending, List<EdgesTable.Rewrite> rewrites, List<EdgePlan> missingFrom) {}

  private Future<List<Pending>> addEdges(Batch batch) {
    Map<String, List<EdgePlan>> groups = new LinkedHashMap<>();
    for (BulkLine line : batch.lines) {
      if (!(line instanceof BulkLine.EdgeLine edge)) {
        continue;
      }
      try {
        NodeId from = resolve(edge.from(), edge.line());
        NodeId to = resolve(edge.to(), edge.line());
        EdgeStore.Target target = edges.planWrite(from, edge.type(), to, edge.data());
        EdgePlan plan = new EdgePlan(edge, from, to, target, edge.data() == null ? null : SqlValues.toJson(edge.data()));
        groups.computeIfAbsent(target.route().shard() + "/" + edge.type(), group -> new ArrayList<>()).add(plan);
      } catch (GraphException refused) {
        batch.refuse(line, refused);
      }
    }
    // Groups in parallel; within one, a key twice in a statement would be read once and written
    // twice, so a repeated key waits for the next round, and rounds go one after another.
    List<Future<List<Forward>>> written = groups.values().stream().map(group -> {
      Future<List<Forward>> chain = Future.succeededFuture(new ArrayList<>());
      for (List<EdgePlan> round : rounds(group, EdgePlan::key)) {
        chain = chain.compose(done -> writeForward(round).map(forward -> {
          done.add(forward);
          return done;
        }));
      }
      return chain;
    }).toList();
    return Future.all(written).map(all -> {
      List<Pending> pending = new ArrayList<>();
      written.forEach(group -> group.result().forEach(forward -> {
        tally(batch, forward);
        if (forward.pending() != null) {
          pending.add(forward.pending());
        }
      }));
      return pending;
    });
  }

  /** One shard's edges of one type, with their counts and inverse entries, in one transaction. */
  private Future<Forward> writeForward(List<EdgePlan> plans) {
    EdgeStore.Target target = plans.get(0).target();
    ShardRoute route = target.route();
    record Outcome(List<EdgePlan> missingFrom, List<EdgesTable.Rewrite> rewrites, List<InverseOp> inverses,
        List<Long> entryIds, List<GraphChange.EdgeChanged> changed) {}
    long nowUs = SqlValues.nowMicros(clock);
    // The FROM nodes and every plan's row in one statement: a plan whose node is gone locks its row for nothing.
    return client.inTransaction(route, ShardClient.Retry.UNWRITTEN, connection -> target.table()
            .readLockedManyFrom(connection, route, new NodesTable(target.fromType()),
                plans.stream().map(EdgePlan::from).distinct().toList(), plans.stream().map(EdgePlan::key).toList())
            .compose(locked -> {
              Set<NodeId> existing = locked.fromsPresent();
              List<EdgePlan> missing = plans.stream().filter(plan -> !existing.contains(plan.from())).toList();
              List<EdgePlan> writable = plans.stream().filter(plan -> existing.contains(plan.from())).toList();
              if (writable.isEmpty()) {
                return Future.succeededFuture(new Outcome(missing, List.of(), List.of(), List.of(), List.of()));
              }
              Map<EdgesTable.Key, EdgeRow> stored = locked.rows();
              List<EdgesTable.Rewrite> rewrites = new ArrayList<>(writable.size());
              List<InverseOp> inverses = new ArrayList<>();
              for (EdgePlan plan : writable) {
                EdgeRow before = stored.get(plan.key());
                int state = plan.line().state() == EdgeState.ARCHIVED ? EdgeRow.ARCHIVED : EdgeRow.ACTIVE;
                EdgeRow after = edges.added(EdgeRow.orAbsent(before), plan.line().sequence(),
                    plan.data(), state);
                rewrites.add(new EdgesTable.Rewrite(plan.key(), before, after));
                InverseOp inverse = target.inverseOf(plan.from(), plan.to(), after);
                if (inverse != null) {
                  inverses.add(inverse);
                }
              }
              Future<List<GraphChange.EdgeChanged>> changed = target.table().writeMany(connection, route, rewrites)
                  .compose(written -> changeLog.log(connection, route,
                      changeLog.edges(written, rewrites, ChangeWriter.Copy.FORWARD)).map(written));
              Future<List<Long>> entries = inverseEntries.leaveAll(connection, route, inverses, nowUs,
                  nowUs + HANDOVER.toNanos() / 1000);
              return Future.all(changed, entries).map(both ->
                  new Outcome(missing, rewrites, inverses, entries.result(), changed.result()));
            }))
        .map(outcome -> {
          inverseWriter.announceAll(outcome.changed(), InverseWriter.Announce.LISTS);
          Pending pending = outcome.inverses().isEmpty() ? null
              : new Pending(route, outcome.inverses(), outcome.entryIds());
          return new Forward(pending, outcome.rewrites(), outcome.missingFrom());
        });
  }

  private static void tally(Batch batch, Forward forward) {
    for (EdgePlan plan : forward.missingFrom()) {
      batch.refuse(plan.line(), GraphException.notFound("no node " + plan.from()));
    }
    for (EdgesTable.Rewrite rewrite : forward.rewrites()) {
      switch (EdgeStore.addChange(rewrite.held(), rewrite.after())) {
        case CREATED -> batch.edgesCreated++;
        case UNCHANGED -> batch.edgesUnchanged++;
        default -> batch.edgesUpdated++;
      }
    }
  }

  // ---- inverses ----

  private Future<Void> applyInverses(Batch batch, List<Pending> pending) {
    List<InverseOp> ops = new ArrayList<>();
    pending.forEach(forward -> ops.addAll(forward.ops()));
    return inverseWriter.applyAll(ops, InverseWriter.Announce.LISTS)
        .compose(all -> Future.all(pending.stream()
            .map(forward -> client.write(forward.route(),
                sql -> OutboxTable.INSTANCE.deleteAll(sql, forward.route(), forward.entryIds())))
            .toList()))
        .<Void>mapEmpty()
        .recover(failure -> {
          // Committed forward copies keep their entries, or their rows in the binary log: the drainer or the
          // tailer applies them.
          log.warn("bulk import '{}': inverses left to the drainer: {}", name, failure.getMessage());
          batch.inversesLeft += pending.stream().mapToLong(forward -> forward.ops().size()).sum();
          return Future.succeededFuture();
        });
  }

  /** Splits a group so that no round holds a key twice; a repeated key goes to the next round, in line order. */
  private static <T, K> List<List<T>> rounds(List<T> items, Function<T, K> key) {
    List<List<T>> rounds = new ArrayList<>();
    List<Set<K>> keys = new ArrayList<>();
    for (T item : items) {
      K k = key.apply(item);
      int round = 0;
      while (round < rounds.size() && keys.get(round).contains(k)) {
        round++;
      }
      if (round == rounds.size()) {
        rounds.add(new ArrayList<>());
        keys.add(new HashSet<>());
      }
      rounds.get(round).add(item);
      keys.get(round).add(k);
    }
    return rounds;
  }
}
