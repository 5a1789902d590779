package io.quiver.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.id.NodeId;
import io.quiver.sql.SqlNames;
import io.quiver.testing.ShardTables;
import io.quiver.testing.StoreFixture;
import io.quiver.testing.TestBackend;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** An entry that can never be applied is parked with its error, and does not hold up the others. */
class ParkingTest {
  private static StoreFixture fixture;

  @BeforeAll
  static void start() throws Exception {
    fixture = new StoreFixture();
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  @Test
  void anEntryThatAlwaysFails_isParkedWithItsError() throws Exception {
    ShardTables tables = new ShardTables(TestBackend.get());
    tables.awaitOutboxesDrained(Duration.ofSeconds(30));
    // An operation for an edge type id no schema knows: it can never be applied.
    NodeId from = NodeId.of(0, 1, 1);
    tables.execute(0, "INSERT INTO " + SqlNames.table(0, "outbox")
        + " (edge_type, from_id, to_id, state, sequence, data, updated_us, created_us)"
        + " VALUES (999, " + from.value() + ", " + from.value() + ", 1, 1, NULL, 1, 1)");

    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (tables.outboxEntries(true) == 0) {
      assertThat(System.nanoTime()).as("the entry is parked").isLessThan(deadline);
      Thread.sleep(50);
    }
    assertThat(tables.outboxEntries(false)).as("nothing else waits behind it").isZero();
    tables.execute(0, "DELETE FROM " + SqlNames.table(0, "outbox") + " WHERE edge_type = 999");
  }
}
