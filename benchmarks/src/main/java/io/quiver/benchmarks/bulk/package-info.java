/** {@code ./bench import}: bulk import against one HTTP call per edge, on the dev stack. */
package io.quiver.benchmarks.bulk;
