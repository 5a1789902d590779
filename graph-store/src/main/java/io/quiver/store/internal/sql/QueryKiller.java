package io.quiver.store.internal.sql;

import io.vertx.core.Future;
import io.vertx.sqlclient.DatabaseException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cancels on the server what this process stopped waiting for, as Vitess' query killer does: a
 * statement whose deadline passed ({@link ShardClient}) keeps running on its host, holding its
 * pooled connection and whatever it locked — and on a host whose COMMITs wait for disk space it
 * would run until someone frees it, so the pool would never get its connections back. Each
 * session this process opens is registered with its server thread id ({@code CONNECTION_ID()},
 * read when the session is prepared); when a deadline has passed on a host, or its COMMITs stall
 * ({@link CommitWatch}), the next sweep reads the host's processlist from a connection of its own
 * (the health probe's pool, never a request's) and kills each of this process's sessions that has
 * been running a statement for longer than the statement deadline.
 *
 * <p>The session, not only its statement ({@code KILL CONNECTION}, not {@code KILL QUERY}): the
 * statements of a transaction are pipelined, so killing the one running lets the next queued one
 * start and wait the same way; and the transaction was abandoned when its deadline passed, so
 * nothing is lost with it. Its transaction rolls back, the pool drops the dead connection and
 * opens another. A COMMIT is the exception: only the statement is killed ({@link #isCommit}), by its
 * query id so that a kill arriving after it ended hits nothing else ({@link #kill}), and one killed
 * while it waits for binary-log space commits and makes MariaDB turn its binary log off
 * ({@link HostHealth}).
 *
 * <p><b>Unless the binary log is where the change log is read from</b> ({@code changes.source:
 * binlog}, {@link #sparingCommits}). There a statement in its commit is not killed while a session
 * of its host waits for space to write the binary log: the COMMIT that a kill ends commits without
 * reaching the log, and every transaction after it commits unlogged too, once MariaDB has turned
 * the log off — so no tail would ever see them, and their inverse copies and change-log rows would
 * never be written (found by {@code TailedFullDiskTest}: acknowledged edges left one-sided). A
 * COMMIT held for another reason is killed as before: one waiting for a replica to confirm it is
 * in the log already ({@code TailedFailoverTest} kills such COMMITs on a primary that lost its
 * replica). Left alone, a COMMIT waiting for space goes on waiting until the operator frees space
 * and restarts the host, which ends it with the binary log still on (docs/operations.md, "A full
 * disk"). The cost is the connection, held by its COMMIT until then: a host with a full disk keeps
 * its stalled COMMITs' connections, so its pool lends fewer.
 *
 * <p>Only this process's own sessions are candidates: another server's statements are its own
 * killer's, and work outside the pools (a shard move's copy over JDBC) is never touched.
 */
public final class QueryKiller {
  private static final Logger log = LoggerFactory.getLogger(QueryKiller.class);
  private static final String PROCESSLIST =
      "SELECT ID, QUERY_ID, COMMAND, TIME_MS, STATE, INFO FROM information_schema.PROCESSLIST"
          + " WHERE ID <> CONNECTION_ID()";

  /**
   * One session to kill, with the statement it was running: whether only that statement (in its
   * commit) or the whole session, and its state.
   */
  record Victim(long id, long queryId, boolean commit, String state) {
    @Override
    public String toString() {
      return id + (commit ? " (query " + queryId + ", " : " (session, ") + state + ")";
    }
  }

  /** MariaDB's "Unknown query id". */
  private static final int ER_NO_SUCH_QUERY = 1957;
  /** "Unknown thread id". */
  private static final int ER_NO_SUCH_THREAD = 1094;

  private final long deadlineMs;
  private final boolean sparingCommits;
  private final Map<String, Set<Long>> sessions = new ConcurrentHashMap<>();
  /** Hosts where the last sweep left COMMITs past the deadline to finish: said once per stall, not per sweep. */
  private final Set<String> sparing = ConcurrentHashMap.newKeySet();
  private final Set<String> overdue = ConcurrentHashMap.newKeySet();
  private final Set<String> sweeping = ConcurrentHashMap.newKeySet();

  /** @param deadlineMs how long a statement may run before it is killed: the statement deadline */
  public QueryKiller(long deadlineMs) {
    this(deadlineMs, false);
  }

  /**
   * @param deadlineMs how long a statement may run before it is killed: the statement deadline
   * @param sparingCommits whether a statement in its commit is left to finish while its host's
   *     binary log waits for space: true when the change log and the inverses are read from the
   *     hosts' binary logs, which a COMMIT killed there would leave without it and every later
   *     transaction
   */
  public QueryKiller(long deadlineMs, boolean sparingCommits) {
    this.deadlineMs = deadlineMs;
    this.sparingCommits = sparingCommits;
  }

  /** A pooled session to {@code host} was opened, with server thread id {@code id}. */
  public void opened(String host, long id) {
    sessions.computeIfAbsent(host, name -> ConcurrentHashMap.newKeySet()).add(id);
  }

  /**
   * A session in its commit — a COMMIT, an autocommit statement committing (its state names the
   * commit or the binary log), or a statement waiting for disk space to write the binary log:
   * killed with {@code KILL QUERY}. Killing the whole session while it writes the binary log has
   * crashed MariaDB 11.4 (signal 11) in {@code FullDiskTest}; killing the query has not, and
   * MariaDB then commits the transaction and turns the binary log off.
   */
  private static boolean isCommit(Row row) {
    String info = row.getString("INFO");
    if (info != null && info.trim().equalsIgnoreCase("COMMIT")) {
      return true;
    }
    String lower = stateOf(row);
    return waitsForSpace(lower) || lower.contains("commit") || lower.contains("binlog")
        || lower.contains("binary log");
  }

  /** A processlist row's state, lower case; empty when it has none. */
  private static String stateOf(Row row) {
    String state = row.getString("STATE");
    return state == null ? "" : state.toLowerCase(java.util.Locale.ROOT);
  }

  /** Whether a session in state {@code lower} waits for disk space to write (the binary log, in its commit). */
  private static boolean waitsForSpace(String lower) {
    return lower.contains("free space") || lower.contains("disk space");
  }

  /** A deadline passed on {@code host}: its next sweep is due. */
  public void deadlinePassed(String host) {
    overdue.add(host);
  }

  /** Whether a sweep of {@code host} is due: a deadline passed there since the last one. */
  boolean due(String host) {
    return overdue.contains(host);
  }

  /**
   * Kills this process's statements on {@code host} running past the deadline, over {@code own}
   * (a pool apart from the requests'); answers how many were killed. At most one sweep per host at
   * a time; sessions the processlist no longer shows are forgotten.
   */
  Future<Integer> sweep(String host, Pool own) {
    if (!sweeping.add(host)) {
      return Future.succeededFuture(0);
    }
    overdue.remove(host);
    return victims(host, own)
        .compose(victims -> kill(host, own, victims))
        .onComplete(done -> sweeping.remove(host));
  }

  /**
   * The sweep's first step: this process's sessions on {@code host} whose statement has run past
   * the deadline, but for those in their commit while the host's binary log waits for space and
   * {@link #sparingCommits}.
   */
  Future<List<Victim>> victims(String host, Pool own) {
    Set<Long> ours = sessions.getOrDefault(host, Set.of());
    return own.query(PROCESSLIST).execute().map(rows -> {
      Set<Long> present = new HashSet<>();
      List<Victim> victims = new ArrayList<>();
      List<Victim> spared = new ArrayList<>();
      boolean logFull = sparingCommits && anyWaitsForSpace(rows);
      for (Row row : rows) {
        long id = row.getLong("ID");
        present.add(id);
        if (!ours.contains(id) || "Sleep".equals(row.getString("COMMAND"))) {
          continue;
        }
        long runningMs = row.getNumeric("TIME_MS").longValue();
        if (runningMs >= deadlineMs) {
          Victim victim = new Victim(id, row.getLong("QUERY_ID"), isCommit(row), row.getString("STATE"));
          (victim.commit() && logFull ? spared : victims).add(victim);
        } else if (runningMs >= deadlineMs / 2) {
          // Its deadline may have passed after a wait for a connection: look again at the next sweep.
          overdue.add(host);
        }
      }
      ours.retainAll(present);
      said(host, spared);
      return victims;
    });
  }

  /**
   * Whether a session of the host, anyone's, is waiting for space to write the binary log: the
   * COMMITs queued behind it are not in the log yet. A COMMIT held for another reason — waiting
   * for a replica to confirm it, which it does once it is in the log — is killed as before.
   */
  private static boolean anyWaitsForSpace(Iterable<Row> rows) {
    for (Row row : rows) {
      if (waitsForSpace(stateOf(row))) {
        return true;
      }
    }
    return false;
  }

  /** Says, once per stall, that {@code host}'s COMMITs past the deadline are left to finish. */
  private void said(String host, List<Victim> spared) {
    if (spared.isEmpty()) {
      sparing.remove(host);
    } else if (sparing.add(host)) {
      log.warn("host {}: {} session(s) in their commit past the {} ms deadline are left to finish, not killed: the"
          + " change log is read from the binary log, which a killed COMMIT waiting for space would leave without"
          + " it and everything after (server threads {}); free space on the host and restart it",
          host, spared.size(), deadlineMs, spared);
    }
  }

  /**
   * The sweep's second step. A statement in its commit is killed by its query id ({@code KILL
   * QUERY ID}), not by its session's: between the processlist read and the kill the COMMIT may have
   * ended — space freed on a full disk ends every waiting one at once — and the pool lent the session
   * to another transaction. A kill by session would then interrupt that transaction's statement,
   * and were it the BEGIN sent ahead of the statements behind it (the connection is pipelined),
   * those would run each committed on its own. A query id names one statement only; once it has
   * ended, the kill finds nothing and changes nothing. A whole session killed late costs its next
   * transaction only a rollback.
   */
  Future<Integer> kill(String host, Pool own, List<Victim> victims) {
    List<Future<Victim>> kills = new ArrayList<>();
    for (Victim victim : victims) {
      Tuple target = Tuple.of(victim.commit() ? victim.queryId() : victim.id());
      kills.add(own.preparedQuery(victim.commit() ? "KILL QUERY ID ?" : "KILL CONNECTION ?").execute(target)
          .map(victim)
          .otherwise(failure -> {
            if (endedFirst(failure)) {
              log.info("host {}: server thread {} ended its statement before the kill", host, victim);
            } else {
              log.warn("host {}: could not kill server thread {}: {}", host, victim, failure.getMessage());
            }
            return null;
          }));
    }
    return Future.all(kills).map(done -> {
      List<Victim> killed = kills.stream().map(Future::result).filter(java.util.Objects::nonNull).toList();
      if (!killed.isEmpty()) {
        log.warn("host {}: killed {} session(s) running a statement past the {} ms deadline (server threads {})",
            host, killed.size(), deadlineMs, killed);
      }
      return killed.size();
    });
  }

  /** The kill found no such statement (MariaDB 1957) or session (1094): it had ended meanwhile. */
  private static boolean endedFirst(Throwable failure) {
    return failure instanceof DatabaseException db
        && (db.getErrorCode() == ER_NO_SUCH_QUERY || db.getErrorCode() == ER_NO_SUCH_THREAD);
  }
}
