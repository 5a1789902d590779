/**
 * The HTTP API of {@code shared/API.md} on Vert.x Web: request parsing and validation
 * ({@link io.quiver.http.Requests}), the JSON shapes of nodes and edges
 * ({@link io.quiver.http.ApiJson}) and the one place errors become status codes
 * ({@link io.quiver.http.ApiErrors}).
 */
package io.quiver.http;
