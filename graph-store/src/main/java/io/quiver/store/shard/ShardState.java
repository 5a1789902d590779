package io.quiver.store.shard;

import io.quiver.core.GraphException;
import java.util.Locale;

/** What a shard accepts. Maintenance marks a shard read-only before moving it (Netlog). */
public enum ShardState {
  READ_WRITE,
  READ_ONLY,
  OFFLINE;

  public String jsonName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  public static ShardState fromJsonName(String name) {
    for (ShardState state : values()) {
      if (state.jsonName().equals(name)) {
        return state;
      }
    }
    throw GraphException.invalid(
        "shard state '" + name + "' is not one of read-write, read-only, offline");
  }

  public boolean readable() {
    return this != OFFLINE;
  }

  public boolean writable() {
    return this == READ_WRITE;
  }
}
