package io.quiver.store.internal.sql;

import io.quiver.store.PoolSettings;
import io.quiver.store.shard.Host;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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

  /** Opens {@code sessions} sessions, after creating {@code database} and running {@code setup} there. */
  public OneHost(String database, int sessions, String... setup) throws Exception {
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
        Duration.ofMillis(500), Duration.ofSeconds(2), 16, 16, Duration.ofSeconds(10),
        PoolSettings.DEFAULT_DOWN_AFTER);
    pool = HostPools.pool(vertx, new Host("h2", address, List.of()), settings,
        new PoolOptions().setMaxSize(sessions), null);
    client = client(new MapWrites(backend::shardMap, version -> {}));
    route = new ShardRoute(4, "h2", pool, false);
  }

  /** A client over this host's pool whose writes are fenced by {@code fence} (a shard map of the test's own). */
  public ShardClient client(MapWrites fence) {
    return new ShardClient(vertx, settings, fence);
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
