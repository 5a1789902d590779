package io.quiver.store.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.store.AtomicRead;
import io.quiver.store.Edge;
import io.quiver.store.EdgeBatch;
import io.quiver.store.EdgeCondition;
import io.quiver.store.EdgeId;
import io.quiver.store.EdgeListId;
import io.quiver.store.EdgeLookup;
import io.quiver.store.EdgeListHead;
import io.quiver.store.EdgePage;
import io.quiver.store.EdgeQuery;
import io.quiver.store.EdgeResult;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphStore;
import io.quiver.store.InverseWait;
import io.quiver.store.Node;
import io.quiver.store.NodeBatch;
import io.quiver.store.NodeCondition;
import io.quiver.store.NodeId;
import io.quiver.store.ReadToken;
import io.quiver.store.internal.outbox.CascadeOp;
import io.quiver.store.internal.outbox.OutboxOp;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.OutboxTable;
import io.vertx.core.Future;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntConsumer;

/**
 * The graph operations over one set of pools: nodes ({@link NodeStore}) and edges
 * ({@link EdgeStore}). A backend has two — one on the request pools, whose inverse writes a
 * waiting request applies at once ({@link InverseNow}), and one on the background pools for
 * cascades — so background work never takes a request's connection.
 */
final class DefaultGraphStore implements GraphStore {
  private final NodeStore nodes;
  private final EdgeStore edges;
  private final InverseNow inverses;
  private final TokenSettler settler;
  private final IntConsumer outboxWritten;
  private final Clock clock;
  /** This store with stale-tolerant reads; itself when it is that view. */
  private final DefaultGraphStore staleTolerant;
  /** This store with every read on the primaries; itself when it is that view. */
  private final DefaultGraphStore primary;

  /**
   * @param inverses applies an inverse for a request that waits for it; null where none waits
   * @param settler settles the read tokens reads carry; null where none does
   * @param outboxWritten told the shard of every outbox entry a write committed and left pending,
   *     so the drainer need not wait for its next poll
   */
  DefaultGraphStore(NodeStore nodes, EdgeStore edges, InverseNow inverses, TokenSettler settler,
      IntConsumer outboxWritten, Clock clock) {
    this.nodes = nodes;
    this.edges = edges;
    this.inverses = inverses;
    this.settler = settler;
    this.outboxWritten = outboxWritten;
    this.clock = clock;
    this.primary = this;
    this.staleTolerant = new DefaultGraphStore(this);
  }

  /** The stale-tolerant view of {@code primaryReads}: its stores' reads may go to replicas. */
  private DefaultGraphStore(DefaultGraphStore primaryReads) {
    this.nodes = primaryReads.nodes.staleTolerant();
    this.edges = primaryReads.edges.staleTolerant();
    this.inverses = primaryReads.inverses;
    this.settler = primaryReads.settler;
    this.outboxWritten = primaryReads.outboxWritten;
    this.clock = primaryReads.clock;
    this.primary = primaryReads;
    this.staleTolerant = this;
  }

  /**
   * RAMP-TAO's read: one round reads every item — each list's edges, count and version together
   * ({@code EdgeStore#head}), so a list never disagrees with its count — then compares the two
   * copies of every edge the answer shows both sides of: a board's list and a pin's list of the
   * inverse type must show the pair alike (present on both or neither, with one sequence and
   * write stamp), as far as their windows reach. A pair that disagrees is a write caught half-done — its
   * inverse still in the outbox or the binary log, or applied between the two lists' reads — and
   * costs a second round: the pair's two copies are brought together now, each made to hold at
   * least what the other holds (as {@code waitForInverse} writes an inverse), and everything is
   * read again. An answer with no disagreeing pair holds every write whole.
   */
  @Override
  public Future<AtomicRead> readAtomically(List<NodeId> nodeIds, List<AtomicRead.ListRead> lists) {
    if (nodeIds.size() + lists.size() > AtomicRead.MAX_ITEMS) {
      return Future.failedFuture(GraphException.invalid("a multi-read takes at most " + AtomicRead.MAX_ITEMS
          + " items, nodes and lists together; got " + (nodeIds.size() + lists.size())));
    }
    for (AtomicRead.ListRead list : lists) {
      if (list.limit() < 1 || list.limit() > AtomicRead.MAX_LIST_LIMIT) {
        return Future.failedFuture(GraphException.invalid("a multi-read's list answers 1 to "
            + AtomicRead.MAX_LIST_LIMIT + " edges; got " + list.limit()));
      }
    }
    return primary.round(nodeIds, lists, 1);
  }

  private Future<AtomicRead> round(List<NodeId> nodeIds, List<AtomicRead.ListRead> lists, int round) {
    if (round > AtomicRead.MAX_ROUNDS) {
      return Future.failedFuture(GraphException.unavailable("the multi-read found writes half-done across its lists"
          + " for " + AtomicRead.MAX_ROUNDS + " rounds (an inverse that cannot be applied, or writes racing it); retry"));
    }
    Future<NodeBatch> nodesRead = nodeIds.isEmpty() ? Future.succeededFuture(new NodeBatch(List.of(), List.of()))
        : nodes.getMany(nodeIds);
    List<Future<EdgeListHead>> heads = new ArrayList<>(lists.size());
    lists.forEach(list -> heads.add(edges.head(list.from(), list.type(), list.limit())));
    return Future.all(nodesRead, Future.all(heads)).compose(done -> {
      Map<EdgeListId, EdgeListHead> read = new HashMap<>();
      for (int i = 0; i < lists.size(); i++) {
        read.merge(new EdgeListId(lists.get(i).from(), lists.get(i).type()), heads.get(i).result(),
            (one, other) -> one.edges().size() >= other.edges().size() ? one : other);
      }
      Set<TornEdge> torn = torn(read);
      return torn.isEmpty() ? Future.succeededFuture(answer(nodeIds, nodesRead.result(), heads, round))
          : complete(torn).compose(completed -> round(nodeIds, lists, round + 1));
    });
  }

  /** The pairs of lists of the read that show one edge's two copies differently. */
  private Set<TornEdge> torn(Map<EdgeListId, EdgeListHead> read) {
    Set<TornEdge> torn = new HashSet<>();
    read.forEach((list, head) -> {
      String inverse = edges.inverseTypeOf(list.type());
      if (inverse == null) {
        return;
      }
      for (Edge edge : head.edges()) {
        EdgeListId mirror = new EdgeListId(edge.to(), inverse);
        EdgeListHead other = read.get(mirror);
        if (other != null && !mirrored(edge, other)) {
          torn.add(TornEdge.of(list.type(), list.from(), inverse, edge.to()));
        }
      }
    });
    return torn;
  }

  /**
   * Whether {@code other} (the list of the edge's target, of the inverse type) shows the edge's
   * other copy alike: with its sequence and write stamp, or — beyond the window it holds — not at all.
   */
  private static boolean mirrored(Edge edge, EdgeListHead other) {
    for (Edge copy : other.edges()) {
      if (copy.to().equals(edge.from())) {
        // One write gives both copies its sequence and its stamp (their data is each type's, with its defaults).
        return copy.sequence() == edge.sequence() && copy.updatedAt().equals(edge.updatedAt());
      }
    }
    // Not shown: alike only if the copy may lie beyond the newest edges the other list answered.
    return !other.complete() && !other.edges().isEmpty()
        && edge.sequence() <= other.edges().get(other.edges().size() - 1).sequence();
  }

  /**
   * An edge whose two copies a multi-read found shown differently: the copy (from, to) of
   * {@code type} and its mirror (to, from) of {@code inverse}; one value per pair, whichever side
   * found it ({@link #of} puts the smaller FROM first).
   */
  private record TornEdge(String type, NodeId from, String inverse, NodeId to) {
    static TornEdge of(String type, NodeId from, String inverse, NodeId to) {
      return from.compareTo(to) <= 0 ? new TornEdge(type, from, inverse, to) : new TornEdge(inverse, to, type, from);
    }
  }

  /**
   * Brings each torn edge's copies together now, each made to hold at least what the other holds
   * ({@link InverseNow#converge}): what an outbox entry or the tailer would write, written for this
   * read. UNAVAILABLE comes later, from the rounds, when a host cannot take it.
   */
  private Future<Void> complete(Set<TornEdge> torn) {
    List<Future<EdgeResult.Inverse>> converged = new ArrayList<>(torn.size() * 2);
    for (TornEdge edge : torn) {
      converged.add(Futures.started(() -> inverses.converge(edges.edgeType(edge.type()), edge.from(), edge.to()))
          .compose(one -> inverses.converge(edges.edgeType(edge.inverse()), edge.to(), edge.from())));
    }
    return Future.all(converged).mapEmpty();
  }

  private static AtomicRead answer(List<NodeId> nodeIds, NodeBatch batch, List<Future<EdgeListHead>> heads, int round) {
    Map<NodeId, Node> found = new HashMap<>();
    batch.nodes().forEach(node -> found.put(node.id(), node));
    List<Node> ordered = new ArrayList<>(nodeIds.size());
    nodeIds.forEach(id -> ordered.add(found.get(id)));
    List<EdgeListHead> lists = new ArrayList<>(heads.size());
    heads.forEach(head -> lists.add(head.result()));
    return new AtomicRead(ordered, lists, round);
  }

  @Override
  public Future<Void> settle(ReadToken token) {
    return settler == null || token.entries().isEmpty() ? Future.succeededFuture() : settler.settle(token);
  }

  @Override
  public GraphStore fresh() {
    return primary;
  }

  @Override
  public GraphStore staleTolerant() {
    return staleTolerant;
  }

  NodeStore nodes() {
    return nodes;
  }

  EdgeStore edges() {
    return edges;
  }

  @Override
  public Future<Node> createNode(String type, ObjectNode data, NodeId colocateWith) {
    return nodes.create(type, data, colocateWith);
  }

  @Override
  public Future<Node> getNode(NodeId id) {
    return nodes.get(id);
  }

  @Override
  public Future<java.util.Optional<io.quiver.store.UniqueClaim>> uniqueClaim(String type, String field, String value) {
    return nodes.uniqueClaim(type, field, value);
  }

  @Override
  public Future<NodeBatch> getNodes(List<NodeId> ids) {
    return nodes.getMany(ids);
  }

  @Override
  public Future<Node> updateNode(NodeId id, ObjectNode patch, NodeCondition condition) {
    return nodes.update(id, patch, condition);
  }

  @Override
  public Future<Node> replaceNode(NodeId id, ObjectNode data, NodeCondition condition) {
    return nodes.replace(id, data, condition);
  }

  /** A cascade is an outbox entry committed with the deletion; the drainer removes the edges. */
  @Override
  public Future<Void> deleteNode(NodeId id, Cascade cascade) {
    if (cascade == Cascade.NONE) {
      return nodes.delete(id, NodeStore.AlsoInTransaction.NOTHING);
    }
    return nodes.delete(id, cascade(id, OutboxOp.Kind.CASCADE_DELETE))
        .onSuccess(deleted -> outboxWritten.accept(id.shard()));
  }

  @Override
  public Future<Void> archiveEdgesOf(NodeId id) {
    return cascadeWhileHeld(id, OutboxOp.Kind.CASCADE_ARCHIVE);
  }

  @Override
  public Future<Void> restoreEdgesOf(NodeId id) {
    return cascadeWhileHeld(id, OutboxOp.Kind.CASCADE_RESTORE);
  }

  /** A cascade over an existing node's edges, committed with the node's row held. */
  private Future<Void> cascadeWhileHeld(NodeId id, OutboxOp.Kind kind) {
    return nodes.whileHeld(id, cascade(id, kind)).onSuccess(held -> outboxWritten.accept(id.shard()));
  }

  /** The cascade's outbox entry, appended in the node's transaction. */
  private NodeStore.AlsoInTransaction cascade(NodeId id, OutboxOp.Kind kind) {
    return (connection, route) ->
        OutboxTable.INSTANCE.append(connection, route, new CascadeOp(id, kind).columns(),
            SqlValues.nowMicros(clock));
  }

  @Override
  public Future<EdgeResult> addEdge(NodeId from, String type, NodeId to, Long sequence, ObjectNode data,
      EdgeState state, InverseWait wait, EdgeCondition condition) {
    return edges.add(from, type, to, sequence, data, state, condition).compose(write -> settleInverse(write, wait));
  }

  @Override
  public Future<Edge> getEdge(NodeId from, String type, NodeId to) {
    return edges.get(from, type, to);
  }

  @Override
  public Future<List<NodeId>> getTargets(NodeId from, String type, NodeId after, int limit) {
    return edges.targets(from, type, after, limit);
  }

  @Override
  public Future<List<Edge>> getEdgesTo(NodeId from, String type, List<NodeId> to, Set<EdgeState> states) {
    return edges.getTo(from, type, to, states);
  }

  @Override
  public Future<EdgeBatch> getEdgesBatch(List<EdgeId> ids) {
    return edges.lookup(ids, false, Set.of(), 0).map(lookup -> EdgeBatch.of(ids, lookup.found()));
  }

  @Override
  public Future<EdgeLookup> lookupEdges(List<EdgeId> ids, Set<EdgeListId> readWhole, int wholeUpTo) {
    return edges.lookup(ids, true, readWhole, wholeUpTo);
  }

  @Override
  public Future<EdgeResult> archiveEdge(NodeId from, String type, NodeId to, InverseWait wait) {
    return edges.setState(from, type, to, true).compose(write -> settleInverse(write, wait));
  }

  @Override
  public Future<EdgeResult> restoreEdge(NodeId from, String type, NodeId to, InverseWait wait) {
    return edges.setState(from, type, to, false).compose(write -> settleInverse(write, wait));
  }

  @Override
  public Future<EdgeResult> removeEdge(NodeId from, String type, NodeId to, InverseWait wait) {
    return edges.remove(from, type, to).compose(write -> settleInverse(write, wait));
  }

  /** The forward write has committed: whatever happens next, the answer is a success. */
  private Future<EdgeResult> settleInverse(EdgeWrite write, InverseWait wait) {
    EdgeWrite.PendingInverse pending = write.inverse();
    if (pending == null) {
      return Future.succeededFuture(new EdgeResult(write.edge(), EdgeResult.Inverse.NONE, write.change()));
    }
    if (wait == InverseWait.ASYNC || inverses == null) {
      wakeDrainer(pending);
      return Future.succeededFuture(new EdgeResult(write.edge(), EdgeResult.Inverse.PENDING, write.change(),
          pending.token()));
    }
    return inverses.apply(pending).map(inverse -> {
      if (inverse == EdgeResult.Inverse.PENDING) {
        wakeDrainer(pending);
      }
      return new EdgeResult(write.edge(), inverse, write.change(), inverse == EdgeResult.Inverse.PENDING
          ? pending.token() : ReadToken.EMPTY);
    });
  }

  /** An outbox entry waits: its host's drainer, if this server runs it, passes now (the tailer needs no wake). */
  private void wakeDrainer(EdgeWrite.PendingInverse pending) {
    if (pending.outboxed()) {
      outboxWritten.accept(pending.shard());
    }
  }

  @Override
  public Future<EdgePage> getEdges(NodeId from, String type, EdgeQuery query) {
    return edges.list(from, type, query);
  }

  @Override
  public Future<Long> countEdges(NodeId from, String type) {
    return edges.count(from, type);
  }

  @Override
  public Future<EdgeListHead> getEdgeListHead(NodeId from, String type, int limit) {
    return edges.head(from, type, limit);
  }
}
