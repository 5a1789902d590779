package io.quiver.store;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Set;

/**
 * The graph operations over a fleet of sharded MySQL hosts, and nothing else. Callers never see
 * a shard: an ID says where its node lives, edges live with their FROM node, and inverse edges
 * follow through the outbox. Telemetry, the change feed and administration sit beside it, on
 * the {@link GraphBackend} that owns the connections.
 *
 * <p>Every method returns a Future and never throws; failures are
 * {@link io.quiver.core.GraphException}s. Nothing here blocks the calling event loop.
 *
 * <h2>Failures</h2>
 * Besides those each method names, any method may fail with:
 * <ul>
 *   <li>{@code INVALID_ARGUMENT}: an ID that cannot have been issued (its shard is not in the
 *       map), an ID of the wrong node type for the edge type, or an argument out of its range;
 *       nothing was changed;
 *   <li>{@code NOT_FOUND}: an unknown node or edge type;
 *   <li>{@code UNAVAILABLE}: the shard's host is down or its deadline passed, the shard is offline
 *       (or read-only, for a write), or no connection came in time. A write whose COMMIT was sent
 *       and not answered says the write "may or may not have been applied"; any other write was
 *       rolled back. Retry later;
 *   <li>{@code ABORTED}: a transaction lost a deadlock or a lock wait after its retries;
 *       retrying it as it is is safe;
 *   <li>{@code INTERNAL}: a bug or an unexpected database answer.
 * </ul>
 */
public interface GraphStore {

  /** Pass as the expected version to update whatever version is stored. */
  long ANY_VERSION = -1;

  /** The most targets one {@link #getEdgesTo} may ask about. */
  int MAX_EDGE_TARGETS = 500;

  /** The most edges one {@link #getEdgesBatch} may ask for. */
  int MAX_EDGE_BATCH = 500;

  /** Assembles a backend over a shard map; its {@link GraphBackend#store()} is the uncached store. */
  static GraphStoreBuilder builder(Vertx vertx) {
    return new GraphStoreBuilder(vertx);
  }

  /**
   * Creates a node of {@code type} with {@code data} and its type's defaults, on the shard of
   * {@code colocateWith} when given (else on an open shard of a host that is neither down nor
   * degraded). SCHEMA_VIOLATION when the data does not satisfy the type's fields (details name
   * each path), TOO_LARGE over the node size limit, UNIQUE_VIOLATION when a unique field's value
   * is another node's.
   */
  Future<Node> createNode(String type, ObjectNode data, NodeId colocateWith);

  /** The node, with its type's defaults; NOT_FOUND when there is none. */
  Future<Node> getNode(NodeId id);

  /**
   * The claim a unique field's index holds for {@code value} (an integer field's value in decimal
   * digits), unverified; empty when there is none. INVALID_ARGUMENT when the field is not unique
   * or the value not of its type, UNAVAILABLE while the index is still being built.
   */
  Future<java.util.Optional<UniqueClaim>> uniqueClaim(String type, String field, String value);

  /**
   * The node whose unique {@code field} holds {@code value} (Pinterest's "mod shard" lookup): the
   * claim on the value's home shard, then the node it names — read as {@link #getNode} reads it,
   * and re-checked to hold the value, so a claim left by a crash is never believed. NOT_FOUND
   * when no node holds it.
   */
  default Future<Node> getNodeBy(String type, String field, String value) {
    GraphException none = GraphException.notFound("no " + type + " has " + field + " " + value);
    return uniqueClaim(type, field, value)
        .compose(claim -> claim.isEmpty() ? Future.failedFuture(none) : getNode(claim.get().node())
            .recover(failure -> failure instanceof GraphException missing && missing.code() == GraphException.Code.NOT_FOUND
                ? Future.failedFuture(none) : Future.failedFuture(failure))
            .compose(node -> claim.get().heldBy(node) ? Future.succeededFuture(node) : Future.failedFuture(none)));
  }

  /** The nodes in request order, and the IDs not found; one query per shard. */
  Future<NodeBatch> getNodes(List<NodeId> ids);

  /**
   * Applies a JSON merge patch; {@code expectedVersion} may be {@link #ANY_VERSION}. NOT_FOUND when
   * the node is gone, VERSION_CONFLICT when its version is not the one expected, and as
   * {@link #createNode} for what the patched data must satisfy.
   */
  default Future<Node> updateNode(NodeId id, ObjectNode patch, long expectedVersion) {
    return updateNode(id, patch, NodeCondition.atVersion(expectedVersion));
  }

  /**
   * Applies a JSON merge patch if the node meets {@code condition} (a version, data fields' values);
   * VERSION_CONFLICT, with the node as it is ({@code details.current}), when it does not; otherwise
   * fails as {@link #updateNode(NodeId, ObjectNode, long)}.
   */
  Future<Node> updateNode(NodeId id, ObjectNode patch, NodeCondition condition);

  /** Replaces the node's data whole; fails as {@link #updateNode}. */
  default Future<Node> replaceNode(NodeId id, ObjectNode data, long expectedVersion) {
    return replaceNode(id, data, NodeCondition.atVersion(expectedVersion));
  }

  /** Replaces the node's data whole if it meets {@code condition}; fails as {@link #updateNode}. */
  Future<Node> replaceNode(NodeId id, ObjectNode data, NodeCondition condition);

  /** What else a node's deletion removes. */
  enum Cascade {
    /** Only the node; its edges stay until removed. */
    NONE,
    /** Also every edge from it, and through their inverses the edges to it, asynchronously. */
    EDGES
  }

  /**
   * Deletes the node, releasing its unique values; with {@link Cascade#EDGES} its edges follow
   * through the outbox (the answer means the work is committed, not done). Without, its edges
   * stay, and the delete rule settles each pair as it is next written. NOT_FOUND when it is gone.
   */
  Future<Void> deleteNode(NodeId id, Cascade cascade);

  default Future<Void> deleteNode(NodeId id) {
    return deleteNode(id, Cascade.NONE);
  }

  /**
   * Adds or updates an edge; a null sequence or data keeps an existing edge's. {@code state}
   * {@link EdgeState#ARCHIVED} adds it archived (a hidden link: kept, out of lists and counts).
   * NOT_FOUND when the FROM node does not exist; SCHEMA_VIOLATION and TOO_LARGE for data as
   * {@link #createNode} says. The inverse copy follows as {@code wait} asks; the answer says what
   * became of it ({@link EdgeResult#inverse()}).
   */
  default Future<EdgeResult> addEdge(NodeId from, String type, NodeId to, Long sequence, ObjectNode data,
      EdgeState state, InverseWait wait) {
    return addEdge(from, type, to, sequence, data, state, wait, EdgeCondition.NONE);
  }

  /**
   * Adds or updates an edge if the edge found meets {@code condition} (absent, or at a sequence);
   * VERSION_CONFLICT, with the edge as it is ({@code details.current}, null when absent), when it
   * does not; otherwise as {@link #addEdge(NodeId, String, NodeId, Long, ObjectNode, EdgeState, InverseWait)}.
   */
  Future<EdgeResult> addEdge(NodeId from, String type, NodeId to, Long sequence, ObjectNode data, EdgeState state,
      InverseWait wait, EdgeCondition condition);

  /** Adds or updates an active edge. */
  default Future<EdgeResult> addEdge(NodeId from, String type, NodeId to, Long sequence, ObjectNode data,
      InverseWait wait) {
    return addEdge(from, type, to, sequence, data, EdgeState.ACTIVE, wait);
  }

  default Future<Edge> addEdge(NodeId from, String type, NodeId to, Long sequence, ObjectNode data) {
    return addEdge(from, type, to, sequence, data, InverseWait.ASYNC).map(EdgeResult::edge);
  }

  /** The edge, active or archived (its {@link Edge#state()} says which); NOT_FOUND when there is none. */
  Future<Edge> getEdge(NodeId from, String type, NodeId to);

  /**
   * Archives an active edge (FlockDB's archive, LinkBench's hidden links): it keeps its row,
   * sequence and data, leaves lists and counts, and is still read by {@link #getEdge}. The inverse
   * copy follows through the outbox. An archived edge is answered unchanged; a missing one is NOT_FOUND.
   */
  Future<EdgeResult> archiveEdge(NodeId from, String type, NodeId to, InverseWait wait);

  /**
   * Restores an archived edge whole, with its sequence and data; its inverse copy follows. An
   * active edge is answered unchanged; a missing one is NOT_FOUND.
   */
  Future<EdgeResult> restoreEdge(NodeId from, String type, NodeId to, InverseWait wait);

  /**
   * Archives every active edge from {@code node}, and through their inverses the edges to it —
   * an account suspended — asynchronously, through the outbox like a cascading deletion: the
   * answer means the work is committed, not done. NOT_FOUND when the node does not exist.
   */
  Future<Void> archiveEdgesOf(NodeId node);

  /** Restores every archived edge from {@code node} (and the edges to it), as {@link #archiveEdgesOf}. */
  Future<Void> restoreEdgesOf(NodeId node);

  /** Removes the edge, active or archived, and its inverse copy after it; removing none succeeds. */
  Future<EdgeResult> removeEdge(NodeId from, String type, NodeId to, InverseWait wait);

  default Future<Void> removeEdge(NodeId from, String type, NodeId to) {
    return removeEdge(from, type, to, InverseWait.ASYNC).mapEmpty();
  }

  /** One page of a list, in the query's order; an unknown list is an empty page. */
  Future<EdgePage> getEdges(NodeId from, String type, EdgeQuery query);

  /**
   * The edges of a list that point at any of {@code to} (TAO's {@code assoc_get} with a set of
   * targets, LinkBench's {@code multigetLinks}): the edges among them in any of {@code states},
   * in the list's order (newest first); targets without one are left out. One to
   * {@link #MAX_EDGE_TARGETS} targets, each checked as an addEdge's TO is; repeats count once. One
   * statement on the FROM node's shard.
   */
  Future<List<Edge>> getEdgesTo(NodeId from, String type, List<NodeId> to, Set<EdgeState> states);

  /** {@link #getEdgesTo(NodeId, String, List, Set)} of the active edges: those the list holds. */
  default Future<List<Edge>> getEdgesTo(NodeId from, String type, List<NodeId> to) {
    return getEdgesTo(from, type, to, Set.of(EdgeState.ACTIVE));
  }

  /**
   * Single edges from any sources (the read behind "does each of my friends like this?"): each,
   * active or archived, as {@link #getEdge} reads it, and the ones without an edge as missing,
   * in request order; repeats count once. One to {@link #MAX_EDGE_BATCH} IDs, each checked as a
   * getEdge's ends are. One statement per shard.
   */
  Future<EdgeBatch> getEdgesBatch(List<EdgeId> ids);

  /**
   * The edges named, as {@link #getEdgesBatch} reads them, with the version of each of their
   * lists from the same statement: what a cache keeps of single edges ({@link EdgeLookup}). Each
   * list of {@code readWhole} (lists the IDs name) that has at most {@code wholeUpTo} live edges
   * (active or archived) is read whole too, in the same statement, and the lookup says so
   * ({@link EdgeLookup#whole()}); an empty set, or 0, reads only the edges named. One statement
   * per shard; a lookup naming one list is one plain statement of primary-key reads.
   */
  Future<EdgeLookup> lookupEdges(List<EdgeId> ids, Set<EdgeListId> readWhole, int wholeUpTo);

  /** How many active edges a list holds; 0 for a list never written. */
  Future<Long> countEdges(NodeId from, String type);

  /**
   * The targets of a list's active edges in ascending ID order — not the list's order — at most
   * {@code limit} (1 to {@link EdgeQuery#MAX_LIMIT}) after {@code after} (null from the start):
   * one range of the primary key. How set operations stream lists ({@link GraphQueries#combine}).
   */
  Future<List<NodeId>> getTargets(NodeId from, String type, NodeId after, int limit);

  /**
   * The newest {@code limit} edges of a list (newest first), its count and its version, all as of
   * one moment: what a cache keeps of a list, read in one statement. The version numbers the
   * list's committed changes ({@link GraphChange.EdgeChanged#listVersion()}).
   */
  Future<EdgeListHead> getEdgeListHead(NodeId from, String type, int limit);

  /**
   * This store with its reads tolerating bounded staleness, for a caller that prefers an answer
   * now to the newest one: a read through it may be answered by a replica of the shard's host
   * whose lag is within the bound ({@link ReplicaReadSettings#maxLag()}), reflecting every write
   * acknowledged before that long ago — sent there when the host is down, and also sent there
   * (hedged, the first answer winning) when the primary has not answered within
   * {@link ReplicaReadSettings#hedgeAfter()}. A read no replica is fresh enough for goes to the
   * primary as any read does. Writes through it are this store's writes. A store without replicas
   * answers itself: the primary is within any bound.
   */
  default GraphStore staleTolerant() {
    return this;
  }

  /**
   * Reads {@code nodes} and {@code lists} so that the answer never shows part of one write: an
   * edge's forward copy and its inverse, and each list with its count, are seen together or not at
   * all; a node is seen whole. Read from the primaries. A write the answer would show half-done —
   * the two copies of an edge it holds disagreeing — costs a second round: that edge's inverse is
   * applied, and everything read again. INVALID_ARGUMENT past
   * {@link AtomicRead#MAX_ITEMS} items or {@link AtomicRead#MAX_LIST_LIMIT} edges a list;
   * UNAVAILABLE after {@link AtomicRead#MAX_ROUNDS} rounds or when a host is.
   */
  default Future<AtomicRead> readAtomically(List<NodeId> nodes, List<AtomicRead.ListRead> lists) {
    return Future.failedFuture(GraphException.of(GraphException.Code.INTERNAL,
        "this store does not read atomically"));
  }

  /**
   * Makes every write {@code token} covers visible to a read that follows: each inverse copy still
   * waiting in an outbox is applied now (as {@code waitForInverse} does), or found applied.
   * UNAVAILABLE, naming the shard, when one cannot be within {@link ReadTokenSettings#bound()} (its
   * host is down or read-only, or its entry parked): the read must not answer without it.
   */
  default Future<Void> settle(ReadToken token) {
    return Future.succeededFuture();
  }

  /**
   * This store with its reads answered by the primaries, never from memory: after {@link #settle},
   * what a read carrying a token goes through, since another server's write reaches this one's
   * cache only by a datagram. A store without a cache answers itself.
   */
  default GraphStore fresh() {
    return this;
  }
}
