package io.quiver.store.internal;

import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.store.GraphChange;
import io.quiver.store.NodeId;
import io.quiver.store.internal.binlog.BinlogTail;
import io.quiver.store.internal.binlog.RowChange;
import io.quiver.store.internal.binlog.TailedTransaction;
import io.quiver.store.internal.outbox.InverseOp;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.ChangesTable;
import io.quiver.store.internal.table.CountsTable;
import io.quiver.store.internal.table.EdgeRow;
import io.quiver.store.internal.table.EdgesTable;
import io.quiver.store.internal.table.InverseMarksTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The change-log entries a committed transaction makes, built from the row images a host's binary
 * log holds of it ({@link TailedTransaction}), as {@link ChangeWriter} builds them from the write
 * itself: the same events, field for field, for a reader that was not the writer (docs/design.md,
 * "The change log written from the binary log"; {@code TailedChangesTest} writes through the store
 * with its log on and compares, shard by shard, what the log holds with what this builds from the
 * same transactions).
 *
 * <h2>What each row gives</h2>
 * <ul>
 *   <li>A node table's row ({@code local_id, data, version}) is a node's event: created at version
 *       1, updated after, deleted by a DELETE; its type is the table's, its data is the stored JSON
 *       with the type's defaults, as the schema is when the transaction is read.
 *   <li>An edge table's row ({@code from_id, to_id, sequence, state, data, updated_us}), before and
 *       after, is an edge copy's event, added, updated, archived, restored or removed as the two
 *       states say ({@link ChangeWriter#edge}); a row that was not live and is not now (a tombstone
 *       written or collected) makes none.
 *   <li>The event's {@code listVersion} is the version its list's {@code edge_counts} row was given
 *       next in the same transaction: every write of a copy moves its list's version right after
 *       the copy's row (one statement behind it, or one for a batch's lists behind the batch's
 *       rows), so the first update of that count row after the copy's is the one its write made.
 *   <li>The copy is inverse when the transaction moved the shard's {@link InverseMarksTable} row,
 *       forward otherwise: the rows themselves cannot say.
 * </ul>
 * Every other table's rows (the outbox, the change log's own, unique claims, import references)
 * make no event, and a tail is not asked for them ({@link #tables}).
 */
public final class TailedChanges {
  private final SchemaSource schemas;
  private final ChangeWriter writer;
  /** The schema's tables by name, rebuilt when the schema's version changes. */
  private volatile Lookup lookup;

  /** The node and edge tables of one schema version, by table name. */
  private record Lookup(long version, Map<String, NodeType> nodes, Map<String, EdgesTable> edges,
      Map<String, EdgeType> inverses) {
    static Lookup of(Schema schema) {
      Map<String, NodeType> nodes = new HashMap<>();
      schema.nodeTypes().values().forEach(type -> nodes.put(type.tableName(), type));
      Map<String, EdgesTable> edges = new HashMap<>();
      Map<String, EdgeType> inverses = new HashMap<>();
      schema.edgeTypes().values().forEach(type -> {
        edges.put(type.tableName(), new EdgesTable(type));
        schema.inverseOf(type).ifPresent(inverse -> inverses.put(type.tableName(), inverse));
      });
      return new Lookup(schema.version(), Map.copyOf(nodes), Map.copyOf(edges), Map.copyOf(inverses));
    }
  }

  /** One list a transaction changed: an edge type's list of one FROM node on one shard. */
  private record ListKey(int shard, long from, int edgeType) {}

  public TailedChanges(SchemaSource schemas, ChangeWriter writer) {
    this.schemas = schemas;
    this.writer = writer;
  }

  /** The tables whose rows make events: the schema's node and edge tables, the counts and the inverse marks. */
  public BinlogTail.Tables tables() {
    return (shard, table) -> {
      Lookup current = current();
      return current.nodes().containsKey(table) || current.edges().containsKey(table)
          || table.equals(CountsTable.INSTANCE.name()) || table.equals(InverseMarksTable.INSTANCE.name());
    };
  }

  /**
   * What a tailed transaction asks of the tailer: the change-log entries it makes, by shard, each
   * shard's in the order its rows were written; and the inverse copies it leaves to be written —
   * for each forward copy it wrote (an edge row inserted or updated on a shard whose inverse mark
   * it did not move), the operation that tells the other copy ({@link InverseOp#mirror}), as the
   * write itself would have put in an outbox entry. A row deleted outright (a collected tombstone)
   * leaves no inverse, and neither does a copy the inverse writer wrote, whose own mirror is the
   * copy that asked for it.
   */
  public record Tailed(Map<Integer, List<ChangesTable.Entry>> entries, List<InverseOp> inverses) {}

  /** {@code transaction}'s entries and inverses, its rows read once ({@link Tailed}). */
  public Tailed read(TailedTransaction transaction) {
    Lookup current = current();
    List<RowChange> rows = transaction.rows();
    Set<Integer> marked = new HashSet<>();
    Map<ListKey, long[]> versions = new HashMap<>();
    for (RowChange row : rows) {
      if (row.table().equals(InverseMarksTable.INSTANCE.name())) {
        marked.add(row.shard());
      } else if (row.table().equals(CountsTable.INSTANCE.name()) && row.after() != null) {
        long[] span = versions.computeIfAbsent(new ListKey(row.shard(), number(row.value(0)),
            (int) number(row.value(1))), key -> new long[] {row.before() == null ? 0 : number(row.before().get(3)), 0});
        span[1] = number(row.after().get(3));
      }
    }
    Map<ListKey, Integer> written = new HashMap<>();
    Map<Integer, List<ChangesTable.Entry>> entries = new LinkedHashMap<>();
    List<InverseOp> inverses = new ArrayList<>();
    for (RowChange row : rows) {
      NodeType nodeType = current.nodes().get(row.table());
      EdgesTable edges = nodeType == null ? current.edges().get(row.table()) : null;
      ChangesTable.Entry entry = null;
      if (nodeType != null) {
        entry = node(nodeType, row);
      } else if (edges != null) {
        boolean inverseCopy = marked.contains(row.shard());
        Copied copied = Copied.of(row);
        entry = edge(edges, copied, listVersion(versions, written, row, edges),
            inverseCopy ? ChangeWriter.Copy.INVERSE : ChangeWriter.Copy.FORWARD);
        EdgeType inverse = current.inverses().get(row.table());
        InverseOp op = inverse == null || inverseCopy || row.after() == null ? null
            : InverseOp.mirror(edges.type(), inverse, copied.from(), copied.to(), copied.after());
        if (op != null) {
          inverses.add(op);
        }
      }
      if (entry != null) {
        entries.computeIfAbsent(row.shard(), shard -> new ArrayList<>()).add(entry);
      }
    }
    return new Tailed(entries, inverses);
  }

  /** An edge copy's row change as its images hold it: its key, and its row before (null when new) and after. */
  private record Copied(NodeId from, NodeId to, EdgeRow before, EdgeRow after) {
    static Copied of(RowChange row) {
      return new Copied(new NodeId(number(row.value(0))), new NodeId(number(row.value(1))),
          row.before() == null ? null : edgeRow(row.before()),
          row.after() == null ? EdgeRow.ABSENT : edgeRow(row.after()));
    }
  }

  private ChangesTable.Entry node(NodeType type, RowChange row) {
    NodeId id = NodeId.of(row.shard(), type.id(), number(row.value(0)));
    if (row.after() == null) {
      return writer.node(id, type.name(), null, 0);
    }
    return writer.node(id, type.name(), type.withDefaults(SqlValues.parseObject(text(row.after().get(1)))),
        number(row.after().get(2)));
  }

  private ChangesTable.Entry edge(EdgesTable table, Copied copied, long listVersion, ChangeWriter.Copy copy) {
    EdgeRow after = copied.after();
    GraphChange.EdgeChanged changed = new GraphChange.EdgeChanged(copied.from(), table.type().name(), copied.to(),
        after.live() ? table.edge(copied.from(), copied.to(), after) : null, listVersion, 0);
    return writer.edge(changed, copied.before(), after, copy);
  }

  /**
   * The version the write of {@code row}, a copy of {@code table}, gave its list: the transaction
   * moved the list's version from {@code v0} to {@code v}, one step per copy of the list it wrote,
   * so its k-th copy of the list, in the order written, has {@code v0 + k}. Writes sent together
   * may write their copies' rows before any of their counts ({@code GroupCommit}), and a batch
   * moves each list once for all its copies ({@link EdgesTable#writeMany}, which gives a list's
   * versions to its rows in the order it writes them), so the count row's changes cannot be paired
   * with the copies one by one; their span can. 0 when the transaction did not touch the count
   * (nothing Quiver writes).
   */
  private static long listVersion(Map<ListKey, long[]> versions, Map<ListKey, Integer> written, RowChange row,
      EdgesTable table) {
    ListKey key = new ListKey(row.shard(), number(row.value(0)), table.type().id());
    long[] span = versions.get(key);
    if (span == null) {
      return 0;
    }
    int k = written.merge(key, 1, Integer::sum);
    return Math.min(span[0] + k, span[1]);
  }

  private static EdgeRow edgeRow(List<Object> image) {
    return new EdgeRow(number(image.get(2)), (int) number(image.get(3)), text(image.get(4)), number(image.get(5)));
  }

  private Lookup current() {
    Schema schema = schemas.current();
    Lookup held = lookup;
    if (held == null || held.version() != schema.version()) {
      held = Lookup.of(schema);
      lookup = held;
    }
    return held;
  }

  /** An integer column's value as the binary log gives it (an unsigned BIGINT's bits in a long). */
  private static long number(Object value) {
    return ((Number) value).longValue();
  }

  /** A text or JSON column's value, which the binary log gives as UTF-8 bytes; null for NULL. */
  private static String text(Object value) {
    return value == null ? null : value instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8)
        : value.toString();
  }
}
