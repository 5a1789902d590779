package io.quiver.store;

import io.quiver.core.GraphException;
import io.quiver.schema.Ids;
import java.util.Optional;

/**
 * A node's globally unique, immutable 64-bit ID: {@code [2 reserved = 0][16 shard][10 type][36 local]}.
 *
 * <p>The shard says which database holds the node, the type which object table, and the local
 * part is that table's AUTO_INCREMENT value, so IDs are unique without any coordination. Parts
 * out of range are refused, never wrapped: a wrapped local ID would silently alias another node.
 * In JSON an ID is written as a decimal string, because IDs exceed 2^53.
 */
public record NodeId(long value) implements Comparable<NodeId> {
  public static final int SHARD_BITS = 16;
  public static final int TYPE_BITS = 10;
  public static final int LOCAL_BITS = 36;
  public static final int MAX_SHARD = (1 << SHARD_BITS) - 1;
  public static final int MAX_TYPE = (1 << TYPE_BITS) - 1;
  public static final long MAX_LOCAL = (1L << LOCAL_BITS) - 1;

  private static final int TYPE_SHIFT = LOCAL_BITS;
  private static final int SHARD_SHIFT = LOCAL_BITS + TYPE_BITS;

  public NodeId {
    if (value < 0 || (value >>> (SHARD_SHIFT + SHARD_BITS)) != 0) {
      throw GraphException.invalid("ID " + Long.toUnsignedString(value) + " sets a reserved bit");
    }
  }

  public static NodeId of(int shard, int type, long local) {
    if (shard < 0 || shard > MAX_SHARD) {
      throw GraphException.invalid("shard " + shard + " is outside 0.." + MAX_SHARD);
    }
    if (type < 0 || type > MAX_TYPE) {
      throw GraphException.invalid("type " + type + " is outside 0.." + MAX_TYPE);
    }
    if (local < 0 || local > MAX_LOCAL) {
      throw GraphException.invalid("local ID " + local + " is outside 0.." + MAX_LOCAL);
    }
    return new NodeId(((long) shard << SHARD_SHIFT) | ((long) type << TYPE_SHIFT) | local);
  }

  /** The ID written as decimal digits; empty for anything else, including a reserved bit set. */
  public static Optional<NodeId> parse(String text) {
    long value = Ids.parse(text);
    return value < 0 ? Optional.empty() : fromLong(value);
  }

  /** The ID with this value; empty when the value is negative or sets a reserved bit. */
  public static Optional<NodeId> fromLong(long value) {
    return value >= 0 && (value >>> (SHARD_SHIFT + SHARD_BITS)) == 0
        ? Optional.of(new NodeId(value))
        : Optional.empty();
  }

  public int shard() {
    return shardOf(value);
  }

  public int type() {
    return typeOf(value);
  }

  public long local() {
    return value & MAX_LOCAL;
  }

  public static int shardOf(long value) {
    return (int) ((value >>> SHARD_SHIFT) & MAX_SHARD);
  }

  public static int typeOf(long value) {
    return (int) ((value >>> TYPE_SHIFT) & MAX_TYPE);
  }

  @Override
  public int compareTo(NodeId other) {
    return Long.compare(value, other.value);
  }

  @Override
  public String toString() {
    return Long.toString(value);
  }

  /** How schema validation reads node types out of IDs under {@code schema}: an id field must hold an ID of its type. */
  public static io.quiver.schema.Fields.IdTypes idTypes(io.quiver.schema.Schema schema) {
    return new io.quiver.schema.Fields.IdTypes() {
      @Override
      public int typeIdOf(String nodeType) {
        return schema.nodeType(nodeType).map(io.quiver.schema.NodeType::id).orElse(-1);
      }

      @Override
      public int typeOfId(long id) {
        return typeOf(id);
      }
    };
  }
}
