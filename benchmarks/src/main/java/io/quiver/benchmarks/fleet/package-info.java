/**
 * {@code ./bench provision}: how long opening a range of shards on a host takes — its databases and
 * tables created before the shard map names them — through the admin service an operator uses.
 */
package io.quiver.benchmarks.fleet;
