package io.quiver.store;

import io.quiver.schema.FieldType;
import io.quiver.schema.UniqueIndex;
import java.util.Objects;

/**
 * The claim a unique field's index holds for one value: which node it names. A claim alone is
 * never trusted — a write that crashed between claiming and committing leaves one naming a node
 * that does not hold the value — so every read re-checks the node ({@link #heldBy}), as
 * FriendFeed's index readers do.
 *
 * @param type the node type
 * @param field the unique field
 * @param fieldType the field's type, by which the value is compared
 * @param key the value as the index compares it ({@link UniqueIndex#key})
 * @param node the node the claim names
 */
public record UniqueClaim(String type, String field, FieldType fieldType, String key, NodeId node) {
  public UniqueClaim {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(node, "node");
  }

  /** Whether {@code found} is the claimed node and holds the claimed value. */
  public boolean heldBy(Node found) {
    return found.id().equals(node) && key.equals(UniqueIndex.key(fieldType, found.data().get(field)));
  }
}
