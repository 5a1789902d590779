/** Benchmarks of what a setting costs a write: the dev stack per variant, in alternating rounds. */
package io.quiver.benchmarks.writes;
