/** The embedded default: everything Quiver needs, started in one process with nothing to install. */
package io.quiver.dev;
