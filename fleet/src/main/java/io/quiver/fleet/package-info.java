/**
 * The fleet module's public face: the {@link io.quiver.fleet.AdminService} — every change to the
 * fleet (schema publishing, shard-map changes, provisioning, shard moves, repairs) behind one typed
 * interface, used alike by the HTTP admin routes, the command line and the console — the builder
 * that assembles it over a process's backend, and the reports it answers. It sits above
 * graph-store and schema-registry, beside the cache: it changes what graph-store serves through
 * graph-store's small face for it ({@link io.quiver.store.ShardLayout}, {@link io.quiver.store.Repairs},
 * the documents in ZooKeeper), and nothing below calls back up. Its work blocks (ZooKeeper, JDBC)
 * and runs on threads of its own, never on an event loop. Everything else is in
 * {@code io.quiver.fleet.internal}.
 */
package io.quiver.fleet;
