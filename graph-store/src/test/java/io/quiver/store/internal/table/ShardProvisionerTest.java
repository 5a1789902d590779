package io.quiver.store.internal.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.ProvisionReport;
import io.quiver.store.internal.outbox.OutboxOp;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.TestBackend;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class ShardProvisionerTest {

  @Test
  void provision_secondRun_changesNothing() throws Exception {
    TestBackend backend = TestBackend.get();

    ProvisionReport again = backend.provisioner().provision(backend.shardMap(), backend.schema());

    assertThat(again.shards()).isEqualTo(TestBackend.SHARDS);
    assertThat(again.changedNothing()).as("%s", again).isTrue();
  }

  @Test
  void provision_ofAnOutboxFromBeforeEntriesHadAKind_addsIt_andMarksTheOldCascadesAsCascades() throws Exception {
    TestBackend backend = TestBackend.get();
    ShardTables tables = new ShardTables(backend);
    String outbox = OutboxTable.INSTANCE.on(0);
    // The layout before: no kind column, a cascade marked by edge type 0. Parked, so no drainer takes it.
    tables.execute(0, "ALTER TABLE " + outbox + " DROP COLUMN kind");
    tables.execute(0, "INSERT INTO " + outbox + " (edge_type, from_id, to_id, state, sequence, data, updated_us,"
        + " created_us, parked) VALUES (0, 4242, 4242, 0, 0, NULL, 0, 1, 1), (3, 4243, 4244, 1, 1, NULL, 1, 1, 1)");

    backend.provisioner().provision(backend.shardMap(), backend.schema());

    try (Connection connection = DriverManager.getConnection("jdbc:mysql://" + backend.hosts().addresses().get(0) + "/",
            backend.hosts().user(), backend.hosts().password());
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT from_id, kind FROM " + outbox + " WHERE from_id IN (4242, 4243)"
            + " ORDER BY from_id")) {
      assertThat(rows.next()).isTrue();
      assertThat(rows.getInt("kind")).as("the old cascade").isEqualTo(OutboxOp.Kind.CASCADE_DELETE.code());
      assertThat(rows.next()).isTrue();
      assertThat(rows.getInt("kind")).as("an old inverse entry").isEqualTo(OutboxOp.Kind.INVERSE_EDGE.code());
    } finally {
      tables.execute(0, "DELETE FROM " + outbox + " WHERE from_id IN (4242, 4243)");
    }
  }
}
