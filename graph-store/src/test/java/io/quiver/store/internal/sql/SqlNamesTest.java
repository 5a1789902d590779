package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.store.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class SqlNamesTest {
  @Test
  void database_isTheShardZeroPaddedToFiveDigits_andAShardOutsideTheRangeIsRefused() {
    assertThat(SqlNames.database(0)).isEqualTo("db00000");
    assertThat(SqlNames.database(7)).isEqualTo("db00007");
    assertThat(SqlNames.database(4242)).isEqualTo("db04242");
    assertThat(SqlNames.database(NodeId.MAX_SHARD)).isEqualTo("db" + NodeId.MAX_SHARD);
    assertThatThrownBy(() -> SqlNames.database(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SqlNames.database(NodeId.MAX_SHARD + 1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void shardOf_isDatabasesInverse_andAnyOtherNameIsNoShard() {
    for (int shard : new int[] {0, 7, 4242, NodeId.MAX_SHARD}) {
      assertThat(SqlNames.shardOf(SqlNames.database(shard))).isEqualTo(shard);
    }
    for (String other : new String[] {null, "", "db", "db0000", "db000001", "db0000x", "DB00003", "xb00003", "mysql",
        "db99999", "quiver_tail_scratch"}) {
      assertThat(SqlNames.shardOf(other)).as("'%s'", other).isEqualTo(-1);
    }
  }

  @Test
  void theNameCheck_acceptsExactlyWhatTheStrictPatternAccepts() {
    Pattern strict = Pattern.compile("[a-z][a-z0-9_]{0,63}");
    List<String> names = new ArrayList<>(List.of("", "a", "z", "nodes_pin", "edges_follows", "a1_", "outbox",
        "A", "Nodes", "1a", "_a", "a-b", "a b", "a`b", "a.b", "é", "aé", "a;", "a\u0000", "ab\n", "a" + "b".repeat(63),
        "a" + "b".repeat(64)));
    for (char c = 0; c < 200; c++) {
      names.add("a" + c);
      names.add(String.valueOf(c));
    }
    for (String name : names) {
      assertThat(SqlNames.isName(name)).as("'%s'", name).isEqualTo(strict.matcher(name).matches());
    }
    assertThat(SqlNames.isName(null)).isFalse();
  }

  @Test
  void table_isQualifiedAndQuoted_andANameOutsideThePatternIsRefused() {
    assertThat(SqlNames.table(3, "nodes_pin")).isEqualTo("`db00003`.`nodes_pin`");
    assertThatThrownBy(() -> SqlNames.table(3, "nodes`; DROP TABLE x; --")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SqlNames.identifier("Users")).isInstanceOf(IllegalStateException.class);
  }
}
