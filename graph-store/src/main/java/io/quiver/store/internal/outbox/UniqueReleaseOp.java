package io.quiver.store.internal.outbox;

import io.quiver.store.NodeId;

/**
 * Release a unique value a node no longer holds ({@link Kind#UNIQUE_RELEASE}): appended in the
 * transaction of the write that changed or removed the value, so the release is never lost, and
 * carried out after it commits by deleting the node's claim on the value's home shard — only if
 * the claim is older than {@code version}, the node version that dropped the value (a node that
 * took it back since keeps it).
 *
 * <p>Stored in the outbox's typed columns as: {@code edge_type} the node type's id, {@code
 * from_id} and {@code to_id} the node, {@code sequence} the version, {@code data} {@code {"field",
 * "value"}}.
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
}
