/**
 * A host's binary log read as the row changes of its shard databases: {@link
 * io.quiver.store.internal.binlog.BinlogTail} follows one host from a GTID position on, on a thread
 * of its own, and hands each committed transaction ({@link
 * io.quiver.store.internal.binlog.TailedTransaction}, its rows {@link
 * io.quiver.store.internal.binlog.RowChange}) to its listener, with the position to resume after it.
 * The first part of the change log written from the binary log (docs/design.md, "Not built yet");
 * nothing reads a tail yet.
 */
package io.quiver.store.internal.binlog;
