/**
 * The HTTP API (README's table, {@code GET /openapi.json}) on Vert.x Web: request parsing and validation
 * ({@link io.quiver.api.http.Requests}), the JSON shapes of nodes and edges
 * ({@link io.quiver.api.http.ApiJson}) and the one place errors become status codes
 * ({@link io.quiver.api.http.ApiErrors}); what is refused before routing
 * ({@link io.quiver.api.http.RequestGate}, {@link io.quiver.api.http.CodecRefusals},
 * {@link io.quiver.api.http.SlowClients}); the request timeout
 * ({@link io.quiver.api.http.RequestDeadlines}); the admin calls ({@link io.quiver.api.http.AdminRoutes},
 * {@link io.quiver.api.http.ServerStatus}) and the console's static files
 * ({@link io.quiver.api.http.ConsoleRoutes}).
 */
package io.quiver.api.http;



