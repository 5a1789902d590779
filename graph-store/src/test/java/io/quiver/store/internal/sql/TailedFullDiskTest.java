package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import io.quiver.store.ChangeLogSettings;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;

/**
 * {@link FullDiskTest} with the change log and the inverses read from the binary log ({@code
 * changes.source: binlog}): a write leaves no outbox entry, so its inverse exists only once the
 * host's tailer has read the write from the binary log. Nothing may then commit without reaching
 * that log, so the stalled COMMITs are not killed ({@link QueryKiller}, sparing commits): they wait
 * until the operator frees space and restarts the host, and the binary log was never off. Killed,
 * as with the log written by the writes, they committed unlogged and MariaDB turned its binary log
 * off, so no tailer saw them or any write after: acknowledged edges were left one-sided for good.
 */
class TailedFullDiskTest extends FullDiskTest {
  @Override
  protected ChangeLogSettings changeLog() {
    return ChangeLogSettings.defaults().from(ChangeLogSettings.Source.BINARY_LOG);
  }

  /**
   * The stalled COMMITs are left waiting, past the deadline. (Whether the binary log is still on
   * cannot be asked now: {@code SHOW MASTER STATUS} waits behind the stalled log; it is asked after
   * the restart.)
   */
  @Override
  protected void whileStalled() throws Exception {
    Await.until("a COMMIT of the pools waiting on h2 past twice the deadline, not killed", Duration.ofSeconds(10),
        () -> longestRunningMs(filling) > DEADLINE.toMillis() * 2);
    assertThat(backend.telemetry().hostProblems().get("h2")).as("h2 reported for its stalled commits, nothing else")
        .startsWith("degraded: its commits stall");
  }

  /** Space freed and the host restarted, as with the log written by the writes: its binary log was never off. */
  @Override
  protected Duration freeSpace() throws Exception {
    Duration back = super.freeSpace();
    assertThat(binaryLogOn()).as("h2's binary log written after the restart").isTrue();
    return back;
  }

  private boolean binaryLogOn() throws Exception {
    try (Connection connection = jdbc(filling); Statement statement = connection.createStatement();
        ResultSet status = statement.executeQuery("SHOW MASTER STATUS")) {
      return status.next();
    }
  }
}
