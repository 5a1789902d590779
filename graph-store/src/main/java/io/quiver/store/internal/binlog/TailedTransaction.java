package io.quiver.store.internal.binlog;

import java.util.List;
import java.util.Objects;

/**
 * A transaction a host committed, as its binary log holds it: its GTID ({@code domain-server-sequence}),
 * the GTID position through it ({@code through}: every domain's last transaction, as MariaDB's
 * {@code @@gtid_binlog_pos} writes it), from which a tail started again delivers exactly the
 * transactions after this one, and the rows it changed in the tables the tail was asked for, in the
 * order they were written. A transaction that changed none of them still arrives, with no rows, so a
 * reader's position can move past it.
 */
public record TailedTransaction(String gtid, String through, List<RowChange> rows) {
  public TailedTransaction {
    Objects.requireNonNull(gtid, "gtid");
    Objects.requireNonNull(through, "through");
    rows = List.copyOf(rows);
  }
}
