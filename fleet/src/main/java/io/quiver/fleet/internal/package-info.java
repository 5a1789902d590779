/**
 * How the fleet is changed, top-down from {@link io.quiver.fleet.internal.DefaultAdminService}:
 * the schema registry's orchestration ({@link io.quiver.fleet.internal.SchemaRegistry}: check,
 * provision, publish, build unique indexes), the shard map's one writer
 * ({@link io.quiver.fleet.internal.MapChanges}), provisioning over JDBC
 * ({@link io.quiver.fleet.internal.ShardProvisioner}) and shard moves ({@code move}).
 */
package io.quiver.fleet.internal;
