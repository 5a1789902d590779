package io.quiver.store.internal.sql;

import io.quiver.store.PoolSettings;
import io.quiver.store.shard.Host;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnection;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A {@link ShardClient} over a pool of a few sessions to the test backend's second host, with a
 * database of the test's own there: for tests of what a transaction's statements do on a real
 * session. Closed by {@link #close}, which drops the database.
 */
public final class OneHost implements AutoCloseable {
  public final Vertx vertx = Vertx.vertx();
  public final Pool pool;
  public final ShardClient client;
  public final ShardRoute route;
  private final String address;
  private final String database;
  private final PoolSettings settings;

  /**
   * Opens {@code sessions} sessions, after creating {@code database} and running {@code setup} there;
   * a borrower waits for one as long as it takes.
   */
  public OneHost(String database, int sessions, String... setup) throws Exception {
    this(database, sessions, null, setup);
  }

  /**
   * As {@link #OneHost(String, int, String...)}, the pool's options a server's ({@link
   * HostPools#requestPool}): a borrower waits at most {@code acquire} (null: as long as it takes).
   */
  public OneHost(String database, int sessions, Duration acquire, String... setup) throws Exception {
    TestBackend backend = TestBackend.get();
    this.address = backend.hosts().addresses().get(1);
    this.database = database;
    try (Connection admin = admin(); Statement sql = admin.createStatement()) {
      sql.execute("CREATE DATABASE IF NOT EXISTS " + database);
      for (String statement : setup) {
        sql.execute(statement);
      }
    }
    settings = new PoolSettings(backend.hosts().user(), backend.hosts().password(), sessions, 256,
        Duration.ofMillis(500), acquire == null ? Duration.ofSeconds(2) : acquire, 16, 16, Duration.ofSeconds(10),
        PoolSettings.DEFAULT_DOWN_AFTER);
    pool = HostPools.pool(vertx, new Host("h2", address, List.of()), settings, acquire == null
        ? new PoolOptions().setMaxSize(sessions) : HostPools.requestPool("one-host", sessions, settings), null);
    client = client(anyMap());
    route = new ShardRoute(4, "h2", pool, false);
  }

  /** A client over this host's pool whose writes are fenced by {@code fence} (a shard map of the test's own). */
  public ShardClient client(MapWrites fence) {
    return new ShardClient(vertx, settings, fence);
  }

  /** As {@link #client(MapWrites)}, each statement and transaction given {@code deadline} (the host's 10 s otherwise). */
  public ShardClient client(MapWrites fence, Duration deadline) {
    return new ShardClient(vertx, new PoolSettings(settings.user(), settings.password(), settings.maxSize(),
        settings.maxWaitQueue(), settings.connectTimeout(), settings.acquireTimeout(), settings.statementCacheSize(),
        settings.pipeliningLimit(), deadline, settings.downAfter(), settings.writeTransactions()), fence);
  }

  /** A client over this host's pool that tells {@code commits} of its COMMITs and asks it whether the host takes writes. */
  public ShardClient client(CommitWatch commits) {
    return new ShardClient(vertx, settings, anyMap(), commits, new QueryKiller(settings.statementTimeout().toMillis()));
  }

  /** A fence that lets every write through: the test backend's map, which never moves a shard of the test's own. */
  private static MapWrites anyMap() {
    return new MapWrites(TestBackend.get()::shardMap, version -> {});
  }

  /** A JDBC session of the test's own to the host. */
  public Connection admin() throws Exception {
    return TestBackend.get().connect(address);
  }

  /** Runs {@code statement} on a session of the test's own. */
  public void execute(String statement) throws Exception {
    try (Connection admin = admin(); Statement sql = admin.createStatement()) {
      sql.execute(statement);
    }
  }

  /** A writable route to {@code shard} on this host, for a test's own shard database ({@code db<shard>}). */
  public ShardRoute route(int shard) {
    return new ShardRoute(shard, "h2", pool, true);
  }

  /** What statements answered, and how far one of their session's status counters moved while they ran. */
  public record Counted<T>(T answer, long counted) {}

  /**
   * Runs {@code statements} on one session of the pool, reading the session status counter
   * {@code counter} ({@code SHOW SESSION STATUS}: {@code Rows_read}, {@code Com_stmt_execute}, …)
   * around them.
   */
  public <T> Counted<T> counting(String counter, Function<SqlConnection, Future<T>> statements) {
    SqlConnection session = pool.getConnection().await();
    try {
      long before = status(session, counter);
      T answer = statements.apply(session).await();
      return new Counted<>(answer, status(session, counter) - before);
    } finally {
      session.close().await();
    }
  }

  /** A status counter's value; {@code SHOW} takes no parameters, so the name is checked instead. */
  private static long status(SqlConnection session, String counter) {
    if (!counter.matches("[A-Za-z_]+")) {
      throw new IllegalArgumentException("not a status counter's name: " + counter);
    }
    return Long.parseLong(session.query("SHOW SESSION STATUS LIKE '" + counter + "'").execute().await()
        .iterator().next().getString(1));
  }

  /** The first column of {@code query}'s rows, as strings. */
  public List<String> column(String query) throws Exception {
    try (Connection admin = admin(); Statement sql = admin.createStatement(); ResultSet rows = sql.executeQuery(query)) {
      List<String> values = new ArrayList<>();
      while (rows.next()) {
        values.add(rows.getString(1));
      }
      return values;
    }
  }

  @Override
  public void close() throws Exception {
    pool.close().await();
    vertx.close().await();
    execute("DROP DATABASE " + database);
  }
}
