package io.quiver.schema;

import io.quiver.core.GraphException;
import java.util.regex.Pattern;

/**
 * Type names become parts of table names ({@code nodes_<type>}, {@code edges_<type>}), so they
 * are held to a pattern that can never carry SQL: a lower-case letter, then up to 47 lower-case
 * letters, digits or underscores. With the longest prefix that stays within MySQL's 64
 * characters for an identifier.
 */
public final class Names {
  public static final Pattern TYPE_NAME = Pattern.compile("[a-z][a-z0-9_]{0,47}");

  private Names() {}

  public static boolean isValid(String name) {
    return name != null && TYPE_NAME.matcher(name).matches();
  }

  public static String requireValid(String kind, String name) {
    if (!isValid(name)) {
      throw GraphException.invalid(
          kind + " name '" + name + "' must match " + TYPE_NAME.pattern());
    }
    return name;
  }
}
