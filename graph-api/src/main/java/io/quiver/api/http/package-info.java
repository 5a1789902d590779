/**
 * The HTTP API of {@code shared/API.md} on Vert.x Web: request parsing and validation
 * ({@link io.quiver.api.http.Requests}), the JSON shapes of nodes and edges
 * ({@link io.quiver.api.http.ApiJson}) and the one place errors become status codes
 * ({@link io.quiver.api.http.ApiErrors}).
 */
package io.quiver.api.http;



