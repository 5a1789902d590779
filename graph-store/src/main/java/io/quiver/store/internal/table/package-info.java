/**
 * One class per table kind of a shard database — {@link io.quiver.store.internal.table.NodesTable},
 * {@link io.quiver.store.internal.table.EdgesTable}, {@link io.quiver.store.internal.table.CountsTable},
 * {@link io.quiver.store.internal.table.OutboxTable} — each owning its name, DDL, columns,
 * statements and row mapping, used alike by the stores, repair, tombstone collection and the test
 * fixtures, and lent to the fleet module's provisioning through {@link io.quiver.store.ShardLayout}
 * (name, DDL, upgrades). A table a later feature adds is a new class here and a line
 * in {@link io.quiver.store.internal.table.ShardTables}.
 */
package io.quiver.store.internal.table;
