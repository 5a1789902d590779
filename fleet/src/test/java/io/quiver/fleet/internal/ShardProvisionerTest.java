package io.quiver.fleet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.fleet.ProvisionReport;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.TestBackend;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class ShardProvisionerTest {

  private static ShardProvisioner provisioner(TestBackend backend) {
    return new ShardProvisioner(backend.hosts().user(), backend.hosts().password());
  }

  @Test
  void provision_secondRun_changesNothing() throws Exception {
    TestBackend backend = TestBackend.get();

    ProvisionReport again = provisioner(backend).provision(backend.shardMap(), backend.schema());

    assertThat(again.shards()).isEqualTo(TestBackend.SHARDS);
    assertThat(again.changedNothing()).as("%s", again).isTrue();
  }

  @Test
  void provision_keepsEachHostsTailPositionWhereItHasNone_andLeavesOneItHas() throws Exception {
    TestBackend backend = TestBackend.get();
    String host = backend.shardMap().hosts().keySet().iterator().next();
    String address = backend.shardMap().hosts().get(host).primary();
    try (Connection connection = backend.connect(address); Statement sql = connection.createStatement()) {
      sql.execute("DELETE FROM quiver_tail.positions WHERE host = '" + host + "'");

      provisioner(backend).provision(backend.shardMap(), backend.schema());
      String kept = position(sql, host);
      assertThat(kept).as("the host's binary log position at provisioning").matches("\\d+-\\d+-\\d+(,\\d+-\\d+-\\d+)*");

      sql.execute("UPDATE quiver_tail.positions SET gtid_pos = '0-1-1' WHERE host = '" + host + "'");
      provisioner(backend).provision(backend.shardMap(), backend.schema());
      assertThat(position(sql, host)).as("a position a tailer keeps is its own").isEqualTo("0-1-1");
      sql.execute("UPDATE quiver_tail.positions SET gtid_pos = '" + kept + "' WHERE host = '" + host + "'");
    }
  }

  private static String position(Statement sql, String host) throws Exception {
    try (ResultSet row = sql.executeQuery("SELECT gtid_pos FROM quiver_tail.positions WHERE host = '" + host + "'")) {
      assertThat(row.next()).as("a row for " + host).isTrue();
      return row.getString(1);
    }
  }

  @Test
  void provision_ofAnOutboxFromBeforeEntriesHadAKind_addsIt_andMarksTheOldCascadesAsCascades() throws Exception {
    TestBackend backend = TestBackend.get();
    ShardTables tables = new ShardTables(backend);
    String outbox = tables.outboxTable().on(0);
    // The layout before: no kind column, a cascade marked by edge type 0. Parked, so no drainer takes it.
    tables.execute(0, "ALTER TABLE " + outbox + " DROP COLUMN kind");
    tables.execute(0, "INSERT INTO " + outbox + " (edge_type, from_id, to_id, state, sequence, data, updated_us,"
        + " created_us, parked) VALUES (0, 4242, 4242, 0, 0, NULL, 0, 1, 1), (3, 4243, 4244, 1, 1, NULL, 1, 1, 1)");

    provisioner(backend).provision(backend.shardMap(), backend.schema());

    try {
      assertThat(tables.outboxKindOf(0, 4242)).as("the old cascade").isEqualTo("CASCADE_DELETE");
      assertThat(tables.outboxKindOf(0, 4243)).as("an old inverse entry").isEqualTo("INVERSE_EDGE");
    } finally {
      tables.execute(0, "DELETE FROM " + outbox + " WHERE from_id IN (4242, 4243)");
    }
  }
}
