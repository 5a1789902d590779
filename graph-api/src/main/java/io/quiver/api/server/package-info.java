/** A running Quiver server: ZooKeeper, the shard map, the graph store and the HTTP API, wired and stopped in order. */
package io.quiver.api.server;
