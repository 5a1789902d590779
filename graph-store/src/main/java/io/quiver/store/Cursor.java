package io.quiver.store;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Optional;

/**
 * A position in an edge list: the (sequence, to) of the last edge a page returned. Because it
 * names a position in the (sequence, to_id) order rather than a row count, paging stays exact
 * while edges are added in front of it. Opaque to clients: 16 bytes in URL-safe base64.
 */
public record Cursor(long sequence, long to) {
  private static final int BYTES = 2 * Long.BYTES;

  public String encode() {
    ByteBuffer buffer = ByteBuffer.allocate(BYTES).putLong(sequence).putLong(to);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(buffer.array());
  }

  /** The cursor a client sent back; empty when the text is not one this class wrote. */
  public static Optional<Cursor> decode(String text) {
    if (text == null || text.length() != 22) {
      return Optional.empty();
    }
    byte[] bytes;
    try {
      bytes = Base64.getUrlDecoder().decode(text);
    } catch (IllegalArgumentException notBase64) {
      return Optional.empty();
    }
    if (bytes.length != BYTES) {
      return Optional.empty();
    }
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    return Optional.of(new Cursor(buffer.getLong(), buffer.getLong()));
  }
}
