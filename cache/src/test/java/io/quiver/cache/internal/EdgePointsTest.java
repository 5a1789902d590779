package io.quiver.cache.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.quiver.store.Edge;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphChange;
import io.quiver.store.NodeId;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rules by which the single edges known of a list take reads and committed changes, without MySQL. */
class EdgePointsTest {
  private static final NodeId FROM = NodeId.of(1, 1, 1);

  private static NodeId to(long local) {
    return NodeId.of(1, 1, 100 + local);
  }

  private static Edge edge(long to, long sequence, EdgeState state) {
    return new Edge(FROM, "follows", to(to), sequence, JsonNodeFactory.instance.objectNode(), Instant.EPOCH, state);
  }

  /** What a store read of {@code asked} found at {@code version}: each target's edge, or none. */
  private static EdgePoints read(List<NodeId> asked, Map<NodeId, Edge> found, long version) {
    Map<NodeId, Edge> edges = new java.util.LinkedHashMap<>();
    asked.forEach(to -> edges.put(to, found.get(to)));
    return new EdgePoints(edges, version);
  }

  private static GraphChange.EdgeChanged changed(long to, Edge edge, long version) {
    return new GraphChange.EdgeChanged(FROM, "follows", to(to), edge, version, 0);
  }

  @Test
  void aRead_knowsEveryTargetItAsked_foundOrNot() {
    EdgePoints read = read(List.of(to(1), to(2)), Map.of(to(1), edge(1, 10, EdgeState.ACTIVE)), 4);

    assertThat(read.knows(to(1))).isTrue();
    assertThat(read.edgeTo(to(1))).contains(edge(1, 10, EdgeState.ACTIVE));
    assertThat(read.knows(to(2))).isTrue();
    assertThat(read.edgeTo(to(2))).isEmpty();
    assertThat(read.knows(to(3))).isFalse();
  }

  @Test
  void readsAtOneVersion_merge_andANewerReadReplacesAnOlderOne() {
    EdgePoints first = read(List.of(to(1)), Map.of(), 4);
    EdgePoints second = read(List.of(to(2)), Map.of(to(2), edge(2, 20, EdgeState.ACTIVE)), 4);
    EdgePoints newer = read(List.of(to(3)), Map.of(), 5);

    assertThat(first.plus(second).edges().keySet()).containsExactlyInAnyOrder(to(1), to(2));
    assertThat(first.plus(newer)).isEqualTo(newer);
    assertThat(newer.plus(first)).isEqualTo(newer);
  }

  @Test
  void theNextChange_setsItsTargetToWhatTheWriteLeft_knownBeforeOrNot() {
    EdgePoints points = read(List.of(to(1)), Map.of(to(1), edge(1, 10, EdgeState.ACTIVE)), 4);
    Edge archived = edge(1, 10, EdgeState.ARCHIVED);
    Edge added = edge(2, 20, EdgeState.ACTIVE);

    EdgePoints after = points.after(changed(1, archived, 5)).orElseThrow()
        .after(changed(2, added, 6)).orElseThrow()
        .after(changed(1, null, 7)).orElseThrow();

    assertThat(after.version()).isEqualTo(7);
    assertThat(after.edgeTo(to(2))).contains(added);
    assertThat(after.knows(to(1))).as("removed: known absent").isTrue();
    assertThat(after.edgeTo(to(1))).isEmpty();
  }

  @Test
  void aChangeAlreadyReflected_isIgnored_andOneAfterAGap_dropsThePoints() {
    EdgePoints points = read(List.of(to(1)), Map.of(), 4);

    assertThat(points.after(changed(1, edge(1, 1, EdgeState.ACTIVE), 4))).contains(points);
    assertThat(points.after(changed(1, edge(1, 1, EdgeState.ACTIVE), 6))).isEmpty();
  }

  @Test
  void pointsPastTheBound_dropTheOldestAnswers_keepingTheNewest() {
    List<NodeId> many = java.util.stream.LongStream.range(0, EdgePoints.MAX_TARGETS).mapToObj(EdgePointsTest::to)
        .toList();
    EdgePoints full = read(many, Map.of(), 1);
    NodeId newest = to(EdgePoints.MAX_TARGETS + 1);

    EdgePoints after = full.plus(read(List.of(newest), Map.of(), 1));

    assertThat(after.edges()).hasSize(EdgePoints.MAX_TARGETS);
    assertThat(after.knows(newest)).isTrue();
    assertThat(after.knows(to(0))).as("the oldest answer went").isFalse();
    assertThat(after.knows(to(1))).isTrue();
    EdgePoints changed = after.after(changed(7, edge(7, 1, EdgeState.ACTIVE), 2)).orElseThrow();
    assertThat(changed.edges()).hasSize(EdgePoints.MAX_TARGETS);
    assertThat(changed.knows(to(7))).isTrue();
  }

  @Test
  void wholePoints_knowEveryTarget_andATargetNotHeldHasNoEdge() {
    EdgePoints whole = EdgePoints.whole(Map.of(to(1), edge(1, 10, EdgeState.ACTIVE), to(2), edge(2, 5, EdgeState.ARCHIVED)), 4);

    assertThat(whole.whole()).isTrue();
    assertThat(whole.knows(to(9))).isTrue();
    assertThat(whole.edgeTo(to(9))).isEmpty();
    assertThat(whole.edgeTo(to(2))).contains(edge(2, 5, EdgeState.ARCHIVED));
  }

  @Test
  void wholePoints_stayWholeThroughChanges_aRemovalLeavingNothingHeld() {
    EdgePoints whole = EdgePoints.whole(Map.of(to(1), edge(1, 10, EdgeState.ACTIVE)), 4);
    Edge added = edge(2, 20, EdgeState.ACTIVE);

    EdgePoints after = whole.after(changed(2, added, 5)).orElseThrow().after(changed(1, null, 6)).orElseThrow();

    assertThat(after.whole()).isTrue();
    assertThat(after.edges()).containsOnlyKeys(to(2));
    assertThat(after.knows(to(1))).isTrue();
    assertThat(after.edgeTo(to(1))).isEmpty();
    assertThat(after.edgeTo(to(2))).contains(added);
  }

  @Test
  void aReadOfSomeTargets_mergedIntoWholePointsAtItsVersion_leavesThemWhole_andAnOlderWholeReadGivesWayToANewerRead() {
    EdgePoints whole = EdgePoints.whole(Map.of(to(1), edge(1, 10, EdgeState.ACTIVE)), 4);
    EdgePoints some = read(List.of(to(1), to(3)), Map.of(to(1), edge(1, 10, EdgeState.ACTIVE)), 4);

    assertThat(some.plus(whole).whole()).isTrue();
    assertThat(whole.plus(some).whole()).isTrue();
    assertThat(whole.plus(some).edges()).as("no absent target held: not held means absent").containsOnlyKeys(to(1));
    assertThat(whole.plus(read(List.of(to(3)), Map.of(), 5)).whole()).isFalse();
  }

  @Test
  void wholePointsGrownPastTheBound_areWholeNoLonger() {
    Map<NodeId, Edge> many = new java.util.LinkedHashMap<>();
    for (long i = 0; i < EdgePoints.MAX_TARGETS; i++) {
      many.put(to(i), edge(i, i, EdgeState.ACTIVE));
    }
    EdgePoints whole = EdgePoints.whole(many, 1);

    EdgePoints grown = whole.after(changed(EdgePoints.MAX_TARGETS, edge(EdgePoints.MAX_TARGETS, 9, EdgeState.ACTIVE), 2))
        .orElseThrow();

    assertThat(whole.whole()).isTrue();
    assertThat(grown.whole()).isFalse();
    assertThat(grown.knows(to(0))).as("the oldest went, and is not known absent").isFalse();
    assertThat(grown.knows(to(EdgePoints.MAX_TARGETS))).isTrue();
  }

  /** An edge whose data has {@code fields} fields: its weight grows with them. */
  private static Edge heavy(long to, int fields) {
    com.fasterxml.jackson.databind.node.ObjectNode data = JsonNodeFactory.instance.objectNode();
    for (int i = 0; i < fields; i++) {
      data.put("f" + i, i);
    }
    return new Edge(FROM, "follows", to(to), to, data, Instant.EPOCH, EdgeState.ACTIVE);
  }

  @Test
  void theWeightAfterChanges_isTheWeightOfTheSamePointsWeighedAfresh_wholeOrNot_trimmedOrNot() {
    Map<NodeId, Edge> many = new java.util.LinkedHashMap<>();
    for (long i = 0; i < EdgePoints.MAX_TARGETS; i++) {
      many.put(to(i), heavy(i, (int) (i % 4)));
    }
    many.put(to(EdgePoints.MAX_TARGETS + 5), null);
    for (EdgePoints points : List.of(new EdgePoints(many, 1), EdgePoints.whole(many, 1))) {
      EdgePoints after = points.after(changed(3, heavy(3, 9), 2)).orElseThrow()
          .after(changed(5, null, 3)).orElseThrow()
          .after(changed(EdgePoints.MAX_TARGETS + 1, heavy(EdgePoints.MAX_TARGETS + 1, 2), 4)).orElseThrow()
          .after(changed(EdgePoints.MAX_TARGETS + 2, null, 5)).orElseThrow();

      EdgePoints afresh = after.whole() ? EdgePoints.whole(after.edges(), 5) : new EdgePoints(after.edges(), 5);
      assertThat(after.weight()).as(points.whole() ? "whole" : "some targets").isEqualTo(afresh.weight())
          .isNotEqualTo(points.weight());
      assertThat(after.edges().size()).isLessThanOrEqualTo(EdgePoints.MAX_TARGETS);
    }
  }
}
