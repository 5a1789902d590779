package io.quiver.store.internal.sql;

/** What a request intends to do on a shard, which decides whether its state allows it. */
public enum Access {
  READ,
  WRITE
}
