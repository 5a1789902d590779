package io.quiver.store.internal.binlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.quiver.store.shard.Host;
import io.quiver.store.testing.TestBackend;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A tail of the test backend's first host, against tables of the test's own in a shard database
 * ({@code db00003}) and outside any ({@code quiver_tail_scratch}). Other tests' writes to the host
 * arrive too, as transactions without rows of these tables, so each test looks only at the
 * transactions that carry its rows.
 */
class BinlogTailTest {
  private static final String PROBE = "`db00003`.`tail_probe`";
  private static final String OTHER = "`db00003`.`tail_other`";
  private static final String OUTSIDE = "`quiver_tail_scratch`.`t`";
  private static final AtomicLong SERVER_IDS = new AtomicLong(4_000_000_000L);
  private static String address;

  private final BlockingQueue<TailedTransaction> delivered = new LinkedBlockingQueue<>();
  private final List<BinlogTail> tails = new ArrayList<>();
  private Connection session;

  @BeforeAll
  static void tables() throws Exception {
    address = TestBackend.get().addressOf(3);
    try (Connection admin = TestBackend.get().connect(address); Statement sql = admin.createStatement()) {
      ResultSet version = sql.executeQuery("SELECT VERSION()");
      version.next();
      assumeTrue(version.getString(1).contains("MariaDB"), "a tail reads MariaDB's GTIDs");
      sql.execute("CREATE DATABASE IF NOT EXISTS quiver_tail_scratch");
      sql.execute("CREATE TABLE IF NOT EXISTS " + PROBE
          + " (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, body JSON NULL, n INT NOT NULL) ENGINE=InnoDB");
      sql.execute("CREATE TABLE IF NOT EXISTS " + OTHER + " (id BIGINT NOT NULL PRIMARY KEY) ENGINE=InnoDB");
      sql.execute("CREATE TABLE IF NOT EXISTS " + OUTSIDE + " (id BIGINT NOT NULL PRIMARY KEY) ENGINE=InnoDB");
    }
  }

  @AfterAll
  static void dropTables() throws Exception {
    try (Connection admin = TestBackend.get().connect(address); Statement sql = admin.createStatement()) {
      sql.execute("DROP TABLE IF EXISTS " + PROBE);
      sql.execute("DROP TABLE IF EXISTS " + OTHER);
      sql.execute("DROP DATABASE IF EXISTS quiver_tail_scratch");
    }
  }

  @BeforeEach
  void emptyTables() throws Exception {
    session = TestBackend.get().connect(address);
    try (Statement sql = session.createStatement()) {
      sql.execute("DELETE FROM " + PROBE);
      sql.execute("DELETE FROM " + OTHER);
      sql.execute("DELETE FROM " + OUTSIDE);
    }
  }

  @AfterEach
  void closeTails() throws Exception {
    tails.forEach(BinlogTail::close);
    tails.forEach(tail -> assertThat(tail.ended()).isDone());
    session.close();
  }

  @Test
  void aCommittedTransactionArrivesWholeWithItsRowsImagesInOrderAndItsGtid() throws Exception {
    commit("INSERT INTO " + PROBE + " VALUES (2, NULL, 0)");
    tail(hostPosition());

    String gtid = commit("INSERT INTO " + PROBE + " VALUES (1, '{\"a\": 1}', 5)",
        "UPDATE " + PROBE + " SET n = 6 WHERE id = 1",
        "DELETE FROM " + PROBE + " WHERE id = 2");

    TailedTransaction transaction = nextWithRows();
    assertThat(transaction.gtid()).isEqualTo(gtid);
    assertThat(transaction.through()).contains(gtid);
    assertThat(transaction.rows()).extracting(RowChange::kind)
        .containsExactly(RowChange.Kind.INSERT, RowChange.Kind.UPDATE, RowChange.Kind.DELETE);
    RowChange inserted = transaction.rows().get(0);
    assertThat(inserted.shard()).isEqualTo(3);
    assertThat(inserted.table()).isEqualTo("tail_probe");
    assertThat(inserted.before()).isNull();
    assertThat(inserted.after().get(0)).isEqualTo(1L);
    assertThat(text(inserted.after().get(1))).isEqualTo("{\"a\": 1}");
    assertThat(inserted.after().get(2)).isEqualTo(5);
    RowChange updated = transaction.rows().get(1);
    assertThat(updated.before().get(2)).isEqualTo(5);
    assertThat(updated.after().get(2)).isEqualTo(6);
    RowChange removed = transaction.rows().get(2);
    assertThat(removed.after()).isNull();
    assertThat(removed.value(0)).isEqualTo(2L);
    assertThat(removed.value(1)).isNull();
  }

  @Test
  void aRolledBackTransactionNeverArrives() throws Exception {
    tail(hostPosition());

    session.setAutoCommit(false);
    try (Statement sql = session.createStatement()) {
      sql.execute("INSERT INTO " + PROBE + " VALUES (7, NULL, 7)");
    }
    session.rollback();
    session.setAutoCommit(true);
    commit("INSERT INTO " + PROBE + " VALUES (8, NULL, 8)");

    assertThat(nextWithRows().rows()).singleElement().satisfies(row -> assertThat(row.value(0)).isEqualTo(8L));
  }

  @Test
  void aTailStartedAtATransactionsPositionDeliversExactlyTheTransactionsAfterIt() throws Exception {
    BinlogTail first = tail(hostPosition());
    for (long id = 10; id <= 12; id++) {
      commit("INSERT INTO " + PROBE + " VALUES (" + id + ", NULL, 0)");
    }
    TailedTransaction tenth = nextWithRows();
    assertThat(tenth.rows().get(0).value(0)).isEqualTo(10L);
    nextWithRows();
    nextWithRows();
    first.close();
    delivered.clear();

    tail(tenth.through());

    assertThat(nextWithRows().rows().get(0).value(0)).isEqualTo(11L);
    assertThat(nextWithRows().rows().get(0).value(0)).isEqualTo(12L);
    commit("INSERT INTO " + PROBE + " VALUES (13, NULL, 0)");
    assertThat(nextWithRows().rows().get(0).value(0)).isEqualTo(13L);
  }

  @Test
  void onlyTheRowsOfTheTablesAskedForArriveAndNoTableOutsideTheShardDatabasesIsAsked() throws Exception {
    List<String> asked = new CopyOnWriteArrayList<>();
    BinlogTail.Tables probeOnly = (shard, table) -> {
      asked.add(shard + "/" + table);
      return table.equals("tail_probe");
    };
    tails.add(BinlogTail.start(settings(), hostPosition(), probeOnly, delivered::add));

    String gtid = commit("INSERT INTO " + OTHER + " VALUES (1)", "INSERT INTO " + OUTSIDE + " VALUES (1)",
        "INSERT INTO " + PROBE + " VALUES (20, NULL, 0)", "INSERT INTO " + OTHER + " VALUES (2)");

    TailedTransaction transaction = nextWithRows();
    assertThat(transaction.gtid()).isEqualTo(gtid);
    assertThat(transaction.rows()).singleElement()
        .satisfies(row -> assertThat(row.table()).isEqualTo("tail_probe"));
    assertThat(asked).contains("3/tail_other", "3/tail_probe").noneMatch(table -> table.endsWith("/t"));
  }

  @Test
  void aListenerThatThrowsEndsTheTailAndNothingAfterArrives() throws Exception {
    RuntimeException refused = new IllegalStateException("the listener's own failure");
    BinlogTail tail = BinlogTail.start(settings(), hostPosition(), (shard, table) -> table.equals("tail_probe"),
        transaction -> {
          if (!transaction.rows().isEmpty()) {
            delivered.add(transaction);
            throw refused;
          }
        });
    tails.add(tail);

    commit("INSERT INTO " + PROBE + " VALUES (30, NULL, 0)");
    assertThat(nextWithRows().rows().get(0).value(0)).isEqualTo(30L);
    commit("INSERT INTO " + PROBE + " VALUES (31, NULL, 0)");

    assertThat(tail.ended()).succeedsWithin(Duration.ofSeconds(10)).isSameAs(refused);
    assertThat(tail.failure()).containsSame(refused);
    assertThat(tail.connected()).isFalse();
    assertThat(delivered).isEmpty();
  }

  @Test
  void aRowImageWithoutEveryColumnEndsTheTailSayingWhy() throws Exception {
    commit("INSERT INTO " + PROBE + " VALUES (40, NULL, 0)");
    BinlogTail tail = tail(hostPosition());

    try (Statement sql = session.createStatement()) {
      sql.execute("SET SESSION binlog_row_image = 'MINIMAL'");
      sql.execute("UPDATE " + PROBE + " SET n = 1 WHERE id = 40");
      sql.execute("SET SESSION binlog_row_image = 'FULL'");
    }
    commit("INSERT INTO " + PROBE + " VALUES (41, NULL, 0)");

    assertThat(tail.ended()).succeedsWithin(Duration.ofSeconds(10)).asInstanceOf(InstanceOfAssertFactories.THROWABLE)
        .hasMessageContaining("image of 1 of the 3 columns of tail_probe").hasMessageContaining("binlog_row_image=FULL");
    assertThat(delivered).noneMatch(transaction -> !transaction.rows().isEmpty());
  }

  @Test
  void aConnectionTheHostEnds_endsTheTail_sayingSo() throws Exception {
    BinlogTail tail = tail(hostPosition());
    commit("INSERT INTO " + PROBE + " VALUES (50, NULL, 0)");
    nextWithRows();
    try (Statement sql = session.createStatement();
        ResultSet dumps = sql.executeQuery(
            "SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'")) {
      List<Long> ids = new ArrayList<>();
      while (dumps.next()) {
        ids.add(dumps.getLong(1));
      }
      assertThat(ids).isNotEmpty();
      for (long id : ids) {
        try (Statement kill = session.createStatement()) {
          kill.execute("KILL " + id);
        }
      }
    }

    assertThat(tail.ended()).succeedsWithin(Duration.ofSeconds(10)).asInstanceOf(InstanceOfAssertFactories.THROWABLE)
        .hasMessageContaining("ended the tail's connection");
    assertThat(tail.failure()).isPresent();
  }

  @Test
  void aHostNobodyAnswersOnIsRefusedAtStart() throws Exception {
    int closed;
    try (ServerSocket free = new ServerSocket(0)) {
      closed = free.getLocalPort();
    }
    BinlogTail.Settings nowhere = new BinlogTail.Settings(settings().host(), closed, "root", "",
        SERVER_IDS.incrementAndGet());
    assertThatThrownBy(() -> BinlogTail.start(nowhere, "", (shard, table) -> true, delivered::add))
        .isInstanceOf(IOException.class);
  }

  @Test
  void settingsAndPositionsRefuseWhatNoHostCouldTake() {
    assertThatThrownBy(() -> new BinlogTail.Settings(" ", 3306, "root", "", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("address");
    assertThatThrownBy(() -> new BinlogTail.Settings("localhost", 0, "root", "", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port 0");
    assertThatThrownBy(() -> new BinlogTail.Settings("localhost", 3306, "root", "", 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("server id 0");
    assertThatThrownBy(() -> BinlogTail.start(settings(), "3E11FA47-71CA-11E1-9E33-C80AA9429562:1-5",
        (shard, table) -> true, transaction -> { }))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a MariaDB GTID position");
  }

  private BinlogTail tail(String after) throws Exception {
    BinlogTail tail = BinlogTail.start(settings(), after, (shard, table) -> table.equals("tail_probe"),
        delivered::add);
    tails.add(tail);
    return tail;
  }

  private static BinlogTail.Settings settings() {
    TestBackend backend = TestBackend.get();
    Host host = new Host("h", address, List.of());
    return new BinlogTail.Settings(host.primaryHost(), host.primaryPort(), backend.hosts().user(),
        backend.hosts().password(), SERVER_IDS.incrementAndGet());
  }

  /** The host's position now: a tail started there reads what commits next. */
  private String hostPosition() throws Exception {
    try (Statement sql = session.createStatement(); ResultSet position = sql.executeQuery("SELECT @@gtid_binlog_pos")) {
      position.next();
      return position.getString(1);
    }
  }

  /** Runs {@code statements} as one transaction of the test's session; answers its GTID. */
  private String commit(String... statements) throws Exception {
    session.setAutoCommit(false);
    try (Statement sql = session.createStatement()) {
      for (String statement : statements) {
        sql.execute(statement);
      }
      session.commit();
      ResultSet gtid = sql.executeQuery("SELECT @@last_gtid");
      gtid.next();
      return gtid.getString(1);
    } finally {
      session.setAutoCommit(true);
    }
  }

  /** The next transaction delivered that carries rows, within 10 s. */
  private TailedTransaction nextWithRows() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      TailedTransaction next = delivered.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (next != null && !next.rows().isEmpty()) {
        return next;
      }
    }
    throw new AssertionError("no transaction with rows arrived within 10 s");
  }

  private static String text(Object value) {
    return new String((byte[]) value, StandardCharsets.UTF_8);
  }
}
