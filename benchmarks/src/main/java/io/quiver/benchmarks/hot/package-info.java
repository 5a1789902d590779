/**
 * The hot-path benchmark ({@code ./bench hot}): cached reads against a bare Vert.x server serving
 * the same bytes, driven by a load generator in a process of its own.
 */
package io.quiver.benchmarks.hot;
