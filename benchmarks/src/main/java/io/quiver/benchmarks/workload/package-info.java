/**
 * The end-to-end workload: a power-law social graph, LinkBench's, TAO's or a writes-only mix with
 * Zipf-skewed IDs, and five targets measured one after another in the same run on the same data:
 * Quiver, Quiver with its cache off, a thin HTTP service over hand-written JDBC, the same SQL in
 * the generator's process, and a bare Vert.x endpoint answering a fixed node (the HTTP stack's
 * ceiling). {@link io.quiver.benchmarks.workload.Workload} runs the stack and the servers; the
 * load generator ({@link io.quiver.benchmarks.workload.GeneratorProcess}) runs in a JVM of its
 * own, so that the CPU each side spends is measured apart.
 */
package io.quiver.benchmarks.workload;
