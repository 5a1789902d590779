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
  /** A table name a type's name and a field's make (a unique field's lookup table): MySQL's 64 characters. */
  public static final Pattern TABLE_NAME = Pattern.compile("[a-z][a-z0-9_]{0,63}");

  private Names() {}

  public static boolean isValid(String name) {
    return name != null && TYPE_NAME.matcher(name).matches();
  }

  public static boolean isValidTable(String name) {
    return name != null && TABLE_NAME.matcher(name).matches();
  }

  public static String requireValid(String kind, String name) {
    if (!isValid(name)) {
      throw GraphException.invalid(
          kind + " name '" + name + "' must match " + TYPE_NAME.pattern());
    }
    return name;
  }

  /**
   * The constant whose lower-case name is {@code name} — how the registry's documents spell enum
   * values — or INVALID_ARGUMENT saying which {@code what} is unknown and listing the known ones.
   */
  public static <E extends Enum<E>> E lowerCaseConstant(E[] constants, String name, String what) {
    for (E constant : constants) {
      if (lowerCase(constant).equals(name)) {
        return constant;
      }
    }
    throw GraphException.invalid("unknown " + what + " '" + name + "'; the known ones are "
        + java.util.Arrays.stream(constants).map(Names::lowerCase).toList());
  }

  /** An enum constant as the registry's documents spell it. */
  public static String lowerCase(Enum<?> constant) {
    return constant.name().toLowerCase(java.util.Locale.ROOT);
  }
}
