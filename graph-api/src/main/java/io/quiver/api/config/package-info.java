/** Quiver's configuration: one typed, validated object, read from a JSON file. */
package io.quiver.api.config;
