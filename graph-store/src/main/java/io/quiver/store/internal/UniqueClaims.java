package io.quiver.store.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.schema.FieldDef;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.schema.UniqueIndex;
import io.quiver.store.NodeId;
import io.quiver.store.UniqueClaim;
import io.quiver.store.internal.outbox.UniqueReleaseOp;
import io.quiver.store.internal.sql.Access;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.NodesTable;
import io.quiver.store.internal.table.UniqueTable;
import io.quiver.store.internal.table.UniqueTable.Claim;
import io.vertx.core.Future;
import java.math.BigInteger;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Unique values claimed, checked and released (Pinterest's "mod shard" lookups, FriendFeed's index
 * tables): each value a node holds is claimed by a row on its home shard ({@link UniqueTable}).
 *
 * <h2>The write protocol</h2>
 * <ol>
 *   <li>Inside the node's transaction, once the new data is known and before it commits, each new
 *       value is claimed on its home shard: a plain insert. A value already claimed by another
 *       node is refused UNIQUE_VIOLATION — unless that node no longer holds it (re-read, never
 *       trusted) and the claim is older than {@link #LEASE}, when it is taken over, compare-and-set.
 *       A young claim whose node does not hold the value may be a write in flight and counts as
 *       held.
 *   <li>The write commits only within half the lease of its first claim ({@link #requireFresh}),
 *       so no claim is taken over from a write that may still commit.
 *   <li>Values the write dropped are released through the outbox ({@link UniqueReleaseOp}),
 *       appended in the same transaction: after the commit, never lost.
 * </ol>
 * A crash between claiming and committing leaves a claim naming a node that does not hold the
 * value. Reads re-check the node ({@link io.quiver.store.GraphStore#getNodeBy}), writes take such a
 * claim over once the lease has passed, and the repair ({@link UniqueRepair}) removes it.
 *
 * <p>Claims are single statements on the background pools: a node's transaction holds a request
 * connection while it claims, and claiming on the same pools could leave every connection of a
 * host held by a transaction waiting for another (a pool deadlock). A claim holds its connection
 * for one round trip and waits on nothing else.
 */
final class UniqueClaims {
  /** How long a claim whose node does not hold its value is presumed to be a write in flight. */
  static final Duration LEASE = Duration.ofSeconds(60);

  private final ShardRouter requests;
  private final ShardRouter claims;
  private final ShardClient client;
  private final SchemaSource schemas;
  private final Clock clock;

  /**
   * @param requests the request pools, for lookups
   * @param claims the pools claims and releases run on (the background ones)
   */
  UniqueClaims(ShardRouter requests, ShardRouter claims, ShardClient client, SchemaSource schemas, Clock clock) {
    this.requests = requests;
    this.claims = claims;
    this.client = client;
    this.schemas = schemas;
    this.clock = clock;
  }

  /** One value of one unique field, as its index keys and places it. */
  record Value(NodeType type, String field, FieldDef def, String key, byte[] hash, int homeShard) {
    static Value of(NodeType type, String field, FieldDef def, String key) {
      byte[] hash = UniqueIndex.hash(key);
      return new Value(type, field, def, key, hash, def.unique().homeShard(hash));
    }

    UniqueTable table() {
      return new UniqueTable(type, field);
    }
  }

  /** What a node write changes in its type's indexes: the values to claim and those to release. */
  record Change(List<Value> claimed, List<Value> released) {
    static final Change NONE = new Change(List.of(), List.of());

    boolean isEmpty() {
      return claimed.isEmpty() && released.isEmpty();
    }
  }

  /** The values a write from {@code before} (null for a creation) to {@code after} (null for a deletion) claims and releases. */
  static Change change(NodeType type, ObjectNode before, ObjectNode after) {
    Map<String, FieldDef> unique = type.uniqueFields();
    if (unique.isEmpty()) {
      return Change.NONE;
    }
    List<Value> claimed = new ArrayList<>();
    List<Value> released = new ArrayList<>();
    unique.forEach((field, def) -> {
      String old = before == null ? null : UniqueIndex.key(def.type(), before.get(field));
      String next = after == null ? null : UniqueIndex.key(def.type(), after.get(field));
      if (!Objects.equals(old, next)) {
        if (next != null) {
          claimed.add(Value.of(type, field, def, next));
        }
        if (old != null) {
          released.add(Value.of(type, field, def, old));
        }
      }
    });
    return new Change(claimed, released);
  }

  /**
   * Claims each value for the node at {@code version}, one after another; answers when the first
   * claim was made (for {@link #requireFresh}). UNIQUE_VIOLATION naming the field when one is held.
   */
  Future<Long> claim(List<Value> values, NodeId node, long version) {
    long startedUs = SqlValues.nowMicros(clock);
    Future<Void> done = Future.succeededFuture();
    for (Value value : values) {
      done = done.compose(previous -> attempt(value, node, version).compose(attempt -> attempt.outcome().claimed()
          ? Future.succeededFuture() : Future.failedFuture(violation(value))));
    }
    return done.map(startedUs);
  }

  /** What claiming a value for a node found, and did. */
  enum Outcome {
    /** There was no claim: this node's is written. */
    CLAIMED,
    /** The node's own claim was there (moved to the newer version). */
    OURS,
    /** Another node's claim, older than the lease, whose node does not hold the value: taken over. */
    TAKEN_OVER,
    /** Another node holds the value. */
    HELD,
    /** Another node's claim younger than the lease: a write that may still commit. Left alone. */
    IN_FLIGHT;

    boolean claimed() {
      return this == CLAIMED || this == OURS || this == TAKEN_OVER;
    }
  }

  /** An attempt's outcome, and the node the claim names after it (this node's, or the one that kept it). */
  record Attempt(Outcome outcome, NodeId holder) {}

  private static final int MAX_ATTEMPTS = 3;

  /**
   * Claims a value for the node at {@code version} — the one rule for writes and the repair: a
   * plain insert; else the claim there is the node's own (moved to this version), another node's
   * that is held or young (left), or stale (taken over, compare-and-set). A claim that changes
   * between the reads is tried again.
   */
  Future<Attempt> attempt(Value value, NodeId node, long version) {
    return attempt(value, node, version, 1);
  }

  private Future<Attempt> attempt(Value value, NodeId node, long version, int attempt) {
    ShardRoute route = claims.route(value.homeShard(), Access.WRITE);
    UniqueTable table = value.table();
    Claim mine = new Claim(value.hash(), value.key(), node, version, SqlValues.nowMicros(clock));
    return client.write(route, sql -> table.insert(sql, route, mine))
        .compose(inserted -> inserted ? Future.succeededFuture(new Attempt(Outcome.CLAIMED, node))
            : client.read(route, sql -> table.get(sql, route, value.hash()))
                .compose(held -> held == null ? again(value, node, version, attempt)
                    : resolve(value, route, held, mine, attempt)));
  }

  private Future<Attempt> resolve(Value value, ShardRoute route, Claim held, Claim mine, int attempt) {
    if (held.node().equals(mine.node())) {
      return held.version() >= mine.version() ? Future.succeededFuture(new Attempt(Outcome.OURS, mine.node()))
          : replace(value, route, held, mine, Outcome.OURS, attempt);
    }
    return holds(value, held.node()).compose(holding -> {
      if (holding) {
        return Future.succeededFuture(new Attempt(Outcome.HELD, held.node()));
      }
      return young(held) ? Future.succeededFuture(new Attempt(Outcome.IN_FLIGHT, held.node()))
          : replace(value, route, held, mine, Outcome.TAKEN_OVER, attempt);
    });
  }

  private Future<Attempt> replace(Value value, ShardRoute route, Claim held, Claim mine, Outcome done, int attempt) {
    return client.write(route, sql -> value.table().replace(sql, route, held, mine))
        .compose(moved -> moved ? Future.succeededFuture(new Attempt(done, mine.node()))
            : again(value, mine.node(), mine.version(), attempt));
  }

  private Future<Attempt> again(Value value, NodeId node, long version, int attempt) {
    if (attempt >= MAX_ATTEMPTS) {
      return Future.failedFuture(GraphException.of(GraphException.Code.ABORTED,
          "the claim of " + value.type().name() + "." + value.field() + " changed under this write; retry"));
    }
    return attempt(value, node, version, attempt + 1);
  }

  /** Whether a claim is younger than the lease: possibly a write that has not committed yet. */
  boolean young(Claim claim) {
    return sinceUs(claim.claimedUs()) < LEASE.toNanos() / 1000;
  }

  /** Microseconds since {@code us}, by this process's clock. */
  private long sinceUs(long us) {
    return SqlValues.nowMicros(clock) - us;
  }

  /** Whether the node holds the value now, as committed (absent nodes hold nothing). */
  Future<Boolean> holds(Value value, NodeId node) {
    return Futures.attempt(() -> claims.route(node.shard(), Access.READ))
        .compose(route -> client.read(route, sql -> new NodesTable(value.type()).select(sql, route, node,
            NodesTable.Lock.NONE)))
        .map(row -> row != null
            && value.key().equals(UniqueIndex.key(value.def().type(), NodesTable.storedData(row).get(value.field()))));
  }

  /**
   * Fails the write, rolling it back, when more than half the lease has passed since its first
   * claim: another write may take over a claim that old, so this one must not commit on it.
   */
  void requireFresh(long claimedUs) {
    if (sinceUs(claimedUs) > LEASE.toNanos() / 2000) {
      throw GraphException.unavailable("the write took longer than half the unique-claim lease (" + LEASE.toSeconds()
          + " s) after claiming its values; nothing was written");
    }
  }

  /**
   * Removes the claims a write made at {@code version} that did not commit, as far as it can;
   * what is left, the lease and the repair handle. Never fails: the write's own failure is the answer.
   */
  Future<Void> unclaim(List<Value> values, NodeId node, long version) {
    List<Future<Void>> removed = new ArrayList<>();
    for (Value value : values) {
      removed.add(release(value, node, version + 1).otherwiseEmpty());
    }
    return Future.join(removed).mapEmpty();
  }

  /** The outbox operation that releases a dropped value once the write commits. */
  static UniqueReleaseOp releaseOp(Value value, NodeId node, long version) {
    return new UniqueReleaseOp(value.type().id(), value.field(), value.key(), node, version);
  }

  /** Carries out a release: the outbox's handler. A field no longer unique has nothing to release. */
  Future<Void> release(UniqueReleaseOp op) {
    Schema schema = schemas.current();
    Optional<NodeType> type = schema.nodeType(op.nodeTypeId());
    FieldDef def = type.map(t -> t.fields().definitions().get(op.field())).orElse(null);
    if (def == null || def.unique() == null) {
      return Future.succeededFuture();
    }
    return release(Value.of(type.get(), op.field(), def, op.key()), op.node(), op.version());
  }

  private Future<Void> release(Value value, NodeId node, long version) {
    return Futures.attempt(() -> claims.route(value.homeShard(), Access.WRITE))
        .compose(route -> client.write(route, sql -> value.table().release(sql, route, value.hash(), node, version)));
  }

  /** The claim of a value, for a lookup: on the request pools. */
  Future<Optional<UniqueClaim>> lookup(String typeName, String field, String value) {
    return Futures.attempt(() -> lookupValue(typeName, field, value))
        .compose(found -> {
          ShardRoute route = requests.route(found.homeShard(), Access.READ);
          return client.read(route, sql -> found.table().get(sql, route, found.hash()))
              .map(held -> Optional.ofNullable(held).map(claim -> new UniqueClaim(typeName, field,
                  found.def().type(), found.key(), claim.node())));
        });
  }

  /** The checked value of a lookup: the field unique and its index active, the value of its type. */
  private Value lookupValue(String typeName, String field, String value) {
    NodeType type = TypeChecks.nodeType(schemas.current(), typeName);
    FieldDef def = type.fields().definitions().get(field);
    if (def == null || def.unique() == null) {
      throw GraphException.invalid("field '" + field + "' of node type '" + typeName + "' is not unique");
    }
    if (!def.unique().active()) {
      throw GraphException.unavailable("the unique index of " + typeName + "." + field + " is still being built");
    }
    return Value.of(type, field, def, key(def, value));
  }

  private static String key(FieldDef def, String value) {
    if (def.type() == io.quiver.schema.FieldType.STRING) {
      return value;
    }
    try {
      return new BigInteger(value).toString();
    } catch (NumberFormatException notANumber) {
      throw GraphException.invalid("'" + value + "' is not an integer");
    }
  }

  private static GraphException violation(Value value) {
    return GraphException.of(GraphException.Code.UNIQUE_VIOLATION, value.type().name() + "." + value.field() + " "
            + value.key() + " is held by another node",
        Map.of("field", value.field()));
  }
}
