package io.quiver.store.internal.binlog;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.DeleteRowsEventData;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.MariadbGtidEventData;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.UpdateRowsEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import io.quiver.store.internal.sql.SqlNames;
import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * One host's binary log, read as a replica reads it, delivered as the committed transactions of its
 * shard databases with the rows they changed.
 *
 * <h2>Why</h2>
 * Every write Quiver makes is already in its host's binary log, in commit order, with the rows'
 * full images (ROW format, the hosts' settings for replication and shard moves). A change log
 * written from there costs the write nothing: no change row in its transaction and no numbering
 * pass after it (docs/design.md, "The change log written from the binary log"). This is how
 * Debezium, Maxwell and LinkedIn's Databus follow MySQL, and how Wormhole follows it for TAO's
 * caches; the reading itself is mysql-binlog-connector-java's, the library the first two use.
 * This class is the reading; nothing consumes a tail yet.
 *
 * <h2>Transactions and positions</h2>
 * A transaction arrives once its commit has been read (its {@code XID}, or the {@code COMMIT} or the
 * statement of a transaction without one), never in part: a tail that loses its connection in the
 * middle of one drops what it had read of it. Each arrives with the GTID position through it
 * ({@link TailedTransaction#through()}), which this class keeps itself, per GTID domain, from the
 * transactions it delivered — never the library's own, which it moves at a transaction's first
 * event. A reader that keeps, with what it did for a transaction, the position through it, and
 * starts its next tail there, sees every transaction once and none twice. So a tail does not
 * reconnect by itself: a lost connection, an event it cannot decode, or a listener that throws
 * ends it ({@link #ended()}), and its owner starts another from the last position it kept.
 *
 * <h2>Only the rows asked for are decoded</h2>
 * Row events of tables outside the shard databases, or of tables the caller does not want
 * ({@link Tables}), are skipped by their table id before their rows are decoded: a change log's
 * own rows carry each change's JSON, which nobody would read. Not for a measured gain: under the
 * writes mix a throwaway build reading through this class served as one decoding every event did,
 * spreads overlapping (benchmarks/README, "Again, beside a build reading through BinlogTail").
 *
 * <h2>Threads</h2>
 * The library's client blocks on its socket, so each tail reads on a daemon thread of its own,
 * named for its host, and calls its listener there: a listener on the request path hands the
 * transaction to its event loop and returns. MariaDB only: its GTIDs ({@code domain-server-sequence})
 * are what positions are kept in; a MySQL host is refused at start.
 */
public final class BinlogTail implements AutoCloseable {
  /**
   * Where a tail reads and as whom.
   *
   * @param host the MariaDB host's address
   * @param port its port
   * @param user a user with {@code REPLICATION SLAVE} (and {@code REPLICATION CLIENT}) on it
   * @param password its password, empty for none
   * @param serverId the id the tail presents to the host as a replica does: unique among the host's
   *     replicas and tails, 1 to 4294967295
   * @param connectTimeout how long {@link #start} waits for the connection (default {@value #DEFAULT_CONNECT_SECONDS} s)
   */
  public record Settings(String host, int port, String user, String password, long serverId, Duration connectTimeout) {
    public static final int DEFAULT_CONNECT_SECONDS = 10;

    public Settings {
      if (host == null || host.isBlank()) {
        throw new IllegalArgumentException("a tail needs its host's address");
      }
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("port " + port + " is outside 1..65535");
      }
      Objects.requireNonNull(user, "user");
      password = Objects.requireNonNullElse(password, "");
      if (serverId < 1 || serverId > 0xFFFF_FFFFL) {
        throw new IllegalArgumentException("server id " + serverId + " is outside 1..4294967295");
      }
      connectTimeout = Objects.requireNonNullElse(connectTimeout, Duration.ofSeconds(DEFAULT_CONNECT_SECONDS));
      if (connectTimeout.isNegative() || connectTimeout.isZero()) {
        throw new IllegalArgumentException("the connect timeout must be positive");
      }
    }

    public Settings(String host, int port, String user, String password, long serverId) {
      this(host, port, user, password, serverId, null);
    }
  }

  /** Which tables of the shard databases a tail decodes and delivers the rows of. */
  @FunctionalInterface
  public interface Tables {
    boolean wanted(int shard, String table);
  }

  /** Where committed transactions go, called on the tail's thread, one after another, in commit order. */
  @FunctionalInterface
  public interface Listener {
    void committed(TailedTransaction transaction);
  }

  /**
   * The library's logger, held so that its level stays set: it logs every connection at INFO
   * through java.util.logging, straight to the console, where Quiver's own logging goes through
   * SLF4J; its warnings are enough.
   */
  private static final Logger LIBRARY_LOG = quiet(Logger.getLogger(
      BinaryLogClient.class.getPackageName()));
  /** A GTID position: domain-server-sequence, comma-separated, one per domain. */
  private static final Pattern POSITION = Pattern.compile("(\\d+-\\d+-\\d+(,\\d+-\\d+-\\d+)*)?");
  /** The bytes a row event's table id takes, first in its body. */
  private static final int TABLE_ID_BYTES = 6;

  /** What a skipped row event leaves in place of its rows. */
  private enum Skipped implements EventData {
    ROWS
  }

  /** A table a row event names: its shard, its name, and how many columns its table map declares. */
  private record TableRef(int shard, String table, int columns) {}

  private final BinaryLogClient client;
  private final Tables tables;
  private final Listener listener;
  /** Per GTID domain, the last transaction delivered: the position through it. */
  private final Map<Long, String> position = new TreeMap<>();
  /** Table ids as the log's table maps name them; null for a table whose rows are skipped. */
  private final Map<Long, TableRef> tableIds = new HashMap<>();
  /** Completed when the tail ends: with why, or with null when it was closed. */
  private final CompletableFuture<Throwable> ended = new CompletableFuture<>();
  /** Set by {@link #close}, so the disconnection it makes is not taken for the host's. */
  private volatile boolean closing;
  /** The transaction being read: its GTID and domain, and the rows read so far; null between transactions. */
  private String gtid;
  private long domain;
  private boolean standalone;
  private List<RowChange> rows;

  private BinlogTail(Settings settings, String after, Tables tables, Listener listener) {
    this.tables = Objects.requireNonNull(tables, "tables");
    this.listener = Objects.requireNonNull(listener, "listener");
    if (after == null || !POSITION.matcher(after).matches()) {
      throw new IllegalArgumentException("'" + after + "' is not a MariaDB GTID position (domain-server-sequence, …)");
    }
    for (String last : after.isEmpty() ? new String[0] : after.split(",")) {
      position.put(Long.parseLong(last.substring(0, last.indexOf('-'))), last);
    }
    this.client = new BinaryLogClient(settings.host(), settings.port(), settings.user(), settings.password());
    client.setServerId(settings.serverId());
    client.setGtidSet(after);
    client.setKeepAlive(false);
    client.setThreadFactory(work -> {
      Thread thread = new Thread(work, "binlog-tail-" + settings.host() + ":" + settings.port());
      thread.setDaemon(true);
      return thread;
    });
    client.setEventDeserializer(deserializer());
    client.registerEventListener(this::read);
    client.registerLifecycleListener(new BinaryLogClient.AbstractLifecycleListener() {
      @Override
      public void onCommunicationFailure(BinaryLogClient ended, Exception cause) {
        fail(cause);
      }

      @Override
      public void onEventDeserializationFailure(BinaryLogClient ended, Exception cause) {
        fail(cause);
      }

      // A connection the host ends (its dump thread killed, the server shutting down) reaches
      // the library as the end of its stream, not as a failure: it disconnects and says only this.
      @Override
      public void onDisconnect(BinaryLogClient ended) {
        if (!closing) {
          fail(new IOException("host " + settings.host() + ":" + settings.port() + " ended the tail's connection"));
        }
      }
    });
  }

  /**
   * Starts reading {@code settings}' host after {@code after}, a GTID position (the host's
   * {@code @@gtid_binlog_pos} to read from now, a {@link TailedTransaction#through()} to resume
   * after that transaction, empty for everything the host's log still holds), and answers once
   * connected: it blocks its caller for up to the settings' connect timeout, so an owner on an
   * event loop calls it from a worker ({@code executeBlocking}), as fleet work runs.
   *
   * @throws IOException when the host cannot be read: not reachable, refusing the user, or not
   *     MariaDB. A host that lets the user in but not replicate says so once reading begins, which
   *     ends the tail ({@link #ended()}); the fixtures' hosts check no privileges, so that is untested
   * @throws TimeoutException when it is not connected within the settings' timeout
   */
  public static BinlogTail start(Settings settings, String after, Tables tables, Listener listener)
      throws IOException, TimeoutException {
    BinlogTail tail = new BinlogTail(settings, after, tables, listener);
    try {
      tail.client.connect(settings.connectTimeout().toMillis());
    } catch (IOException | TimeoutException | RuntimeException e) {
      tail.close();
      throw e;
    }
    if (!Boolean.TRUE.equals(tail.client.getMariaDB())) {
      tail.close();
      throw new IOException(settings.host() + ":" + settings.port() + " is not MariaDB; a tail reads MariaDB's GTIDs");
    }
    return tail;
  }

  private static Logger quiet(Logger logger) {
    logger.setLevel(Level.WARNING);
    return logger;
  }

  /**
   * Completed when the tail ends, on the thread that ended it: with why — its connection lost, an
   * event it could not decode, or its listener's failure — or with null when it was closed. Its
   * owner starts the next tail from there.
   */
  public CompletableFuture<Throwable> ended() {
    return ended.copy();
  }

  /** Why the tail ended, if it ended by a failure. */
  public Optional<Throwable> failure() {
    return Optional.ofNullable(ended.getNow(null));
  }

  /** Whether it still reads. */
  public boolean connected() {
    return client.isConnected();
  }

  @Override
  public void close() {
    closing = true;
    try {
      client.disconnect();
    } catch (IOException e) {
      // Closing: the socket is gone either way.
    }
    ended.complete(null);
  }

  /** The library's deserializer, with every row event's rows skipped unless its table is wanted. */
  private EventDeserializer deserializer() {
    EventDeserializer deserializer = new EventDeserializer();
    deserializer.setCompatibilityMode(EventDeserializer.CompatibilityMode.CHAR_AND_BINARY_AS_BYTE_ARRAY,
        EventDeserializer.CompatibilityMode.DATE_AND_TIME_AS_LONG_MICRO);
    for (EventType type : List.of(EventType.WRITE_ROWS, EventType.EXT_WRITE_ROWS, EventType.UPDATE_ROWS,
        EventType.EXT_UPDATE_ROWS, EventType.DELETE_ROWS, EventType.EXT_DELETE_ROWS)) {
      deserializer.setEventDataDeserializer(type, skipping(deserializer.getEventDataDeserializer(type)));
    }
    return deserializer;
  }

  /**
   * {@code decoding}, for the events whose table is wanted; the others are answered {@link
   * Skipped#ROWS} having read their table id alone (the library skips the rest of an event's body
   * after its deserializer). The table's map came before the event, and the listener has read it.
   */
  private EventDataDeserializer<EventData> skipping(EventDataDeserializer<?> decoding) {
    return in -> {
      byte[] id = in.read(TABLE_ID_BYTES);
      long tableId = 0;
      for (int i = TABLE_ID_BYTES - 1; i >= 0; i--) {
        tableId = tableId << 8 | (id[i] & 0xFF);
      }
      if (tableIds.get(tableId) == null) {
        return Skipped.ROWS;
      }
      byte[] rest = in.read(in.available());
      byte[] body = Arrays.copyOf(id, TABLE_ID_BYTES + rest.length);
      System.arraycopy(rest, 0, body, TABLE_ID_BYTES, rest.length);
      return decoding.deserialize(new ByteArrayInputStream(body));
    };
  }

  /** One event, on the tail's thread. */
  private void read(Event event) {
    if (ended.isDone()) {
      return;
    }
    try {
      EventData data = event.getData();
      switch (event.getHeader().getEventType()) {
        case MARIADB_GTID -> begin((MariadbGtidEventData) data);
        case TABLE_MAP -> map((TableMapEventData) data);
        case WRITE_ROWS, EXT_WRITE_ROWS -> inserted(data);
        case UPDATE_ROWS, EXT_UPDATE_ROWS -> updated(data);
        case DELETE_ROWS, EXT_DELETE_ROWS -> deleted(data);
        case XID -> commit();
        case QUERY -> query((QueryEventData) data);
        default -> { }
      }
    } catch (RuntimeException | Error e) {
      fail(e);
    }
  }

  private void begin(MariadbGtidEventData data) {
    gtid = data.getDomainId() + "-" + data.getServerId() + "-" + data.getSequence();
    domain = data.getDomainId();
    standalone = (data.getFlags() & MariadbGtidEventData.FL_STANDALONE) != 0;
    rows = new ArrayList<>();
  }

  private void map(TableMapEventData data) {
    int shard = SqlNames.shardOf(data.getDatabase());
    tableIds.put(data.getTableId(), shard >= 0 && tables.wanted(shard, data.getTable())
        ? new TableRef(shard, data.getTable(), data.getColumnTypes().length) : null);
  }

  private void inserted(EventData data) {
    if (data instanceof WriteRowsEventData written) {
      TableRef table = wanted(written.getTableId(), written.getIncludedColumns());
      written.getRows().forEach(row -> add(table, RowChange.Kind.INSERT, null, row));
    }
  }

  private void updated(EventData data) {
    if (data instanceof UpdateRowsEventData updated) {
      wanted(updated.getTableId(), updated.getIncludedColumnsBeforeUpdate());
      TableRef table = wanted(updated.getTableId(), updated.getIncludedColumns());
      updated.getRows().forEach(row -> add(table, RowChange.Kind.UPDATE, row.getKey(), row.getValue()));
    }
  }

  private void deleted(EventData data) {
    if (data instanceof DeleteRowsEventData deleted) {
      TableRef table = wanted(deleted.getTableId(), deleted.getIncludedColumns());
      deleted.getRows().forEach(row -> add(table, RowChange.Kind.DELETE, row, null));
    }
  }

  /**
   * The table of a decoded row event, whose images must hold every column, as its table map
   * declares them: a row's values are named by their positions ({@link RowChange}).
   */
  private TableRef wanted(long tableId, BitSet included) {
    TableRef table = tableIds.get(tableId);
    if (included.cardinality() != table.columns()) {
      throw new IllegalStateException("the host logged an image of " + included.cardinality() + " of the "
          + table.columns() + " columns of " + table.table() + "; a tail needs binlog_row_image=FULL");
    }
    return table;
  }

  private void add(TableRef table, RowChange.Kind kind, Serializable[] before, Serializable[] after) {
    if (rows == null) {
      throw new IllegalStateException("a row event of " + table.table() + " outside a transaction");
    }
    rows.add(new RowChange(table.shard(), table.table(), kind, image(before), image(after)));
  }

  private static List<Object> image(Serializable[] values) {
    return values == null ? null : Collections.unmodifiableList(Arrays.asList((Object[]) values));
  }

  /** {@code BEGIN} opens what {@code XID} closes; a transaction without one ends with its statement or its {@code COMMIT}. */
  private void query(QueryEventData data) {
    if (rows != null && (standalone || "COMMIT".equalsIgnoreCase(data.getSql()))) {
      commit();
    }
  }

  private void commit() {
    if (rows == null) {
      return;
    }
    position.put(domain, gtid);
    TailedTransaction committed = new TailedTransaction(gtid, String.join(",", position.values()), rows);
    gtid = null;
    rows = null;
    listener.committed(committed);
  }

  private void fail(Throwable cause) {
    ended.complete(cause);
    rows = null;
    close();
  }
}
