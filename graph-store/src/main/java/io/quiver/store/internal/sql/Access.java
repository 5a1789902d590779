package io.quiver.store.internal.sql;

/** What a request intends to do on a shard, which decides whether its state allows it and where it may go. */
public enum Access {
  /** A read of the primary: it sees every write acknowledged before it. */
  READ,
  /**
   * A read that tolerates bounded staleness: it may be answered by one of the host's replicas within
   * the lag bound, sent there when the primary is down or, hedged, when it is slow ({@link ReplicaLag}).
   */
  STALE_READ,
  WRITE
}
