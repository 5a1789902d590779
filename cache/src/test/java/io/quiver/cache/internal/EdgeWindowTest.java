package io.quiver.cache.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.quiver.store.Cursor;
import io.quiver.store.Edge;
import io.quiver.store.EdgePage;
import io.quiver.store.EdgeQuery;
import io.quiver.store.Order;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphChange;
import io.quiver.store.NodeId;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rules by which a window takes a committed change in place, without MySQL. */
class EdgeWindowTest {
  private static final NodeId FROM = NodeId.of(1, 1, 1);

  private static NodeId to(long local) {
    return NodeId.of(1, 1, 100 + local);
  }

  private static Edge edge(long to, long sequence) {
    return new Edge(FROM, "follows", to(to), sequence, JsonNodeFactory.instance.objectNode(), Instant.EPOCH);
  }

  private static GraphChange.EdgeChanged added(long to, long sequence, long version, int delta) {
    return new GraphChange.EdgeChanged(FROM, "follows", to(to), edge(to, sequence), version, delta);
  }

  private static GraphChange.EdgeChanged removed(long to, long version) {
    return new GraphChange.EdgeChanged(FROM, "follows", to(to), null, version, -1);
  }

  private static List<NodeId> targets(EdgeWindow window) {
    return window.edges().stream().map(Edge::to).toList();
  }

  @Test
  void theNextChange_isAppliedInRankOrder_andMovesTheCount() {
    EdgeWindow window = new EdgeWindow(List.of(edge(3, 30), edge(1, 10)), 2, 7);

    EdgeWindow after = window.after(added(2, 20, 8, 1), 10).orElseThrow();

    assertThat(targets(after)).containsExactly(to(3), to(2), to(1));
    assertThat(after.count()).isEqualTo(3);
    assertThat(after.version()).isEqualTo(8);
    assertThat(after.complete()).isTrue();
  }

  @Test
  void anUpdate_movesTheEdgeToItsNewRank_withoutCountingItTwice() {
    EdgeWindow window = new EdgeWindow(List.of(edge(3, 30), edge(2, 20), edge(1, 10)), 3, 1);

    EdgeWindow after = window.after(added(1, 40, 2, 0), 10).orElseThrow();

    assertThat(targets(after)).containsExactly(to(1), to(3), to(2));
    assertThat(after.count()).isEqualTo(3);
  }

  @Test
  void anArchive_takesTheEdgeOutOfTheWindow_asARemovalDoes() {
    EdgeWindow window = new EdgeWindow(List.of(edge(3, 30), edge(2, 20), edge(1, 10)), 3, 1);
    Edge archived = new Edge(FROM, "follows", to(2), 20, JsonNodeFactory.instance.objectNode(), Instant.EPOCH,
        EdgeState.ARCHIVED);

    EdgeWindow after = window.after(new GraphChange.EdgeChanged(FROM, "follows", to(2), archived, 2, -1), 10)
        .orElseThrow();

    assertThat(targets(after)).containsExactly(to(3), to(1));
    assertThat(after.count()).isEqualTo(2);
    assertThat(after.complete()).isTrue();
  }

  @Test
  void aPagePastAPartialWindow_asksForOneAtLeastTwiceAsDeep_upToThePageCap() {
    List<Edge> newest = new java.util.ArrayList<>();
    for (int i = 0; i < 100; i++) {
      newest.add(edge(1000 - i, 1000 - i));
    }
    EdgeWindow window = new EdgeWindow(newest, 5000, 1, 100);
    Edge tenth = newest.get(9);

    assertThat(window.page(new EdgeQuery(50, null, 60, Order.DESC, null, null))).isEmpty();
    assertThat(window.depthToAnswer(new EdgeQuery(50, null, 60, Order.DESC, null, null))).isEqualTo(200);
    assertThat(window.depthToAnswer(new EdgeQuery(50, null, 300, Order.DESC, null, null))).isEqualTo(351);
    assertThat(window.depthToAnswer(new EdgeQuery(95, new Cursor(tenth.sequence(), tenth.to().value()), 0, Order.DESC,
        null, null))).as("ten held before the cursor, 95 after it, one more").isEqualTo(200);
    assertThat(window.depthToAnswer(new EdgeQuery(500, null, 600, Order.DESC, null, null))).as("past the cap").isZero();
    assertThat(window.depthToAnswer(new EdgeQuery(10, null, 0, Order.ASC, null, null))).as("the whole list: too long")
        .isZero();
    assertThat(new EdgeWindow(newest, 150, 1, 100).depthToAnswer(new EdgeQuery(10, null, 0, Order.ASC, null, null)))
        .as("the whole list").isEqualTo(200);
  }

  @Test
  void aChangeTheWindowAlreadyReflects_isIgnored() {
    EdgeWindow window = new EdgeWindow(List.of(edge(2, 20)), 1, 5);

    assertThat(window.after(added(2, 20, 5, 1), 10)).contains(window);
    assertThat(window.after(removed(2, 4), 10)).contains(window);
  }

  @Test
  void aQueryAskedAgain_getsTheSamePage_untilTheWindowChanges() {
    EdgeWindow window = new EdgeWindow(List.of(edge(3, 30), edge(2, 20), edge(1, 10)), 3, 1);
    EdgeQuery two = EdgeQuery.firstPage(2);

    EdgePage page = window.page(two).orElseThrow();
    assertThat(window.page(EdgeQuery.firstPage(2)).orElseThrow()).as("an equal query: the page answered before")
        .isSameAs(page);
    assertThat(window.page(EdgeQuery.firstPage(3)).orElseThrow().edges()).hasSize(3);
    assertThat(window.page(two).orElseThrow()).as("another query came between: an equal page").isEqualTo(page);
    EdgeWindow after = window.after(added(4, 40, 2, 1), 10).orElseThrow();
    assertThat(after.page(two).orElseThrow().edges()).extracting(Edge::to).containsExactly(to(4), to(3));
  }

  @Test
  void aGapInTheVersions_cannotBeApplied() {
    EdgeWindow window = new EdgeWindow(List.of(edge(2, 20)), 1, 5);

    assertThat(window.after(added(3, 30, 7, 1), 10)).isEmpty();
  }

  @Test
  void aPartialWindow_takesOnlyEdgesThatRankInsideIt_butCountsEveryOne() {
    EdgeWindow window = new EdgeWindow(List.of(edge(5, 50), edge(4, 40)), 9, 3);

    EdgeWindow outside = window.after(added(9, 1, 4, 1), 4).orElseThrow();
    assertThat(targets(outside)).containsExactly(to(5), to(4));
    assertThat(outside.count()).isEqualTo(10);

    EdgeWindow inside = outside.after(added(8, 45, 5, 1), 4).orElseThrow();
    assertThat(targets(inside)).containsExactly(to(5), to(8), to(4));
    assertThat(inside.complete()).isFalse();
  }

  @Test
  void aWholeListGrowingPastTheCapacity_keepsItsNewest_andIsNoLongerWhole() {
    EdgeWindow window = new EdgeWindow(List.of(edge(2, 20), edge(1, 10)), 2, 1);

    EdgeWindow after = window.after(added(3, 30, 2, 1), 2).orElseThrow();

    assertThat(targets(after)).containsExactly(to(3), to(2));
    assertThat(after.complete()).isFalse();
    assertThat(after.count()).isEqualTo(3);
  }

  @Test
  void aPartialWindowShrunkUnderHalfItsCapacity_isDroppedToBeReadAgain() {
    EdgeWindow window = new EdgeWindow(List.of(edge(6, 60), edge(5, 50), edge(4, 40)), 9, 3);

    EdgeWindow half = window.after(removed(6, 4), 4).orElseThrow();
    assertThat(targets(half)).as("two of four left").containsExactly(to(5), to(4));
    assertThat(half.after(removed(5, 5), 4)).as("one of four left").isEmpty();
  }

  @Test
  void aWholeWindowWhoseCountDisagreesWithItsEdges_isDropped() {
    EdgeWindow window = new EdgeWindow(List.of(edge(2, 20)), 1, 1);

    assertThat(window.after(new GraphChange.EdgeChanged(FROM, "follows", to(3), edge(3, 30), 2, 0), 10)).isEmpty();
  }

  @Test
  void theWindowAnswersSingleEdgesItHolds() {
    EdgeWindow window = new EdgeWindow(List.of(edge(2, 20)), 1, 1);

    assertThat(window.edgeTo(to(2))).contains(edge(2, 20));
    assertThat(window.edgeTo(to(3))).isEmpty();
  }
}
