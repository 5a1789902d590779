package io.quiver.store.internal.sql;

import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.store.NodeId;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Group commit for client writes: writes to one host that arrive while its transactions are busy
 * share the next transaction — one BEGIN, one COMMIT and one flush of the redo and binary logs for
 * all of them, instead of one each (issue 37). Its members are a client's edge writes
 * ({@code EdgeStore}) and node updates ({@code NodeStore}: those of types without unique fields,
 * whose claims on other shards fit no shared transaction's phases).
 *
 * <h2>Why</h2>
 * A profile of MariaDB under the writes mix put a fifth of its CPU in COMMIT (the two-phase commit
 * of InnoDB and the binary log, with its log flushes) and most of the rest in work per statement
 * (reading the command, opening tables, answering), not in the rows. A client's edge write is its
 * own transaction of eight statements, two of them BEGIN and COMMIT. Databases meet the same cost
 * by committing many transactions with one log flush (InnoDB's and the binary log's own group
 * commit); this does the same a level up, as the outbox drainer already does for inverse copies
 * ({@code InverseWriter#applyAll}): the writes share one transaction.
 *
 * <h2>How</h2>
 * Per host (its pool), at most {@code mysql.writeTransactions} transactions of client writes are
 * in flight ({@link io.quiver.store.PoolSettings#writeTransactions()}). A write that finds a free slot starts one at once, alone — so an idle
 * store adds no wait to a write. One that finds none waits; when a transaction ends, the writes
 * waiting (up to {@link #MAX_GROUP}) go together in the next. Two writes of one row never
 * share a transaction: the second waits for the next, so it reads what the first wrote, as it
 * would alone. Each write ({@link Member}) runs in two phases, every member's statements of a
 * phase sent together on the connection (pipelined):
 * <ol>
 *   <li><b>lock</b>: its locking reads, in key order ({@link Key}), so that two groups lock
 *       shared rows in the same order — or a write that locks as it writes and answers what it
 *       replaced (an edge's upsert). It answers a {@link Step}: what to write, an answer with
 *       nothing to write, or a refusal (a check that failed: a node gone, a condition unmet).</li>
 *   <li><b>write</b>: the statements of every member that writes.</li>
 * </ol>
 * Every member is answered only once the transaction has committed; a refused member is answered
 * its refusal and wrote nothing. A transaction that loses a deadlock runs again whole
 * ({@link ShardClient#inTransaction}). One that fails otherwise runs each of its writes again
 * alone, so one write's bad statement never fails another's — unless the host is in trouble
 * (UNAVAILABLE: a write's outcome may be unknown, and running it again could apply it twice), in
 * which case every write of it, and every write waiting for the host, is answered that failure.
 * A transaction spans several shards of its host, so it is fenced for all of them
 * ({@link MapWrites#write(List, java.util.function.Supplier)}): a shard move's cut-over waits for
 * it as for any write of the shard. The map refusing one of those shards refuses the group before
 * anything is sent, which is no trouble of the host: its writes run again alone, and a write to a
 * shard of the host that is not moving is never refused for sharing a group with one that is.
 */
public final class GroupCommit {
  /** The most writes in one transaction: bounds how long its locks are held, and its statements' pipeline. */
  static final int MAX_GROUP = 16;

  /**
   * A row a member writes: members with equal keys never share a transaction, and a group locks in
   * key order — by shard, then a shard's node rows ({@link #node}) before its edge rows
   * ({@link #edge}).
   *
   * @param table an edge row's type ID, or a node row's type ID negated less one (so below every edge type's)
   */
  public record Key(int shard, int table, long from, long to) implements Comparable<Key> {
    private static final Comparator<Key> ORDER = Comparator.comparingInt(Key::shard).thenComparingInt(Key::table)
        .thenComparing(Key::from, Long::compareUnsigned).thenComparing(Key::to, Long::compareUnsigned);

    /** The forward copy of the edge (from, to) of edge type {@code type}, on {@code shard}. */
    public static Key edge(int shard, int type, long from, long to) {
      return new Key(shard, type, from, to);
    }

    /** The node's row. */
    public static Key node(NodeId id) {
      return new Key(id.shard(), -1 - id.type(), id.value(), 0);
    }

    @Override
    public int compareTo(Key other) {
      return ORDER.compare(this, other);
    }
  }

  /**
   * One write's part in a shared transaction: the shard it writes, the row, and its locking reads
   * ({@code lock}), which answer what it does next. The lock phase may be run more than once (a
   * transaction that lost a deadlock runs again), so it must have no effect outside the transaction.
   */
  public record Member<T>(ShardRoute route, Key key, Function<SqlConnection, Future<Step<T>>> lock) {}

  /** What a member does once its locking reads have answered. */
  public sealed interface Step<T> permits Write, Answer, Refuse {
    /** Sends {@code statements} in the write phase; their answer is the member's. */
    static <T> Step<T> write(Function<SqlConnection, Future<T>> statements) {
      return new Write<>(statements);
    }

    /** Writes nothing; answered {@code result} once the transaction commits. */
    static <T> Step<T> answer(T result) {
      return new Answer<>(result);
    }

    /** A check failed: writes nothing, and is answered {@code why}. */
    static <T> Step<T> refuse(GraphException why) {
      return new Refuse<>(why);
    }
  }

  record Write<T>(Function<SqlConnection, Future<T>> statements) implements Step<T> {}

  record Answer<T>(T result) implements Step<T> {}

  record Refuse<T>(GraphException why) implements Step<T> {}

  private final ShardClient client;
  private final int transactionsPerHost;
  private final int maxWaiting;
  /** Per host, by its pool: a host's pools are replaced only with its address, and its writes with them. */
  private final Map<Pool, Host> hosts = new ConcurrentHashMap<>();
  private final LongAdder transactions = new LongAdder();
  private final LongAdder writes = new LongAdder();

  /**
   * @param maxWaiting writes allowed to wait per host; beyond it a write fails at once with
   *     UNAVAILABLE, as a request does past its pool's wait queue
   */
  public GroupCommit(ShardClient client, int transactionsPerHost, int maxWaiting) {
    if (transactionsPerHost <= 0 || maxWaiting <= 0) {
      throw GraphException.invalid("transactionsPerHost and maxWaiting must be positive, got " + transactionsPerHost
          + " and " + maxWaiting);
    }
    this.client = client;
    this.transactionsPerHost = transactionsPerHost;
    this.maxWaiting = maxWaiting;
  }

  /** Transactions run since start, and the writes they carried: their ratio is the mean group. */
  public long transactions() {
    return transactions.sum();
  }

  public long writes() {
    return writes.sum();
  }

  /** Runs {@code member}'s write in the next transaction of its host; answered once that has committed. */
  public <T> Future<T> submit(Member<T> member) {
    Waiting<T> waiting = new Waiting<>(member, Vertx.currentContext());
    Host host = hosts.computeIfAbsent(member.route().pool(), pool -> new Host());
    List<Waiting<?>> group = host.offer(waiting);
    if (group != null) {
      run(host, group);
    }
    return waiting.promise.future();
  }

  private void run(Host host, List<Waiting<?>> group) {
    writes.add(group.size());
    List<Waiting<?>> ordered = inKeyOrder(group);
    commit(ordered).onComplete(done -> {
      if (done.succeeded()) {
        settle(ordered, done.result());
      } else {
        failed(host, ordered, done.cause());
      }
      List<Waiting<?>> next = host.next();
      if (next != null) {
        run(host, next);
      }
    });
  }

  /** One transaction of {@code group}, counted; answers each member's outcome in order ({@link #work}). */
  private Future<List<Object>> commit(List<Waiting<?>> group) {
    transactions.increment();
    return client.inTransaction(routes(group), connection -> work(connection, group));
  }

  private static void settle(List<Waiting<?>> group, List<Object> outcomes) {
    for (int i = 0; i < group.size(); i++) {
      group.get(i).settle(outcomes.get(i));
    }
  }

  /** {@code group} sorted by key, the order its members lock in; a lone write as it is. */
  private static List<Waiting<?>> inKeyOrder(List<Waiting<?>> group) {
    if (group.size() == 1) {
      return group;
    }
    List<Waiting<?>> ordered = new ArrayList<>(group);
    ordered.sort(Comparator.comparing(waiting -> waiting.member.key()));
    return ordered;
  }

  /** The shards the group writes, each once. */
  private static List<ShardRoute> routes(List<Waiting<?>> group) {
    if (group.size() == 1) {
      return List.of(group.get(0).member.route());
    }
    Map<Integer, ShardRoute> byShard = new LinkedHashMap<>();
    group.forEach(waiting -> byShard.putIfAbsent(waiting.member.route().shard(), waiting.member.route()));
    return List.copyOf(byShard.values());
  }

  /**
   * The transaction's work: every member's locking reads sent together, then every writing
   * member's statements; answers each member's outcome in order, a refusal as its {@link Refuse}.
   */
  private static Future<List<Object>> work(SqlConnection connection, List<Waiting<?>> group) {
    List<Future<? extends Step<?>>> locked = new ArrayList<>(group.size());
    group.forEach(waiting -> locked.add(Futures.started(() -> waiting.member.lock().apply(connection))));
    return Future.all(locked).compose(read -> {
      List<Future<?>> written = new ArrayList<>(group.size());
      for (Future<? extends Step<?>> step : locked) {
        written.add(written(connection, step.result()));
      }
      return Future.all(written).map(all -> {
        List<Object> outcomes = new ArrayList<>(written.size());
        written.forEach(outcome -> outcomes.add(outcome.result()));
        return outcomes;
      });
    });
  }

  private static Future<?> written(SqlConnection connection, Step<?> step) {
    if (step instanceof Write<?> write) {
      return Futures.started(() -> write.statements().apply(connection));
    }
    return Future.succeededFuture(step instanceof Answer<?> answer ? answer.result() : step);
  }

  /**
   * A transaction failed: alone, its write is answered the failure; with others, each runs again
   * alone unless the host is in trouble, when they and every write waiting for the host are
   * answered the failure (none of those began). The shard map's refusal of one of the group's
   * shards (read-only for a move's cut-over, or moved) is no trouble of the host: nothing was
   * sent, so each write runs again alone, and only those of the refused shard are refused.
   */
  private void failed(Host host, List<Waiting<?>> group, Throwable failure) {
    boolean hostTrouble = failure instanceof GraphException graph && graph.code() == GraphException.Code.UNAVAILABLE
        && !MapWrites.refused(failure);
    if (group.size() == 1 || hostTrouble) {
      group.forEach(waiting -> waiting.fail(failure));
    } else {
      group.forEach(this::alone);
    }
    if (hostTrouble) {
      host.drain().forEach(waiting -> waiting.fail(GraphException.of(GraphException.Code.UNAVAILABLE,
          "host " + waiting.member.route().host() + " failed the transaction before this write's ("
              + failure.getMessage() + "); no transaction began, nothing was written", failure)));
    }
  }

  /** Runs one member of a failed group in a transaction of its own, outside the host's slots (rare). */
  private void alone(Waiting<?> waiting) {
    List<Waiting<?>> single = List.of(waiting);
    commit(single).onComplete(done -> {
      if (done.succeeded()) {
        settle(single, done.result());
      } else {
        waiting.fail(done.cause());
      }
    });
  }

  /** A host's slots and the writes waiting for one. */
  private final class Host {
    private final ArrayDeque<Waiting<?>> waiting = new ArrayDeque<>();
    private int running;

    /** A group of {@code next} alone when a slot is free (taken), else null: it waits, or is refused. */
    synchronized List<Waiting<?>> offer(Waiting<?> next) {
      if (running < transactionsPerHost) {
        running++;
        return List.of(next);
      }
      if (waiting.size() >= maxWaiting) {
        next.fail(GraphException.unavailable("host " + next.member.route().host() + " has " + maxWaiting
            + " writes waiting for a transaction; no transaction began, nothing was written"));
        return null;
      }
      waiting.add(next);
      return null;
    }

    /**
     * The next group once a transaction ended — the waiting writes in order, up to the most a
     * group holds, a write of a row already in it left for the one after — or null when none
     * waits (the slot freed).
     */
    synchronized List<Waiting<?>> next() {
      if (waiting.isEmpty()) {
        running--;
        return null;
      }
      List<Waiting<?>> group = new ArrayList<>(Math.min(MAX_GROUP, waiting.size()));
      Set<Key> keys = new HashSet<>();
      for (Iterator<Waiting<?>> it = waiting.iterator(); it.hasNext() && group.size() < MAX_GROUP; ) {
        Waiting<?> candidate = it.next();
        if (keys.add(candidate.member.key())) {
          group.add(candidate);
          it.remove();
        }
      }
      return group;
    }

    /** Every waiting write, taken out of the queue. */
    synchronized List<Waiting<?>> drain() {
      List<Waiting<?>> all = new ArrayList<>(waiting);
      waiting.clear();
      return all;
    }
  }

  /** A submitted write and its caller's answer, completed on the caller's context. */
  private static final class Waiting<T> {
    private final Member<T> member;
    private final Context context;
    private final Promise<T> promise = Promise.promise();

    Waiting(Member<T> member, Context context) {
      this.member = member;
      this.context = context;
    }

    /** Answers the member's outcome: its result, or its refusal. */
    @SuppressWarnings("unchecked")
    void settle(Object outcome) {
      if (outcome instanceof Refuse<?> refused) {
        fail(refused.why());
      } else {
        onContext(() -> promise.complete((T) outcome));
      }
    }

    void fail(Throwable failure) {
      onContext(() -> promise.fail(failure));
    }

    private void onContext(Runnable answer) {
      if (context == null || context == Vertx.currentContext()) {
        answer.run();
      } else {
        context.runOnContext(on -> answer.run());
      }
    }
  }
}
