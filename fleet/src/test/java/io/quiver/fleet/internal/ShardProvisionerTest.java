package io.quiver.fleet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.fleet.ProvisionReport;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.TestBackend;
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
