/** What a server measures, in Prometheus form at {@code GET /metrics} (Micrometer). */
package io.quiver.api.metrics;
