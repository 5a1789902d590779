package io.quiver.store.internal;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.AtomicRead;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.Edge;
import io.quiver.store.EdgeResult;
import io.quiver.store.GraphStore;
import io.quiver.store.InverseWait;
import io.quiver.store.NodeId;
import io.quiver.store.ReadToken;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With the change log written from the binary log, a write leaves its inverse in no outbox: only
 * its host's tailer would write it. Here no server drains or tails any host, so whatever writes an
 * inverse below is the reader's own doing — a token settled, a torn pair brought together — from
 * the written copy as it stands.
 */
@ExtendWith(GraphInvariants.class)
class WritesLeavingNoEntryTest {
  private static StoreFixture fixture;
  private static GraphStore store;
  private static ShardTables tables;

  @BeforeAll
  static void start() throws Exception {
    fixture = StoreFixture.notDraining(ChangeLogSettings.defaults().from(ChangeLogSettings.Source.BINARY_LOG));
    store = fixture.store;
    tables = new ShardTables(TestBackend.get());
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  private static NodeId node(String type, String data) {
    return store.createNode(type, json(data), null).await().id();
  }

  @Test
  void aWrite_leavesNoOutboxEntry_itsTokenNamesTheCopyItWrote_andAReadCarryingItSeesTheInverse() throws Exception {
    NodeId board = node("board", "{\"title\": \"t\"}");
    NodeId pin = node("pin", "{\"link\": \"p\"}");
    long entriesBefore = tables.outboxEntries(false);

    EdgeResult added = store.addEdge(board, "board_has_pins", pin, 5L, json("{\"note\": \"n\"}"), InverseWait.ASYNC)
        .await();

    assertThat(added.inverse()).isEqualTo(EdgeResult.Inverse.PENDING);
    assertThat(tables.outboxEntries(false)).as("no outbox entry written").isEqualTo(entriesBefore);
    int written = tables.edgesTable("board_has_pins").type().id();
    assertThat(added.token().entries()).containsExactly(new ReadToken.Written(written, board.value(), pin.value()));
    assertThat(store.fresh().getEdge(pin, "pin_owned_by_board", board).otherwiseEmpty().await())
        .as("nothing tails the host, so the inverse is not there yet").isNull();

    ReadToken carried = ReadToken.parse(added.token().toString());
    store.settle(carried).await();

    Edge inverse = store.fresh().getEdge(pin, "pin_owned_by_board", board).await();
    assertThat(inverse.sequence()).isEqualTo(5L);
    assertThat(inverse.data().get("note").asText()).isEqualTo("n");
    assertThat(store.countEdges(pin, "pin_owned_by_board").await()).isEqualTo(1);
  }

  @Test
  void aWriteWaitingForItsInverse_writesItItself() {
    NodeId board = node("board", "{\"title\": \"w\"}");
    NodeId pin = node("pin", "{\"link\": \"w\"}");

    EdgeResult added = store.addEdge(board, "board_has_pins", pin, 3L, null, InverseWait.APPLIED).await();

    assertThat(added.inverse()).isEqualTo(EdgeResult.Inverse.APPLIED);
    assertThat(added.token()).isEqualTo(ReadToken.EMPTY);
    assertThat(store.fresh().getEdge(pin, "pin_owned_by_board", board).await().sequence()).isEqualTo(3L);
    assertThat(store.removeEdge(board, "board_has_pins", pin, InverseWait.APPLIED).await().inverse())
        .isEqualTo(EdgeResult.Inverse.APPLIED);
    assertThat(store.fresh().getEdge(pin, "pin_owned_by_board", board).otherwiseEmpty().await()).isNull();
  }

  @Test
  void aMultiReadFindingAPairHalfWritten_bringsItsCopiesTogether_andAnswersItWhole() {
    NodeId board = node("board", "{\"title\": \"m\"}");
    NodeId pin = node("pin", "{\"link\": \"m\"}");
    store.addEdge(board, "board_has_pins", pin, 8L, null, InverseWait.ASYNC).await();

    AtomicRead read = store.readAtomically(List.of(), List.of(new AtomicRead.ListRead(board, "board_has_pins", 10),
        new AtomicRead.ListRead(pin, "pin_owned_by_board", 10))).await();

    assertThat(read.rounds()).as("the first round found the pair torn").isEqualTo(2);
    assertThat(read.lists().get(0).edges()).extracting(Edge::to).containsExactly(pin);
    assertThat(read.lists().get(1).edges()).extracting(Edge::to).containsExactly(board);
    assertThat(read.lists().get(1).count()).isEqualTo(1);
  }

  @Test
  void aTokenNamingAnEdgeRemovedSince_bringsTheRemovalOver() {
    NodeId board = node("board", "{\"title\": \"r\"}");
    NodeId pin = node("pin", "{\"link\": \"r\"}");
    store.addEdge(board, "board_has_pins", pin, 2L, null, InverseWait.APPLIED).await();
    EdgeResult removed = store.removeEdge(board, "board_has_pins", pin, InverseWait.ASYNC).await();
    assertThat(store.fresh().getEdge(pin, "pin_owned_by_board", board).await()).as("the removal not yet over")
        .isNotNull();

    store.settle(removed.token()).await();

    assertThat(store.fresh().getEdge(pin, "pin_owned_by_board", board).otherwiseEmpty().await()).isNull();
    assertThat(store.countEdges(pin, "pin_owned_by_board").await()).isZero();
  }
}
