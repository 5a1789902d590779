/** The {@code quiver} command line: {@code dev}, {@code serve}, {@code provision}. */
package io.quiver.api.cli;
