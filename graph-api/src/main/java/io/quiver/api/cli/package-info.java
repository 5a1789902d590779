/**
 * The {@code quiver} command line on picocli ({@link io.quiver.api.cli.Main}): the server
 * ({@code serve}), the tools that work on a fleet through its configuration ({@code provision},
 * {@code repair --config}), and the operators' commands over a running server's admin API
 * ({@code status}, {@code shards}, {@code hosts}, {@code schema}, {@code outbox}, {@code node},
 * {@code edges}, {@code repair}, {@code import}) through one small blocking client
 * ({@code AdminHttp}). Package-private but for {@code Main} and {@link io.quiver.api.cli.CommandFailure}.
 */
package io.quiver.api.cli;
