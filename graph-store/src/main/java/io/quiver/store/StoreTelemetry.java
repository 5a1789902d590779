package io.quiver.store;

import io.vertx.core.Future;
import java.util.Map;

/**
 * What a {@link GraphBackend} reports about itself, beside the graph operations (as Caffeine puts
 * {@code stats()} beside {@code Cache}): statement counters, pools, outboxes and host health.
 */
public interface StoreTelemetry {

  /** Node read statements issued since start (one per getNode, one per shard of a getNodes). */
  long nodeReadQueries();

  /** Edge-list and count read statements issued since start. */
  long edgeReadQueries();

  /** Connections open in each host's request pool. */
  Map<String, Integer> poolSizes();

  /** The outbox figures of each host whose outboxes this process drains. */
  Future<Map<String, OutboxStats>> outboxStats();

  /**
   * Each host's name and whether it answers: the state of the probe the backend keeps on every
   * host ({@code mysql.downAfterMs}), read without a query, so asking costs nothing and never waits.
   */
  Map<String, Boolean> hostsAnswering();

  /**
   * Each host with something wrong, and what, read without a query as {@link #hostsAnswering} is:
   * {@code down: …} (its probe does not answer), or {@code degraded: …} (it answers, but its
   * COMMITs stall past the statement deadline, as on a full disk). Hosts that are well are absent.
   */
  Map<String, String> hostProblems();

  /**
   * Each host that lists replicas, and each replica's lag behind its primary in milliseconds (-1
   * while it is not known): an upper bound on how stale a read it answers is, measured by this
   * server's probes of GTID positions ({@link ReplicaReadSettings}).
   */
  Map<String, Map<String, Long>> replicaLags();

  /** What stale-tolerant reads did since start. */
  ReplicaReadFigures replicaReads();

  /**
   * Transactions that client writes ran in since start: writes to one host that wait while its
   * transactions are busy commit together, so {@link #clientWrites} over this is the mean group.
   */
  long clientWriteTransactions();

  /**
   * Client writes committed in groups since start, refused ones included: edge writes (adds,
   * removes, archives, restores) and updates of nodes whose type has no unique field.
   */
  long clientWrites();

  /**
   * Each probed host's state as health and status name it: {@code down} (its probe does not
   * answer), {@code degraded} (it answers, but something is wrong: {@link #hostProblems} says what)
   * or {@code up}.
   */
  default Map<String, String> hostStates() {
    Map<String, String> problems = hostProblems();
    Map<String, String> states = new java.util.LinkedHashMap<>();
    hostsAnswering().forEach((host, answering) -> states.put(host,
        !answering ? "down" : problems.containsKey(host) ? "degraded" : "up"));
    return states;
  }
}
