package io.quiver.schema;

/**
 * One way in which data fails its type's fields.
 *
 * @param path the JSON path of the offending value, such as {@code data.owner}
 * @param message what is wrong, for a person
 */
public record Violation(String path, String message) {}
