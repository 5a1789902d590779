package io.quiver.store.internal.sql;

import io.quiver.store.PoolSettings;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClientOptions;
import io.vertx.mysqlclient.MySQLBuilder;
import io.vertx.mysqlclient.MySQLConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reactive MySQL pool per host, shared by every shard on it, created and retired as the
 * shard map's hosts come, go or change address.
 *
 * <p>A retired pool is closed only after a grace period: requests that started on the previous
 * shard map still hold it, and must be allowed to finish there.
 */
public final class HostPools {
  private static final Logger log = LoggerFactory.getLogger(HostPools.class);
  /** How long a retired pool stays open for the requests still using it. */
  public static final Duration RETIRE_GRACE = Duration.ofSeconds(30);

  private final Vertx vertx;
  private final PoolSettings settings;
  private final QueryKiller killer;
  private final PerHost<Pool> pools;
  private boolean closed;

  /** Pools whose sessions nobody kills (a test's). */
  public HostPools(Vertx vertx, PoolSettings settings) {
    this(vertx, settings, null);
  }

  /** @param killer told every session these pools open, so that what outlives its deadline can be killed */
  public HostPools(Vertx vertx, PoolSettings settings, QueryKiller killer) {
    this.vertx = vertx;
    this.settings = settings;
    this.killer = killer;
    this.pools = new PerHost<>(this::create, this::retire);
  }

  /**
   * Brings the pools in line with the map's hosts and answers the pool of each host. Pools of
   * hosts that left the map, or whose primary moved, are retired.
   */
  public synchronized Map<String, Pool> apply(ShardMap map) {
    if (closed) {
      throw new IllegalStateException("host pools are closed");
    }
    pools.apply(map);
    return Map.copyOf(pools.values());
  }

  public synchronized Future<Void> close() {
    closed = true;
    List<Future<Void>> closing = new ArrayList<>();
    pools.clear().forEach(pool -> closing.add(pool.close()));
    return Future.join(closing).mapEmpty();
  }

  private Pool create(Host host) {
    return pool(vertx, host, settings, requestPool("quiver-" + host.name(), settings.maxSize(), settings),
        killer == null ? null : id -> killer.opened(host.name(), id));
  }

  /**
   * The options of a pool requests borrow from: {@code maxSize} connections, the settings' wait
   * queue and acquire timeout, idle connections closed after a minute.
   */
  static PoolOptions requestPool(String name, int maxSize, PoolSettings settings) {
    return new PoolOptions()
        .setName(name)
        .setMaxSize(maxSize)
        .setMaxWaitQueueSize(settings.maxWaitQueue())
        .setConnectionTimeout((int) settings.acquireTimeout().toMillis())
        .setConnectionTimeoutUnit(TimeUnit.MILLISECONDS)
        .setIdleTimeout(60)
        .setIdleTimeoutUnit(TimeUnit.SECONDS);
  }

  /** The options of a probe's pool: {@code maxSize} connections, each connect bounded by {@code downAfter}. */
  static PoolOptions probePool(String name, int maxSize, PoolSettings settings) {
    return new PoolOptions()
        .setName(name)
        .setMaxSize(maxSize)
        .setConnectionTimeout((int) settings.downAfter().toMillis())
        .setConnectionTimeoutUnit(TimeUnit.MILLISECONDS);
  }

  /**
   * A pool of {@code options} to {@code host}'s primary, its sessions prepared as every Quiver
   * session is; each session's server thread id is told to {@code opened} (null: to nobody).
   */
  static Pool pool(Vertx vertx, Host host, PoolSettings settings, PoolOptions options, LongConsumer opened) {
    MySQLConnectOptions connect = new MySQLConnectOptions()
        .setHost(host.primaryHost())
        .setPort(host.primaryPort())
        .setUser(settings.user())
        .setPassword(settings.password())
        .setCharset("utf8mb4")
        .setCollation("utf8mb4_bin")
        // Code that branches on row counts after an upsert needs changed rows, not found rows.
        .setUseAffectedRows(true)
        .setCachePreparedStatements(true)
        .setPreparedStatementCacheMaxSize(settings.statementCacheSize())
        .setPipeliningLimit(settings.pipeliningLimit());
    NetClientOptions net = new NetClientOptions()
        .setConnectTimeout((int) settings.connectTimeout().toMillis())
        .setTcpNoDelay(true)
        .setTcpKeepAlive(true);
    return MySQLBuilder.pool()
        .with(options)
        .with(net)
        .connectingTo(connect)
        .withConnectHandler(connection -> prepareSession(connection, opened))
        .using(vertx)
        .build();
  }

  /**
   * Every pooled session runs at READ COMMITTED. Under REPEATABLE READ a locking read of a
   * missing row takes a gap lock, and two writers adding different edges into the same gap
   * deadlock each other; the store serializes on row locks instead (see EdgeStore).
   */
  private static void prepareSession(SqlConnection connection, LongConsumer opened) {
    connection.query("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED").execute()
        .compose(done -> connection.query("SET time_zone = '+00:00'").execute())
        .compose(done -> opened == null ? Future.succeededFuture()
            : connection.query("SELECT CONNECTION_ID()").execute()
                .onSuccess(rows -> opened.accept(rows.iterator().next().getLong(0))))
        .onFailure(failure -> log.warn("could not prepare a MySQL session", failure))
        .eventually(connection::close);
  }

  private void retire(Pool pool, String why) {
    log.info("{}: its pool closes in {} s", why, RETIRE_GRACE.toSeconds());
    vertx.setTimer(RETIRE_GRACE.toMillis(), timer -> pool.close());
  }
}
