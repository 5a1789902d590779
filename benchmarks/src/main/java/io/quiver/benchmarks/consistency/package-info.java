/**
 * {@code ./bench consistency}: what read-your-writes tokens and atomic multi-reads cost, and how
 * often a multi-read needs its second round — writers on one server, readers on another, the
 * reads plain, token'd and atomic in interleaved phases ({@link ConsistencyBenchmark}).
 */
package io.quiver.benchmarks.consistency;
