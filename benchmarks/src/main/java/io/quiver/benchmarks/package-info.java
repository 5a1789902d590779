/**
 * What Quiver costs and gains, measured side by side in one run on one machine: JMH
 * micro-benchmarks ({@code jmh}) and the end-to-end LinkBench-mix workload with its baselines
 * ({@code workload}). Run both with {@code ./bench}.
 */
package io.quiver.benchmarks;
