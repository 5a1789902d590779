package io.quiver.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class NodeIdTest {

  @Property
  void of_thenParts_roundTripsOverTheWholeRange(
      @ForAll @IntRange(min = 0, max = NodeId.MAX_SHARD) int shard,
      @ForAll @IntRange(min = 0, max = NodeId.MAX_TYPE) int type,
      @ForAll @LongRange(min = 0, max = NodeId.MAX_LOCAL) long local) {
    NodeId id = NodeId.of(shard, type, local);

    assertThat(id.shard()).isEqualTo(shard);
    assertThat(id.type()).isEqualTo(type);
    assertThat(id.local()).isEqualTo(local);
    assertThat(NodeId.parse(id.toString())).contains(id);
    assertThat(id.value()).isNotNegative();
  }

  @Property
  void parse_ofAnyValueWithoutReservedBits_roundTrips(@ForAll @LongRange(min = 0, max = (1L << 62) - 1) long value) {
    NodeId id = NodeId.parse(Long.toString(value)).orElseThrow();
    assertThat(NodeId.of(id.shard(), id.type(), id.local())).isEqualTo(id);
  }

  @Test
  void pinterestExample_decodesExactly() {
    NodeId id = NodeId.parse("241294492511762325").orElseThrow();

    assertThat(id.shard()).isEqualTo(3429);
    assertThat(id.type()).isEqualTo(1);
    assertThat(id.local()).isEqualTo(7075733);
    assertThat(NodeId.of(3429, 1, 7075733).value()).isEqualTo(241294492511762325L);
  }

  @Test
  void of_withAnyPartOutOfRange_isRefusedNotWrapped() {
    assertThatThrownBy(() -> NodeId.of(NodeId.MAX_SHARD + 1, 0, 0)).hasMessageContaining("shard");
    assertThatThrownBy(() -> NodeId.of(-1, 0, 0)).hasMessageContaining("shard");
    assertThatThrownBy(() -> NodeId.of(0, NodeId.MAX_TYPE + 1, 0)).hasMessageContaining("type");
    assertThatThrownBy(() -> NodeId.of(0, 0, NodeId.MAX_LOCAL + 1)).hasMessageContaining("local");
    assertThatThrownBy(() -> NodeId.of(0, 0, -1)).hasMessageContaining("local");
  }

  @Test
  void parse_refusesWhatIsNotAnId() {
    assertThat(NodeId.parse("")).isEmpty();
    assertThat(NodeId.parse("12a")).isEmpty();
    assertThat(NodeId.parse("-5")).isEmpty();
    assertThat(NodeId.parse("+5")).isEmpty();
    assertThat(NodeId.parse(" 5")).isEmpty();
    assertThat(NodeId.parse("99999999999999999999")).isEmpty();
    assertThat(NodeId.parse(Long.toString(1L << 62))).as("a reserved bit").isEmpty();
    assertThat(NodeId.parse(Long.toString(Long.MAX_VALUE))).isEmpty();
  }
}
