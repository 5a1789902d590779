package io.quiver.store.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShardMapTest {
  private static final Map<String, Host> HOSTS = Map.of(
      "h1", new Host("h1", "10.0.0.1:3306", List.of("10.0.0.2:3306")),
      "h2", new Host("h2", "10.0.0.3:3306", List.of()));

  private static ShardMap map(List<ShardRange> ranges, List<ShardSpan> open, Map<Integer, ShardState> states) {
    return new ShardMap(7, HOSTS, ranges, open, states);
  }

  private static final ShardMap SAMPLE = map(
      List.of(new ShardRange(512, 1023, "h2"), new ShardRange(0, 511, "h1")),
      List.of(new ShardSpan(0, 1023)),
      Map.of(17, ShardState.READ_ONLY));

  @Test
  void rangeOf_findsTheHostOfEveryShard_andNothingOutside() {
    assertThat(SAMPLE.rangeOf(0)).map(ShardRange::host).contains("h1");
    assertThat(SAMPLE.rangeOf(511)).map(ShardRange::host).contains("h1");
    assertThat(SAMPLE.rangeOf(512)).map(ShardRange::host).contains("h2");
    assertThat(SAMPLE.rangeOf(1023)).map(ShardRange::host).contains("h2");
    assertThat(SAMPLE.rangeOf(1024)).isEmpty();
    assertThat(SAMPLE.stateOf(17)).isEqualTo(ShardState.READ_ONLY);
    assertThat(SAMPLE.stateOf(18)).isEqualTo(ShardState.READ_WRITE);
  }

  @Test
  void construction_refusesOverlapsGapsUnknownHostsAndStrayOpenSpans() {
    assertThatThrownBy(() -> map(List.of(new ShardRange(0, 10, "h1"), new ShardRange(5, 20, "h2")), List.of(), Map.of()))
        .hasMessageContaining("overlap");
    assertThatThrownBy(() -> map(List.of(new ShardRange(0, 10, "h1"), new ShardRange(12, 20, "h2")), List.of(), Map.of()))
        .hasMessageContaining("gap");
    assertThatThrownBy(() -> map(List.of(new ShardRange(0, 10, "h9")), List.of(), Map.of()))
        .hasMessageContaining("h9");
    assertThatThrownBy(() -> map(List.of(new ShardRange(0, 10, "h1")), List.of(new ShardSpan(5, 11)), Map.of()))
        .hasMessageContaining("open span");
    assertThatThrownBy(() -> map(List.of(new ShardRange(0, 10, "h1")), List.of(), Map.of(11, ShardState.OFFLINE)))
        .hasMessageContaining("11");
    assertThatThrownBy(() -> map(List.of(), List.of(), Map.of())).hasMessageContaining("at least one range");
    assertThatThrownBy(() -> new ShardRange(0, 65536, "h1")).hasMessageContaining("65535");
    assertThatThrownBy(() -> new Host("h1", "nohostport", List.of())).hasMessageContaining("host:port");
  }

  @Test
  void json_roundTripsTheDesignDocument() {
    String document = """
        {"version": 7,
         "hosts":  {"h1": {"primary": "10.0.0.1:3306", "replicas": ["10.0.0.2:3306"]},
                    "h2": {"primary": "10.0.0.3:3306", "replicas": []}},
         "ranges": [{"from": 0, "to": 511, "host": "h1"}, {"from": 512, "to": 1023, "host": "h2"}],
         "open":   [[0, 1023]],
         "state":  {"17": "read-only"}}
        """;

    ShardMap parsed = ShardMapJson.parse(document.getBytes(StandardCharsets.UTF_8));

    assertThat(parsed).isEqualTo(SAMPLE);
    assertThat(ShardMapJson.parse(ShardMapJson.toBytes(parsed))).isEqualTo(parsed);
  }

  @Test
  void json_invalidDocuments_failWithAMessage() {
    assertThatThrownBy(() -> ShardMapJson.parse("{".getBytes(StandardCharsets.UTF_8))).hasMessageContaining("JSON");
    assertThatThrownBy(() -> ShardMapJson.parse("{\"version\": 1, \"hosts\": {}, \"ranges\": [], \"open\": [[0]]}"
        .getBytes(StandardCharsets.UTF_8))).isInstanceOfSatisfying(io.quiver.core.GraphException.class,
            invalid -> assertThat(invalid.code()).isEqualTo(io.quiver.core.GraphException.Code.INVALID_ARGUMENT));
    assertThatThrownBy(() -> ShardMapJson.parse(("{\"version\": 1, \"hosts\": {\"h1\": {\"primary\": \"a:1\"}},"
        + " \"ranges\": [{\"from\": 0, \"to\": 3, \"host\": \"h1\"}], \"state\": {\"2\": \"sleeping\"}}")
        .getBytes(StandardCharsets.UTF_8))).hasMessageContaining("sleeping");
  }

  @Test
  void pickShardForNewNode_choosesOnlyOpenWritableShards_andCoversThem() {
    ShardMap map = map(List.of(new ShardRange(0, 7, "h1")), List.of(new ShardSpan(2, 5)),
        Map.of(3, ShardState.READ_ONLY, 4, ShardState.OFFLINE));
    Random random = new Random(42);
    Set<Integer> picked = new HashSet<>();
    for (int i = 0; i < 500; i++) {
      picked.add(map.pickShardForNewNode(random).orElseThrow());
    }
    assertThat(picked).containsExactlyInAnyOrder(2, 5);
  }

  @Test
  void pickShardForNewNode_withNoWritableOpenShard_isEmpty() {
    ShardMap map = map(List.of(new ShardRange(0, 1, "h1")), List.of(new ShardSpan(0, 1)),
        Map.of(0, ShardState.READ_ONLY, 1, ShardState.READ_ONLY));
    assertThat(map.pickShardForNewNode(new Random(1))).isEmpty();
    assertThat(map(List.of(new ShardRange(0, 1, "h1")), List.of(), Map.of()).pickShardForNewNode(new Random(1))).isEmpty();
  }

  @Test
  void aMapOf4096ShardsOver8Hosts_isBuiltByAdminChanges_andRoutesEveryShardToItsHost() {
    ShardMap map = new ShardMap(1, Map.of("h1", new Host("h1", "10.0.1.1:3306", List.of())),
        List.of(new ShardRange(0, 511, "h1")), List.of(new ShardSpan(0, 511)), Map.of());
    for (int host = 2; host <= 8; host++) {
      map = new ShardMapChange.AddHost(new Host("h" + host, "10.0.1." + host + ":3306", List.of())).applyTo(map);
      map = new ShardMapChange.OpenShards(new ShardSpan((host - 1) * 512, host * 512 - 1), "h" + host, true)
          .applyTo(map);
    }
    map = new ShardMapChange.SetState(ShardSpan.parse("4000-4095"), ShardState.READ_ONLY).applyTo(map);

    assertThat(map.hosts()).hasSize(8);
    assertThat(map.allShards()).hasSize(4096);
    assertThat(map.open()).containsExactly(new ShardSpan(0, 4095));
    for (int shard = 0; shard < 4096; shard++) {
      assertThat(map.rangeOf(shard)).map(ShardRange::host).contains("h" + (shard / 512 + 1));
    }
    assertThat(map.rangeOf(4096)).isEmpty();
    Map<String, Integer> newNodesPerHost = new java.util.TreeMap<>();
    Random random = new Random(7);
    for (int i = 0; i < 8000; i++) {
      int shard = map.pickShardForNewNode(random).orElseThrow();
      assertThat(shard).isLessThan(4000);
      newNodesPerHost.merge(map.rangeOf(shard).orElseThrow().host(), 1, Integer::sum);
    }
    assertThat(newNodesPerHost).hasSize(8).allSatisfy((host, nodes) -> assertThat(nodes).isBetween(700, 1300));
    assertThat(ShardMapJson.parse(ShardMapJson.toBytes(map))).isEqualTo(map);
  }

  @Test
  void shardSpans_areReadAsOperatorsTypeThem() {
    assertThat(ShardSpan.parse("4")).isEqualTo(new ShardSpan(4, 4));
    assertThat(ShardSpan.parse(" 4-5 ")).isEqualTo(new ShardSpan(4, 5));
    assertThat(ShardSpan.parse("4-5").toString()).isEqualTo("4-5");
    assertThatThrownBy(() -> ShardSpan.parse("5-4")).hasMessageContaining("from <= to");
    assertThatThrownBy(() -> ShardSpan.parse("4..5")).hasMessageContaining("4 or 4-5");
    assertThatThrownBy(() -> ShardSpan.parse("-1")).hasMessageContaining("4 or 4-5");
  }

  @Test
  void changes_thatTheMapCannotTake_areRefusedSayingWhy() {
    ShardMap map = map(List.of(new ShardRange(4, 7, "h1")), List.of(new ShardSpan(4, 7)), Map.of());

    assertThatThrownBy(() -> new ShardMapChange.AddHost(new Host("h1", "10.9.9.9:3306", List.of())).applyTo(map))
        .hasMessageContaining("already in the shard map");
    assertThatThrownBy(() -> new ShardMapChange.OpenShards(new ShardSpan(9, 9), "h2", true).applyTo(map))
        .hasMessageContaining("start at 8 or end at 3");
    assertThatThrownBy(() -> new ShardMapChange.SetState(new ShardSpan(7, 8), ShardState.OFFLINE).applyTo(map))
        .hasMessageContaining("not all in the shard map");
    ShardMap below = new ShardMapChange.OpenShards(new ShardSpan(0, 3), "h2", false).applyTo(map);
    assertThat(below.ranges()).containsExactly(new ShardRange(0, 3, "h2"), new ShardRange(4, 7, "h1"));
    assertThat(below.open()).containsExactly(new ShardSpan(4, 7));
  }

  @Test
  void movingShards_routesThemToTheTarget_splittingTheRangeTheyLeave_andMakesThemReadWrite() {
    Map<String, Host> three = new java.util.HashMap<>(HOSTS);
    three.put("h3", new Host("h3", "10.0.0.5:3306", List.of()));
    ShardMap map = new ShardMap(3, three, List.of(new ShardRange(0, 7, "h1"), new ShardRange(8, 15, "h2")),
        List.of(new ShardSpan(0, 15)), Map.of(4, ShardState.READ_ONLY, 5, ShardState.READ_ONLY));

    ShardMap moved = new ShardMapChange.MoveShards(new ShardSpan(4, 5), "h3").applyTo(map);

    assertThat(moved.ranges()).containsExactly(new ShardRange(0, 3, "h1"), new ShardRange(4, 5, "h3"),
        new ShardRange(6, 7, "h1"), new ShardRange(8, 15, "h2"));
    assertThat(moved.stateOf(4)).isEqualTo(ShardState.READ_WRITE);
    assertThat(moved.open()).isEqualTo(map.open());
    ShardMap back = new ShardMapChange.MoveShards(new ShardSpan(4, 5), "h1").applyTo(moved);
    assertThat(back.ranges()).as("adjoining ranges of one host merge again")
        .containsExactly(new ShardRange(0, 7, "h1"), new ShardRange(8, 15, "h2"));
    assertThatThrownBy(() -> new ShardMapChange.MoveShards(new ShardSpan(6, 9), "h3").applyTo(map))
        .hasMessageContaining("more than one host");
    assertThatThrownBy(() -> new ShardMapChange.MoveShards(new ShardSpan(4, 5), "h1").applyTo(map))
        .hasMessageContaining("already on h1");
    assertThatThrownBy(() -> new ShardMapChange.MoveShards(new ShardSpan(4, 5), "h9").applyTo(map))
        .hasMessageContaining("add it first");
  }
}
