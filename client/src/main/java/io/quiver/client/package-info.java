/**
 * The Java client for Quiver's HTTP API v1: {@link io.quiver.client.QuiverClient}, with a method
 * per operation, each in an asynchronous ({@code …Async}, a {@link java.util.concurrent.CompletableFuture})
 * and a blocking form, typed results, and {@link io.quiver.client.QuiverException} carrying the
 * API's error code. It depends on nothing but the JDK and Jackson.
 */
package io.quiver.client;
