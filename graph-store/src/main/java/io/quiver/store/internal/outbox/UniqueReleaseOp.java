package io.quiver.store.internal.outbox;

import io.quiver.store.NodeId;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.OutboxTable;

/**
 * Release a unique value a node no longer holds ({@link Kind#UNIQUE_RELEASE}): appended in the
 * transaction of the write that changed or removed the value, so the release is never lost, and
 * carried out after it commits by deleting the node's claim on the value's home shard — only if
 * the claim is older than {@code version}, the node version that dropped the value (a node that
 * took it back since keeps it).
 *
 * <p>Stored in the outbox's columns ({@link #columns}) as: {@code edge_type} the node type's id,
 * {@code from_id} and {@code to_id} the node, {@code sequence} the version, {@code data}
 * {@code {"field", "value"}}.
 *
 * @param nodeTypeId the node's type
 * @param field the unique field
 * @param key the value as the index compares it ({@link io.quiver.schema.UniqueIndex#key})
 * @param node the node that held it
 * @param version the node version (or, for a deletion, the version after the last) that dropped it
 */
public record UniqueReleaseOp(int nodeTypeId, String field, String key, NodeId node, long version)
    implements OutboxOp {

  @Override
  public Kind kind() {
    return Kind.UNIQUE_RELEASE;
  }

  @Override
  public OutboxTable.Columns columns() {
    return new OutboxTable.Columns(Kind.UNIQUE_RELEASE.code(), nodeTypeId, node.value(), node.value(), 0, version,
        SqlValues.toJson(SqlValues.emptyObject().put("field", field).put("value", key)), 0);
  }

  static UniqueReleaseOp of(OutboxTable.Columns columns) {
    var released = SqlValues.parseObject(columns.data());
    return new UniqueReleaseOp(columns.typeId(), released.path("field").asText(), released.path("value").asText(),
        new NodeId(columns.from()), columns.sequence());
  }
}
