package io.quiver.schema;

import com.fasterxml.jackson.databind.JsonNode;
import io.quiver.core.GraphException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;

/**
 * A unique field's index: Pinterest's "mod shard" and FriendFeed's index tables. Each value a node
 * holds is claimed by one row in a lookup table on the value's home shard; the claim says which
 * node holds it, and is never trusted alone — a read re-checks the node.
 *
 * <p>The home shard is a hash of the value over {@code shards}, a count fixed when the index is
 * declared: a key never moves when the fleet grows, because adding shards does not change the
 * count. Values are compared exactly as {@link #key} writes them — a string byte for byte (no case
 * folding: a team that wants case-insensitive usernames stores them folded), an integer as its
 * decimal digits, so {@code 5} and {@code 5.0} are one value.
 *
 * @param shards the shards the index spreads over, 0 while a declaration waits for the registry
 *     to fix it from the shard map ({@link #DECLARED})
 * @param state whether the index may answer lookups yet
 */
public record UniqueIndex(int shards, State state) {

  /** What {@code "unique": true} declares: the registry fixes the shard count and builds it. */
  public static final UniqueIndex DECLARED = new UniqueIndex(0, State.BUILDING);

  /** Whether an index answers lookups. Writes claim values in both states. */
  public enum State {
    /**
     * Writes claim their values, but stored nodes may hold values not yet claimed: the build (the
     * repair scan) claims them, and the index turns active only once it found no duplicates.
     */
    BUILDING,
    /** Every value a node holds is claimed: lookups are answered. */
    ACTIVE;

    public String jsonName() {
      return Names.lowerCase(this);
    }

    public static State fromJsonName(String name) {
      return Names.lowerCaseConstant(values(), name, "unique index state");
    }
  }

  public UniqueIndex {
    if (shards < 0) {
      throw GraphException.invalid("a unique index spreads over a positive number of shards, not " + shards);
    }
    if (state == null) {
      throw GraphException.invalid("a unique index needs a state");
    }
  }

  /** A value more than one stored node holds: what keeps an index from turning active. */
  public record Duplicate(String value, List<String> nodes) {
    public Duplicate {
      nodes = List.copyOf(nodes);
    }

    /** The refusal to activate an index while values are held twice; lists (the first 100 of) them. */
    public static GraphException refusal(String type, String field, List<Duplicate> duplicates) {
      List<Map<String, Object>> listed = duplicates.stream().limit(100)
          .map(duplicate -> Map.<String, Object>of("value", duplicate.value(), "nodes", duplicate.nodes()))
          .toList();
      return GraphException.of(GraphException.Code.UNIQUE_VIOLATION, "the unique index of " + type + "." + field
              + " stays building, not active: " + duplicates.size() + " value(s) are held by more than one node,"
              + " first " + duplicates.get(0).value() + " by " + duplicates.get(0).nodes()
              + "; change them, then run the repair (quiver repair --unique " + type + "." + field + ")",
          Map.of("field", field, "duplicates", listed));
    }
  }

  public boolean declared() {
    return shards == 0;
  }

  public boolean active() {
    return state == State.ACTIVE;
  }

  public UniqueIndex withState(State next) {
    return new UniqueIndex(shards, next);
  }

  /** The field types a unique index accepts. */
  public static boolean indexable(FieldType type) {
    return type == FieldType.STRING || type == FieldType.INTEGER;
  }

  /**
   * The value as the index compares it, or null when it is absent or not of the field's type: a
   * string's own text, an integer's decimal digits.
   */
  public static String key(FieldType type, JsonNode value) {
    if (value == null || value.isNull() || !type.accepts(value)) {
      return null;
    }
    return type == FieldType.STRING ? value.textValue() : value.decimalValue().toBigInteger().toString();
  }

  /** SHA-256 of the key's UTF-8 bytes: the lookup table's primary key, whatever the value's length. */
  public static byte[] hash(String key) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /** The shard that holds the key's claim: the hash's first eight bytes modulo {@link #shards}. */
  public int homeShard(byte[] hash) {
    if (declared()) {
      throw new IllegalStateException("the index's shard count is not fixed yet");
    }
    long prefix = 0;
    for (int i = 0; i < 8; i++) {
      prefix = (prefix << 8) | (hash[i] & 0xff);
    }
    return (int) Math.floorMod(prefix, (long) shards);
  }
}
