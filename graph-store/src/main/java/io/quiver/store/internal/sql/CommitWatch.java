package io.quiver.store.internal.sql;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The COMMITs in flight on each host, and when each was sent: how a host whose commits stall is
 * told from one that merely answers slowly. A MariaDB whose disk is full keeps answering reads and
 * its probe's {@code SELECT 1}, but a COMMIT that must grow the binary log waits, with no timeout,
 * "for someone to free space", and every COMMIT on the host queues behind it. Nothing is refused,
 * so nothing looks down; only the age of the oldest COMMIT in flight shows it. {@link HostHealth}
 * reads that age to report the host degraded, and to have its over-deadline statements killed.
 *
 * <p>A full disk shows a second way: InnoDB fails at once a statement whose tablespace cannot grow
 * (MySQL error 1114, "The table … is full"), where the binary log makes a COMMIT wait. Such a
 * refusal ({@link SqlErrors#outOfSpaceOrMemory}) is noted here too, and {@link #shortOfSpace}
 * reports the host for twice the statement deadline after the last one: no write proves the space
 * back (the next may need a table that cannot grow), so only time clears it, while new refusals
 * — a host short of space under load refuses writes every moment — keep it. Twice the deadline,
 * not longer: the report steers new nodes away, and a host freed and restarted should take them
 * again within seconds.
 *
 * <p>A third: MariaDB turns a host's binary log off for good once a write to it fails (as when a
 * COMMIT waiting for space is killed), and commits unlogged from then on. {@link HostHealth} reads
 * that state every few seconds and notes it here ({@link #binaryLogOff}). Where the change log and
 * the inverses are read from the binary log ({@code logRequired}), a write committed unlogged would
 * never get its inverse copy or its change row, so such a host refuses writes
 * ({@link #refusesWrites}) until its binary log is on again: the client is answered 503, and an
 * inverse meant for the host waits in its forward shard's outbox as for a host that is down.
 *
 * <p>Costs two map operations per COMMIT and no statement; the clock is injected, so tests move time.
 */
public final class CommitWatch {
  private final Clock clock;
  private final AtomicLong tokens = new AtomicLong();
  private final Map<String, Map<Long, Long>> inFlight = new ConcurrentHashMap<>();
  private final Map<String, Long> stalledSince = new ConcurrentHashMap<>();
  private final Map<String, Refusal> refusals = new ConcurrentHashMap<>();
  private final boolean logRequired;
  /** Per host whose binary log is off though configured on: why, as {@link HostHealth} reports it. */
  private final Map<String, String> unlogged = new ConcurrentHashMap<>();

  /** The last statement a host refused for lack of space or memory: when, and its MySQL error. */
  private record Refusal(long atMillis, int errorCode) {}

  /** A watch whose hosts take writes whatever their binary log's state (the change log written by the writes). */
  public CommitWatch(Clock clock) {
    this(clock, false);
  }

  /**
   * @param logRequired whether a write must reach its host's binary log: true when the change log
   *     and the inverses are read from it ({@code changes.source: binlog}), so that a host whose
   *     binary log is off refuses writes
   */
  public CommitWatch(Clock clock, boolean logRequired) {
    this.clock = clock;
    this.logRequired = logRequired;
  }

  /** What makes a COMMIT wait without end, named in the report. */
  private static final String CAUSES = " (a full disk, or no replica confirming its writes?)";

  /** A COMMIT is sent to {@code host}; answers the token to {@link #answered} with. */
  public long sent(String host) {
    long token = tokens.incrementAndGet();
    inFlight.computeIfAbsent(host, name -> new ConcurrentHashMap<>()).put(token, clock.millis());
    return token;
  }

  /** The COMMIT of {@code token} was answered: {@code succeeded}, or failed. A success ends a stall. */
  public void answered(String host, long token, boolean succeeded) {
    Map<Long, Long> commits = inFlight.get(host);
    if (commits != null) {
      commits.remove(token);
    }
    if (succeeded) {
      stalledSince.remove(host);
    }
  }

  /**
   * Why {@code host}'s commits stall, or null while they do not: a COMMIT has been in flight for
   * half of {@code deadlineMs} or longer, or one was and no COMMIT has succeeded on the host since
   * (the stalled one may have been killed, and the next will stall the same way).
   *
   * <p>Half, not the whole deadline: the {@link QueryKiller} kills a COMMIT when its request's
   * deadline passes, a little before the COMMIT itself has waited a deadline. Judged at the whole
   * deadline, the first stalled COMMIT could be killed unseen, MariaDB turn its binary log off, and
   * the next COMMIT succeed: a stall never reported.
   */

  public String stalled(String host, long deadlineMs) {
    long thresholdMs = Math.max(1, deadlineMs / 2);
    long now = clock.millis();
    long oldest = oldestWaitMillis(host);
    if (oldest >= thresholdMs) {
      stalledSince.putIfAbsent(host, now - oldest);
      return "its commits stall: the oldest COMMIT in flight has waited " + oldest + " ms" + CAUSES;
    }
    Long since = stalledSince.get(host);
    return since == null ? null : "its commits stall: a COMMIT waited " + thresholdMs + " ms or more, "
        + (now - since) + " ms ago, and none has succeeded since" + CAUSES;
  }

  /** {@code host} refused a statement for lack of space or memory, with MySQL error {@code errorCode}. */
  public void refused(String host, int errorCode) {
    refusals.put(host, new Refusal(clock.millis(), errorCode));
  }

  /**
   * Why {@code host} is short of space or memory, or null: it refused a statement for it within
   * twice {@code deadlineMs}, the statement deadline.
   */
  public String shortOfSpace(String host, long deadlineMs) {
    Refusal last = refusals.get(host);
    if (last == null) {
      return null;
    }
    long ago = clock.millis() - last.atMillis();
    if (ago >= 2 * deadlineMs) {
      refusals.remove(host, last);
      return null;
    }
    return "it is out of space or memory: it refused a statement with MySQL error " + last.errorCode() + " "
        + ago + " ms ago (a full disk?)";
  }

  /** {@code host}'s binary log is off though configured on, for {@code why}; or, with null, on again. */
  public void binaryLogOff(String host, String why) {
    if (why == null) {
      unlogged.remove(host);
    } else {
      unlogged.put(host, why);
    }
  }

  /** Why {@code host}'s binary log is off though configured on, as last read; null while it is on. */
  public String binaryLogOff(String host) {
    return unlogged.get(host);
  }

  /**
   * Why a write to {@code host} is refused before anything is sent, or null while it is not: the
   * host's binary log is off, and writes must reach it.
   */
  public String refusesWrites(String host) {
    return logRequired ? binaryLogOff(host) : null;
  }

  /** How long the oldest COMMIT in flight on {@code host} has waited, in ms; 0 when none is in flight. */
  public long oldestWaitMillis(String host) {
    Map<Long, Long> commits = inFlight.get(host);
    if (commits == null || commits.isEmpty()) {
      return 0;
    }
    long now = clock.millis();
    long oldest = now;
    for (long sentAt : commits.values()) {
      oldest = Math.min(oldest, sentAt);
    }
    return now - oldest;
  }

  /** How many COMMITs are in flight on {@code host}. */
  public int inFlight(String host) {
    Map<Long, Long> commits = inFlight.get(host);
    return commits == null ? 0 : commits.size();
  }
}
