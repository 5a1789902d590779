package io.quiver.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** How a consumer group deals its shards: the same everywhere, every shard once, evenly. */
class ChangeGroupsTest {
  private static final List<Integer> SHARDS = IntStream.range(0, 10).boxed().toList();

  @Test
  void shardsAreDealtInOrder_toTheMembersSortedByName() {
    Map<String, List<Integer>> dealt = ChangeGroups.assign(Set.of("c", "a", "b"), SHARDS);
    assertThat(dealt).containsExactly(Map.entry("a", List.of(0, 3, 6, 9)), Map.entry("b", List.of(1, 4, 7)),
        Map.entry("c", List.of(2, 5, 8)));
  }

  @Test
  void everyShardIsDealtOnce_whateverTheMembers_andNoMemberHasMoreThanOneShardOverAnother() {
    for (int members = 1; members <= 12; members++) {
      Set<String> names = Set.copyOf(IntStream.range(0, members).mapToObj(i -> "m" + i).toList());
      Map<String, List<Integer>> dealt = ChangeGroups.assign(names, SHARDS.stream().sorted(java.util.Comparator.reverseOrder()).toList());
      assertThat(dealt.values().stream().flatMap(List::stream).sorted().toList()).isEqualTo(SHARDS);
      IntSummary sizes = IntSummary.of(dealt.values().stream().mapToInt(List::size).toArray());
      assertThat(sizes.max() - sizes.min()).as(members + " members").isLessThanOrEqualTo(1);
      assertThat(dealt).as("the same deal from the same members").isEqualTo(ChangeGroups.assign(names, SHARDS));
    }
  }

  @Test
  void aGroupWithoutMembers_dealsNothing() {
    assertThat(ChangeGroups.assign(Set.of(), SHARDS)).isEmpty();
  }

  private record IntSummary(int min, int max) {
    static IntSummary of(int[] values) {
      return new IntSummary(IntStream.of(values).min().orElse(0), IntStream.of(values).max().orElse(0));
    }
  }
}
