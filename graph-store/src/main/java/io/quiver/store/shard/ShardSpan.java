package io.quiver.store.shard;

import io.quiver.core.GraphException;
import io.quiver.store.NodeId;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The shards {@code from..to}, inclusive; written {@code "4-5"}, or {@code "4"} for one shard. */
public record ShardSpan(int from, int to) {
  private static final Pattern TEXT = Pattern.compile("([0-9]{1,5})(?:-([0-9]{1,5}))?");

  public ShardSpan {
    if (from < 0 || to > NodeId.MAX_SHARD || from > to) {
      throw GraphException.invalid(
          "shard span " + from + ".." + to + " must lie within 0.." + NodeId.MAX_SHARD + " with from <= to");
    }
  }

  /** Reads {@code "4"} or {@code "4-5"}, as operators type them; anything else is refused saying so. */
  public static ShardSpan parse(String text) {
    Matcher matcher = TEXT.matcher(text == null ? "" : text.trim());
    if (!matcher.matches()) {
      throw GraphException.invalid("shards are written as 4 or 4-5; got '" + text + "'");
    }
    int from = Integer.parseInt(matcher.group(1));
    return new ShardSpan(from, matcher.group(2) == null ? from : Integer.parseInt(matcher.group(2)));
  }

  public int size() {
    return to - from + 1;
  }

  @Override
  public String toString() {
    return from == to ? Integer.toString(from) : from + "-" + to;
  }
}
