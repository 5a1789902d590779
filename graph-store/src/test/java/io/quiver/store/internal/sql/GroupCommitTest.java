package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardRange;
import io.quiver.store.shard.ShardSpan;
import io.quiver.store.shard.ShardState;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link GroupCommit} against a real host: writes that wait while the host's transactions are busy
 * commit together, each answered its own outcome — a refusal leaves only its own write out, a
 * failing statement sends the others on alone, and two writes of one row never share a
 * transaction. That writes share a transaction is read from the database: held open by its last
 * write, the others' rows are written and not yet seen by another session.
 */
class GroupCommitTest {
  private static final String ROWS = "quiver_group_commit.w";
  private static OneHost host;

  @BeforeAll
  static void start() throws Exception {
    host = new OneHost("quiver_group_commit", 4,
        "CREATE TABLE IF NOT EXISTS " + ROWS + " (tag VARCHAR(16) PRIMARY KEY)"
            + " ENGINE=InnoDB");
  }

  @AfterAll
  static void stop() throws Exception {
    host.close();
  }

  @BeforeEach
  void empty() throws Exception {
    host.execute("DELETE FROM " + ROWS);
  }

  @Test
  void writesThatWaitForABusyHost_commitTogetherInOneTransaction_eachAnsweredItsOwnResult() throws Exception {
    Busy busy = new Busy(256);
    Promise<Void> bWritten = Promise.promise();
    Promise<Void> hold = Promise.promise();
    Future<String> a = busy.submit("a", 2);
    Future<String> b = busy.groups.submit(new GroupCommit.Member<>(host.route, key(3), connection ->
        Future.succeededFuture(GroupCommit.Step.write(written -> insert(written, "b")
            .onSuccess(done -> bWritten.complete())))));
    Future<String> c = busy.groups.submit(new GroupCommit.Member<>(host.route, key(4), connection ->
        Future.succeededFuture(GroupCommit.Step.write(written -> hold.future().compose(go -> insert(written, "c"))))));
    busy.release.complete();

    assertThat(busy.first.await()).isEqualTo("first");
    bWritten.future().await();
    assertThat(tags()).as("a and b are written but not committed: their transaction is c's, still open")
        .containsExactly("first");
    hold.complete();
    assertThat(Future.all(a, b, c).await().<String>list()).containsExactly("a", "b", "c");
    assertThat(tags()).containsExactlyInAnyOrder("first", "a", "b", "c");
    assertThat(busy.groups.transactions()).isEqualTo(2);
    assertThat(busy.groups.writes()).isEqualTo(4);
  }

  @Test
  void aRefusedWrite_isAnsweredItsRefusalAndWritesNothing_whileTheOthersOfItsGroupCommit() throws Exception {
    Busy busy = new Busy(256);
    Future<String> refused = busy.groups.submit(new GroupCommit.Member<>(host.route, key(2),
        connection -> Future.succeededFuture(GroupCommit.Step.refuse(GraphException.notFound("no node 2")))));
    Future<String> kept = busy.submit("kept", 3);
    busy.release.complete();

    assertThat(busy.first.await()).isEqualTo("first");
    assertThat(kept.await()).isEqualTo("kept");
    assertThat(refused.otherwiseEmpty().await()).isNull();
    assertThat(refused.cause()).isInstanceOf(GraphException.class).hasMessage("no node 2");
    assertThat(tags()).containsExactlyInAnyOrder("first", "kept");
  }

  @Test
  void aWriteWhoseStatementFails_failsAlone_andTheOthersOfItsGroupRunAgainEachOnItsOwn() throws Exception {
    Busy busy = new Busy(256);
    Future<String> before = busy.submit("before", 2);
    // A tag longer than the column: the statement fails, and with it the whole transaction.
    Future<String> bad = busy.submit("far-too-long-for-the-column", 3);
    Future<String> after = busy.submit("after", 4);
    busy.release.complete();

    assertThat(busy.first.await()).isEqualTo("first");
    assertThat(before.await()).isEqualTo("before");
    assertThat(after.await()).isEqualTo("after");
    assertThat(bad.otherwiseEmpty().await()).isNull();
    assertThat(bad.failed()).isTrue();
    assertThat(tags()).containsExactlyInAnyOrder("first", "before", "after");
    assertThat(busy.groups.transactions()).as("the first, the group of three, then each of the three alone")
        .isEqualTo(5);
  }

  @Test
  void twoWritesOfOneRow_neverShareATransaction_theSecondWaitsForTheNextOne() throws Exception {
    Busy busy = new Busy(256);
    Future<String> once = busy.submit("once", 7);
    Future<String> twice = busy.submit("twice", 7);
    Future<String> other = busy.submit("other", 8);
    busy.release.complete();

    Future.all(busy.first, once, twice, other).await();
    assertThat(tags()).containsExactlyInAnyOrder("first", "once", "twice", "other");
    assertThat(busy.groups.transactions()).as("the first; once with other; then twice").isEqualTo(3);
  }

  @Test
  void aWriteBeyondTheWaitingBound_isRefusedUnavailableAtOnce_andWritesNothing() throws Exception {
    Busy busy = new Busy(1);
    Future<String> waits = busy.submit("waits", 2);
    Future<String> refused = busy.submit("refused", 3);
    assertThat(refused.failed()).isTrue();
    assertThat(((GraphException) refused.cause()).code()).isEqualTo(GraphException.Code.UNAVAILABLE);
    busy.release.complete();

    Future.all(busy.first, waits).await();
    assertThat(tags()).containsExactlyInAnyOrder("first", "waits");
  }

  @Test
  void aGroupWithAWriteToAShardTheMapHasMadeReadOnly_refusesOnlyThatWrite_andCommitsTheOthersOfTheHost() throws Exception {
    // Shards 4 and 5 on this host, 5 read-only (a move's cut-over): one group holds a write to each.
    ShardMap map = new ShardMap(1, Map.of("h2", new Host("h2", "127.0.0.1:3306", List.of())),
        List.of(new ShardRange(4, 5, "h2")), List.of(new ShardSpan(4, 5)), Map.of(5, ShardState.READ_ONLY));
    GroupCommit groups = new GroupCommit(host.client(new MapWrites(() -> map, version -> {})), 1, 256);
    ShardRoute writable = host.route(4);
    ShardRoute readOnly = host.route(5);
    Promise<Void> release = Promise.promise();
    Future<String> first = groups.submit(new GroupCommit.Member<>(writable, new GroupCommit.Key(4, 1, 1, 0),
        connection -> release.future().map(go -> GroupCommit.Step.write(written -> insert(written, "first")))));
    Future<String> moving = groups.submit(new GroupCommit.Member<>(readOnly, new GroupCommit.Key(5, 1, 2, 0),
        connection -> Future.succeededFuture(GroupCommit.Step.write(written -> insert(written, "moving")))));
    Future<String> staying = groups.submit(new GroupCommit.Member<>(writable, new GroupCommit.Key(4, 1, 3, 0),
        connection -> Future.succeededFuture(GroupCommit.Step.write(written -> insert(written, "staying")))));
    Future<String> after = groups.submit(new GroupCommit.Member<>(writable, new GroupCommit.Key(4, 1, 4, 0),
        connection -> Future.succeededFuture(GroupCommit.Step.write(written -> insert(written, "after")))));
    release.complete();

    assertThat(first.await()).isEqualTo("first");
    // Before, the map's refusal of shard 5 was taken for the host's trouble: the whole group, and
    // every write waiting for the host, were answered 503 "shard 5 is read-only".
    assertThat(staying.await()).isEqualTo("staying");
    assertThat(after.await()).isEqualTo("after");
    assertThat(moving.otherwiseEmpty().await()).isNull();
    assertThat(((GraphException) moving.cause()).code()).isEqualTo(GraphException.Code.UNAVAILABLE);
    assertThat(moving.cause()).hasMessageContaining("shard 5 is read-only");
    assertThat(tags()).containsExactlyInAnyOrder("first", "staying", "after");
  }

  /**
   * A group commit with one transaction slot, held by a first write ({@code first}, row 1) until
   * {@code release}: the writes submitted meanwhile wait, and go together when it ends.
   */
  private static final class Busy {
    final GroupCommit groups;
    final Promise<Void> release = Promise.promise();
    final Future<String> first;

    Busy(int maxWaiting) {
      groups = new GroupCommit(host.client, 1, maxWaiting);
      first = groups.submit(member("first", 1, release.future()));
    }

    /** A write of {@code row} inserting {@code tag}. */
    Future<String> submit(String tag, long row) {
      return groups.submit(member(tag, row, Future.succeededFuture()));
    }
  }

  /**
   * A write of row {@code row} inserting {@code tag} with its transaction's id, once {@code ready}
   * (which holds the transaction, and with it the host's one slot, open until then).
   */
  private static GroupCommit.Member<String> member(String tag, long row, Future<Void> ready) {
    return new GroupCommit.Member<>(host.route, key(row), connection -> ready.map(
        go -> GroupCommit.Step.write(written -> insert(written, tag))));
  }

  private static Future<String> insert(SqlConnection connection, String tag) {
    return connection.preparedQuery("INSERT INTO " + ROWS + " (tag) VALUES (?)").execute(Tuple.of(tag)).map(tag);
  }

  private static GroupCommit.Key key(long row) {
    return new GroupCommit.Key(4, 1, row, 0);
  }

  private static Set<String> tags() throws Exception {
    return host.column("SELECT tag FROM " + ROWS).stream().collect(Collectors.toSet());
  }
}
