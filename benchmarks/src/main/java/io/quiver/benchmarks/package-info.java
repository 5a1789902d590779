/**
 * JMH micro-benchmarks and the end-to-end workload driver, with their baselines measured in the
 * same run. Not built yet: its issue ("Benchmarks: JMH and an end-to-end social-graph
 * workload") is open, and no speed is claimed until it is.
 */
package io.quiver.benchmarks;
