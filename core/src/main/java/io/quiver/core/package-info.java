/**
 * What every module shares: the one exception, {@link io.quiver.core.GraphException}, with a
 * small set of codes (callers branch on codes, never on messages; HTTP statuses are chosen only
 * at the edge, in graph-api), and {@link io.quiver.core.Futures#attempt}, which keeps the rule
 * that a method returning a Future never throws. The versioned ZooKeeper document behind the
 * shard map and the schema registry is in {@code io.quiver.core.zk}.
 */
package io.quiver.core;
