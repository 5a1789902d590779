package io.quiver.store;

import io.quiver.core.GraphException;
import java.time.Duration;
import java.util.Objects;

/**
 * How each host's reactive pool is sized and bounded.
 *
 * @param user MySQL user
 * @param password MySQL password (may be empty)
 * @param maxSize connections per host, shared by all the shards on it
 * @param maxWaitQueue requests allowed to wait for a connection; beyond it a request fails at
 *     once with UNAVAILABLE instead of queueing without bound
 * @param connectTimeout how long opening a connection may take
 * @param acquireTimeout how long a request may wait for a pooled connection
 * @param statementCacheSize prepared statements cached per connection; bounded because MySQL
 *     refuses more than max_prepared_stmt_count (16,382 by default) server-wide
 * @param pipeliningLimit statements in flight on one connection
 * @param statementTimeout how long a statement, or a transaction's statements together, may take
 *     on a host once it has a connection; past it the request gets 503 and a transaction is rolled
 *     back, never committed later. Well under the HTTP request timeout, so that a frozen host
 *     is named in the answer instead of a generic timeout
 * @param downAfter a host whose probe (one {@code SELECT 1} every quarter of this) has not been
 *     answered for this long is down: its shards answer 503 at once, naming it, until a probe
 *     is answered again
 * @param writeTransactions transactions of client writes (edges, node updates) in flight per
 *     host; the writes that arrive while all are busy share the next one (group commit: one
 *     COMMIT and one log flush for all of them). Fewer make larger groups; more let writes wait
 *     less behind one held up by a lock
 */
public record PoolSettings(
    String user,
    String password,
    int maxSize,
    int maxWaitQueue,
    Duration connectTimeout,
    Duration acquireTimeout,
    int statementCacheSize,
    int pipeliningLimit,
    Duration statementTimeout,
    Duration downAfter,
    int writeTransactions) {

  public static final int DEFAULT_MAX_SIZE = 16;
  public static final int DEFAULT_MAX_WAIT_QUEUE = 256;
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofMillis(500);
  public static final Duration DEFAULT_ACQUIRE_TIMEOUT = Duration.ofSeconds(2);
  public static final int DEFAULT_STATEMENT_CACHE_SIZE = 256;
  public static final int DEFAULT_PIPELINING_LIMIT = 16;
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(3);
  public static final Duration DEFAULT_DOWN_AFTER = Duration.ofSeconds(1);
  /** Two: a second transaction goes on while one waits for a lock (benchmarks/README, "Group commit"). */
  public static final int DEFAULT_WRITE_TRANSACTIONS = 2;

  /** Settings with the default transactions of grouped writes per host. */
  public PoolSettings(String user, String password, int maxSize, int maxWaitQueue, Duration connectTimeout,
      Duration acquireTimeout, int statementCacheSize, int pipeliningLimit, Duration statementTimeout,
      Duration downAfter) {
    this(user, password, maxSize, maxWaitQueue, connectTimeout, acquireTimeout, statementCacheSize, pipeliningLimit,
        statementTimeout, downAfter, DEFAULT_WRITE_TRANSACTIONS);
  }

  /** Settings with the default statement timeout and down-after. */
  public PoolSettings(String user, String password, int maxSize, int maxWaitQueue, Duration connectTimeout,
      Duration acquireTimeout, int statementCacheSize, int pipeliningLimit) {
    this(user, password, maxSize, maxWaitQueue, connectTimeout, acquireTimeout, statementCacheSize, pipeliningLimit,
        DEFAULT_STATEMENT_TIMEOUT, DEFAULT_DOWN_AFTER);
  }

  public PoolSettings {
    Objects.requireNonNull(user, "user");
    password = Objects.requireNonNullElse(password, "");
    requirePositive("maxSize", maxSize);
    requirePositive("maxWaitQueue", maxWaitQueue);
    requirePositive("statementCacheSize", statementCacheSize);
    requirePositive("pipeliningLimit", pipeliningLimit);
    requirePositive("writeTransactions", writeTransactions);
    requirePositive("connectTimeout", connectTimeout);
    requirePositive("acquireTimeout", acquireTimeout);
    requirePositive("statementTimeout", statementTimeout);
    requirePositive("downAfter", downAfter);
    if (downAfter.toMillis() < 100) {
      throw GraphException.invalid("downAfter must be at least 100 ms, got " + downAfter.toMillis() + " ms");
    }
  }

  /** Connections per host kept apart for background work: the outbox, cascades, repair. */
  public static final int BACKGROUND_MAX_SIZE = 4;

  /**
   * The same account with a small pool of {@link #BACKGROUND_MAX_SIZE} connections, for work that
   * must never take connections from requests.
   */
  public PoolSettings forBackground() {
    return new PoolSettings(user, password, Math.min(maxSize, BACKGROUND_MAX_SIZE), maxWaitQueue, connectTimeout,
        acquireTimeout, statementCacheSize, pipeliningLimit, statementTimeout, downAfter, writeTransactions);
  }

  public static PoolSettings defaults(String user, String password) {
    return new PoolSettings(user, password, DEFAULT_MAX_SIZE, DEFAULT_MAX_WAIT_QUEUE,
        DEFAULT_CONNECT_TIMEOUT, DEFAULT_ACQUIRE_TIMEOUT, DEFAULT_STATEMENT_CACHE_SIZE,
        DEFAULT_PIPELINING_LIMIT);
  }

  private static void requirePositive(String name, int value) {
    if (value <= 0) {
      throw GraphException.invalid(name + " must be positive, got " + value);
    }
  }

  private static void requirePositive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw GraphException.invalid(name + " must be a positive duration, got " + value);
    }
  }
}
