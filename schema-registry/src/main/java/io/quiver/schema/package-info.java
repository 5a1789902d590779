/**
 * The schema registry's model: node types, edge types, their fields and JSON defaults.
 *
 * <p>A {@link io.quiver.schema.Schema} is one consistent, immutable snapshot with a version.
 * Node data is stored as JSON holding only the fields a client wrote; the registry supplies
 * defaults on read ({@link io.quiver.schema.NodeType#withDefaults}), so adding a field never
 * touches a table.
 */
package io.quiver.schema;
