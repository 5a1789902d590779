package io.quiver.store;

/** Whether an edge write answers before or after its inverse copy is written. */
public enum InverseWait {
  /** Answer once the forward write commits; the inverse follows through the outbox. The default. */
  ASYNC,
  /** Also write the inverse before answering, if its host can be reached; otherwise it follows. */
  APPLIED
}
