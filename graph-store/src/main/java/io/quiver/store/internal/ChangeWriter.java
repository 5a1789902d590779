package io.quiver.store.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import io.quiver.schema.SchemaSource;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.Edge;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphChange;
import io.quiver.store.Node;
import io.quiver.store.NodeId;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.ChangesTable;
import io.quiver.store.internal.table.EdgeRow;
import io.quiver.store.internal.table.EdgesTable;
import io.quiver.store.internal.table.InverseMarksTable;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Logs the changes a write makes, in the write's own transaction ({@link ChangesTable}), as the
 * events consumers of the change log read. Every writer that commits a change to a node or an edge
 * copy — a client's write, the inverse writer, the delete rule, a cascade, a bulk import — builds
 * an entry for each ({@link #node}, {@link #edge}) and logs them ({@link #log}) before it commits,
 * so a change is logged if and only if it committed. Disabled, it builds and writes nothing.
 *
 * <p>When the log is written from the binary log ({@link ChangeLogSettings.Source#BINARY_LOG}) a
 * write builds and inserts no entry — its host's tailer makes them from the transaction's rows
 * ({@code TailedChanges}) — but a transaction writing inverse copies still marks itself
 * ({@link InverseMarksTable}), since the rows cannot say which copy they are. The same marks are
 * written when the writes log themselves, so either source reads a transaction alike.
 */
public final class ChangeWriter {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Which copy of an edge a write changed: the one on its FROM node's shard, or its inverse's. */
  public enum Copy {
    FORWARD,
    INVERSE
  }

  /** The {@code listVersion} an event built before its write's answer holds, where MariaDB writes the real one. */
  private static final long VERSION_HOLE = Long.MIN_VALUE;
  private static final String VERSION_KEY = "\"listVersion\":";
  /** The hole as compact JSON writes it: the first such text in an event, as every field before it is a name or an id. */
  private static final String VERSION_FIELD = VERSION_KEY + VERSION_HOLE;

  /** Whether events are built and their entries inserted. */
  private final boolean enabled;
  /** Whether transactions writing inverse copies mark themselves. */
  private final boolean marks;
  private final SchemaSource schemas;
  private final Clock clock;

  /** A writer that builds and logs every change ({@code enabled}), marks included, or nothing. */
  public ChangeWriter(boolean enabled, SchemaSource schemas, Clock clock) {
    this(enabled, enabled, schemas, clock);
  }

  private ChangeWriter(boolean enabled, boolean marks, SchemaSource schemas, Clock clock) {
    this.enabled = enabled;
    this.marks = marks;
    this.schemas = schemas;
    this.clock = clock;
  }

  /** The writes' writer for a store whose log is as {@code settings} say. */
  public static ChangeWriter of(ChangeLogSettings settings, SchemaSource schemas, Clock clock) {
    return new ChangeWriter(settings.writtenByWrites(), settings.enabled(), schemas, clock);
  }

  /** A writer that logs nothing (a test's, or a store with its log turned off). */
  public static ChangeWriter disabled() {
    return new ChangeWriter(false, null, Clock.systemUTC());
  }

  /**
   * The entry of a node written ({@code node}, with its type's defaults) or deleted ({@code node}
   * null); null when disabled.
   */
  public ChangesTable.Entry node(NodeId id, Node node) {
    if (!enabled) {
      return null;
    }
    return node == null ? node(id, null, null, 0) : node(id, node.type(), node.data(), node.version());
  }

  /**
   * The entry of a node of type {@code type} written at {@code version} with {@code data} (its
   * type's defaults applied), or deleted ({@code data} null; {@code type} may be null then, and is
   * looked up); null when disabled. For a reader that has the row rather than a {@link Node}
   * ({@code TailedChanges}).
   */
  public ChangesTable.Entry node(NodeId id, String type, ObjectNode data, long version) {
    if (!enabled) {
      return null;
    }
    String name = type != null ? type
        : schemas.current().nodeType(id.type()).map(found -> found.name()).orElse("#" + id.type());
    ObjectNode event = JSON.createObjectNode().put("kind", "node")
        .put("change", data == null ? "deleted" : version == 1 ? "created" : "updated")
        .put("id", id.toString()).put("type", name);
    if (data != null) {
      event.put("version", version).set("data", data);
    }
    return new ChangesTable.Entry(name, event.toString());
  }

  /**
   * The entry of an edge copy rewritten from {@code before} (null or a tombstone where there was no
   * edge) to {@code after}, as {@code changed} describes it; null when disabled, or for a tombstone
   * written where there was no edge (nothing a consumer could have seen changed).
   */
  public ChangesTable.Entry edge(GraphChange.EdgeChanged changed, EdgeRow before, EdgeRow after, Copy copy) {
    ObjectNode event = changed == null ? null : edgeEvent(changed, before, after, copy);
    return event == null ? null : new ChangesTable.Entry(changed.edgeType(), event.toString());
  }

  /** {@link #edge}'s event, or null when there is none to log. */
  private ObjectNode edgeEvent(GraphChange.EdgeChanged changed, EdgeRow before, EdgeRow after, Copy copy) {
    boolean was = before != null && before.live();
    if (!enabled || !was && !after.live()) {
      return null;
    }
    String change = !after.live() ? "removed"
        : !was ? "added"
        : before.state() == EdgeRow.ACTIVE && after.state() == EdgeRow.ARCHIVED ? "archived"
        : before.state() == EdgeRow.ARCHIVED && after.state() == EdgeRow.ACTIVE ? "restored"
        : "updated";
    ObjectNode event = JSON.createObjectNode().put("kind", "edge").put("change", change)
        .put("copy", copy == Copy.FORWARD ? "forward" : "inverse")
        .put("from", changed.from().toString()).put("type", changed.edgeType()).put("to", changed.to().toString())
        .put("listVersion", changed.listVersion());
    Edge edge = changed.edge();
    if (edge != null) {
      event.put("sequence", edge.sequence()).put("state", edge.state() == EdgeState.ARCHIVED ? "archived" : "active")
          .set("data", edge.data());
    }
    return event;
  }

  /**
   * Writes an edge copy ({@link EdgesTable#write}) and logs the change, sent together: the log's
   * INSERT goes out right behind the write's statements instead of a round trip after their answer
   * (issue 37). It can, because the event's only part the write decides — the list's new version
   * — is left to MariaDB: the write's last statement leaves it as the connection's
   * {@code LAST_INSERT_ID()}, which the INSERT reads ({@link ChangesTable#appendAtListVersion}).
   * Answers the write's change, as {@link EdgesTable#write} does.
   */
  public Future<GraphChange.EdgeChanged> writeEdge(SqlConnection connection, EdgesTable table, ShardRoute route,
      NodeId from, NodeId to, EdgeRow before, EdgeRow after, Copy copy) {
    return logged(connection, table, route, from, to, before, after, copy,
        table.write(connection, route, from, to, before, after));
  }

  /**
   * {@link #writeEdge} for a copy an upsert already wrote ({@link EdgesTable#upsertFrom},
   * {@link EdgesTable#upsertTombstone}): its list's count and version ({@link EdgesTable#counted})
   * and the log's INSERT, sent together.
   */
  public Future<GraphChange.EdgeChanged> upsertedEdge(SqlConnection connection, EdgesTable table, ShardRoute route,
      NodeId from, NodeId to, EdgesTable.Upserted upserted, Copy copy) {
    return logged(connection, table, route, from, to, upserted.before(), upserted.after(), copy,
        table.counted(connection, route, from, to, upserted.before(), upserted.after()));
  }

  /** Logs the change {@code written} makes, its INSERT sent right behind the write's statements. */
  private Future<GraphChange.EdgeChanged> logged(SqlConnection connection, EdgesTable table, ShardRoute route,
      NodeId from, NodeId to, EdgeRow before, EdgeRow after, Copy copy, Future<GraphChange.EdgeChanged> written) {
    GraphChange.EdgeChanged unversioned = new GraphChange.EdgeChanged(from, table.type().name(), to,
        after.live() ? table.edge(from, to, after) : null, VERSION_HOLE, 0);
    ObjectNode event = edgeEvent(unversioned, before, after, copy);
    if (event == null) {
      return copy == Copy.INVERSE && marks ? marked(connection, route, written) : written;
    }
    String text = event.toString();
    int hole = text.indexOf(VERSION_FIELD);
    if (hole < 0) {
      // Never silently: a log row with the hole's text in it would be read as a version.
      return written.transform(sent -> Future.failedFuture(GraphException.of(GraphException.Code.INTERNAL,
          "no list version hole in the change-log event " + text)));
    }
    Future<Void> logged = ChangesTable.INSTANCE.appendAtListVersion(connection, route,
        new ChangesTable.VersionedEntry(table.type().name(), text.substring(0, hole + VERSION_KEY.length()),
            text.substring(hole + VERSION_FIELD.length())),
        SqlValues.nowMicros(clock));
    Future<GraphChange.EdgeChanged> both = Future.all(written, logged).map(all -> written.result());
    return copy == Copy.INVERSE && marks ? marked(connection, route, both) : both;
  }

  /**
   * The entries of a batch's rewrites, {@code changed} answering them in order ({@link
   * EdgesTable#writeMany}), in the order the batch writes its rows — new rows first, then stored
   * ones — which is the order their lists' versions were given in, so a list's events are logged in
   * version order, as the binary log holds them.
   */
  public List<ChangesTable.Entry> edges(List<GraphChange.EdgeChanged> changed, List<EdgesTable.Rewrite> rewrites,
      Copy copy) {
    List<ChangesTable.Entry> entries = new ArrayList<>(changed.size());
    for (boolean inserts : new boolean[] {true, false}) {
      for (int i = 0; i < changed.size(); i++) {
        if ((rewrites.get(i).before() == null) == inserts) {
          entries.add(edge(changed.get(i), rewrites.get(i).before(), rewrites.get(i).after(), copy));
        }
      }
    }
    return entries;
  }

  /**
   * Logs the changes a batch of inverse copies made ({@link #edges} of {@code changed} and
   * {@code rewrites}) on {@code route}'s shard, and marks the transaction as one writing inverse
   * copies there ({@link InverseMarksTable}), which is what tells a reader of the binary log which
   * copies these rows are.
   */
  public Future<Void> logInverses(SqlConnection connection, ShardRoute route, List<GraphChange.EdgeChanged> changed,
      List<EdgesTable.Rewrite> rewrites) {
    if (!marks || rewrites.isEmpty()) {
      return Future.succeededFuture();
    }
    return marked(connection, route, log(connection, route, edges(changed, rewrites, Copy.INVERSE)));
  }

  /** {@code written}, with the transaction marked as writing inverse copies on {@code route}'s shard, sent beside it. */
  private static <T> Future<T> marked(SqlConnection connection, ShardRoute route, Future<T> written) {
    Future<Void> marked = InverseMarksTable.INSTANCE.mark(connection, route);
    return Future.all(written, marked).map(both -> written.result());
  }

  /** Logs {@code entries} (nulls skipped) on {@code route}'s shard, in {@code connection}'s transaction. */
  public Future<Void> log(SqlConnection connection, ShardRoute route, List<ChangesTable.Entry> entries) {
    if (!enabled) {
      return Future.succeededFuture();
    }
    List<ChangesTable.Entry> logged = new ArrayList<>(entries.size());
    entries.stream().filter(Objects::nonNull).forEach(logged::add);
    return logged.isEmpty() ? Future.succeededFuture()
        : ChangesTable.INSTANCE.append(connection, route, logged, SqlValues.nowMicros(clock));
  }

  /** As {@link #log(SqlConnection, ShardRoute, List)}, for one entry. */
  public Future<Void> log(SqlConnection connection, ShardRoute route, ChangesTable.Entry entry) {
    return entry == null ? Future.succeededFuture() : log(connection, route, List.of(entry));
  }
}
