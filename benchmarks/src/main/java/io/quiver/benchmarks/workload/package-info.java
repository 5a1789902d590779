/**
 * The end-to-end workload: a power-law social graph, the LinkBench operation mix with
 * Zipf-skewed IDs, and four targets measured one after another in the same run on the same data:
 * Quiver, Quiver with its cache off, the same operations as hand-written SQL over JDBC, and a bare
 * Vert.x endpoint answering a fixed node (the HTTP stack's ceiling).
 */
package io.quiver.benchmarks.workload;
