package io.quiver.fleet.internal.failover;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.quiver.core.GraphException;
import io.quiver.core.testing.Await;
import io.quiver.core.testing.ExpectedLog;
import io.quiver.store.ChangeCursor;
import io.quiver.store.ChangeEvent;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.Node;
import io.quiver.store.testing.ChangeFollower;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every failover of {@link FailoverTest} with the change log and the inverses written from the
 * binary log ({@code changes.source: binlog}): the replicas log what they apply, and when the map
 * names a promoted replica the host's tailer resumes on it from the position its old primary's
 * tailer kept. Afterwards every acknowledged node and edge is there with both copies, and a
 * consumer that followed the log through it all saw each change once, no position skipped.
 */
class TailedFailoverTest extends FailoverTest {
  @Override
  ChangeLogSettings changeLog() {
    return ChangeLogSettings.defaults().from(ChangeLogSettings.Source.BINARY_LOG);
  }

  /**
   * A frozen primary ends no tail: its connection stays open, silent. The tailer leaves it when
   * the map names the promoted replica, not when the old one thaws or a keep-alive gives up, so the
   * new primary's writes are logged, and their inverses written, while the old one stays frozen.
   */
  @Test
  void whileTheOldPrimaryStaysFrozen_theTailerFollowsThePromotedReplica_loggingItsWritesAndTheirInverses()
      throws Exception {
    Set<Integer> h1 = Set.of(fleet.firstShard, fleet.firstShard + 1, fleet.firstShard + 2, fleet.firstShard + 3);
    ChangeCursor cursor = fleet.backend.changeLog().end(h1).await();
    Node board;
    Node pin;
    try (ExpectedLog frozen = ExpectedLog.named("ch.vorburger.exec")) {
      fleet.primary.freeze();
      try {
        Await.until("the frozen primary failed over", Duration.ofSeconds(30),
            () -> fleet.admin.failovers().await().size() == 1);
        Node[] written = new Node[2];
        Await.until("a board and its pin written on the promoted replica", Duration.ofSeconds(30), () -> {
          try {
            written[0] = fleet.boardOnH1("frozen");
            written[1] = fleet.store().createNode("pin",
                JsonNodeFactory.instance.objectNode().put("link", "l"), written[0].id()).await();
            fleet.store().addEdge(written[0].id(), "board_has_pins", written[1].id(), null, null).await();
            return true;
          } catch (GraphException | AssertionError notYet) {
            return false;
          }
        });
        board = written[0];
        pin = written[1];
        Await.until("the pin's inverse written from the promoted replica's log", Duration.ofSeconds(10), () -> {
          try {
            return fleet.store().getEdge(pin.id(), "pin_owned_by_board", board.id()).await() != null;
          } catch (GraphException missing) {
            assertThat(missing.code()).isEqualTo(GraphException.Code.NOT_FOUND);
            return false;
          }
        });
        List<ChangeEvent> read = new ArrayList<>();
        ChangeCursor[] at = {cursor};
        Await.until("the board's creation logged", Duration.ofSeconds(10), () -> {
          var page = fleet.backend.changeLog().read(at[0], h1, Set.of(), 100).await();
          read.addAll(page.events());
          at[0] = page.cursor();
          return read.stream().anyMatch(event -> ChangeFollower.body(event).path("data").path("title").asText()
              .equals("frozen"));
        });
        assertThat(fleet.watcher.current().hosts().get("h1").primary()).as("the old primary still frozen, not listed")
            .isNotEqualTo(fleet.primary.address());
      } finally {
        fleet.primary.thaw();
      }
    }
  }
}
