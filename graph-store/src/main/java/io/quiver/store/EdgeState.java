package io.quiver.store;

/** Whether an edge is listed: an archived edge keeps its row, sequence and data, out of lists and counts. */
public enum EdgeState {
  ACTIVE,
  ARCHIVED
}
