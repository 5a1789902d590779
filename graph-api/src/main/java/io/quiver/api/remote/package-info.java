/**
 * A running server's admin API as an {@link io.quiver.fleet.AdminService}: {@link
 * io.quiver.api.remote.RemoteAdminService}, what the command line is written against. Its calls
 * answer the same records and refusals as the service inside a server; the admin contract suite
 * holds both to that.
 */
package io.quiver.api.remote;
