/**
 * The {@code quiver} command line on picocli ({@link io.quiver.api.cli.Main}): the server
 * ({@code serve}), the tools that work on a fleet through its configuration ({@code provision},
 * {@code repair --config}), and the operators' commands over a running server's admin API
 * ({@code status}, {@code shards}, {@code hosts}, {@code schema}, {@code outbox}, {@code node},
 * {@code edges}, {@code repair}, {@code import}). Each operator's command is written once against
 * {@link io.quiver.fleet.AdminService} and its typed records — a server's through
 * {@link io.quiver.api.remote.RemoteAdminService}, or this process's own under {@code --config} —
 * and graph reads go through the Java client; no command reads a JSON answer by field name.
 * Package-private but for {@code Main} and {@link io.quiver.api.cli.CommandFailure}.
 */
package io.quiver.api.cli;
