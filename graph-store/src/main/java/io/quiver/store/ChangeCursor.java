package io.quiver.store;

import io.quiver.core.GraphException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where a consumer of the change log stands: for each shard it reads, the position of the last
 * change it has seen there (0: none yet). One cursor covers every shard a consumer reads; each
 * event carries the cursor just after it, so a consumer that stores the cursor of the last event
 * it processed resumes exactly after it. Positions are per shard, not per host, so a cursor stays
 * good across a shard move and a failover. Its text form is opaque (URL-safe base64).
 */
public final class ChangeCursor {
  /** A consumer that has seen nothing: every shard from its first retained change. */
  public static final ChangeCursor START = new ChangeCursor(Map.of());

  private final Map<Integer, Long> positions;

  private ChangeCursor(Map<Integer, Long> positions) {
    this.positions = Collections.unmodifiableMap(new TreeMap<>(positions));
  }

  /** The position last seen on {@code shard}; 0 when none. */
  public long position(int shard) {
    return positions.getOrDefault(shard, 0L);
  }

  /** Every shard with a position, and its position. */
  public Map<Integer, Long> positions() {
    return positions;
  }

  /** This cursor moved past {@code position} on {@code shard}. */
  public ChangeCursor after(int shard, long position) {
    Map<Integer, Long> moved = new TreeMap<>(positions);
    moved.put(shard, position);
    return new ChangeCursor(moved);
  }

  /** The opaque text a consumer keeps. */
  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("c1");
    positions.forEach((shard, position) -> text.append(';').append(shard).append(':').append(position));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(text.toString().getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Reads a cursor's text; null or empty is {@link #START}.
   *
   * @throws GraphException INVALID_ARGUMENT when it is not a cursor this store gave
   */
  public static ChangeCursor parse(String text) {
    if (text == null || text.isEmpty()) {
      return START;
    }
    try {
      String decoded = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
      String[] parts = decoded.split(";");
      if (!parts[0].equals("c1")) {
        throw new IllegalArgumentException("unknown version");
      }
      Map<Integer, Long> positions = new TreeMap<>();
      for (int i = 1; i < parts.length; i++) {
        String[] entry = parts[i].split(":");
        int shard = Integer.parseInt(entry[0]);
        long position = Long.parseLong(entry[1]);
        if (shard < 0 || shard > 65535 || position < 0 || entry.length != 2) {
          throw new IllegalArgumentException("out of range");
        }
        positions.put(shard, position);
      }
      return new ChangeCursor(positions);
    } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
      throw GraphException.invalid("'" + (text.length() > 64 ? text.substring(0, 64) + "…" : text)
          + "' is not a change cursor this store gave");
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ChangeCursor cursor && cursor.positions.equals(positions);
  }

  @Override
  public int hashCode() {
    return positions.hashCode();
  }
}
