/** JMH micro-benchmarks of the hot pieces: IDs, cursors, JSON, schema validation and the node cache. */
package io.quiver.benchmarks.jmh;
