/**
 * The one exception of the graph store, {@link io.quiver.error.GraphException}, with a small set
 * of codes. Callers branch on codes, never on messages; HTTP statuses are chosen only at the
 * edge, in graph-api.
 */
package io.quiver.error;
