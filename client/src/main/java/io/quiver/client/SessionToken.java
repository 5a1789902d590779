package io.quiver.client;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The read token a session carries ({@link QuiverClient#session()}): the server answers every write
 * with the token of the writes its request carried plus its own ({@code Quiver-Token}), and the
 * session keeps it. Two writes of one session may answer at once, each without the other's entry,
 * so the session merges what it is given with what it holds: the entries of both, the newest kept
 * past the server's bound, in the server's text form ({@code r1;shard:entry;…}, URL-safe base64).
 */
final class SessionToken {
  /** As the server's bound: a token keeps the newest 64 entries. */
  private static final int MAX_ENTRIES = 64;
  private final AtomicReference<String> current = new AtomicReference<>();

  /** The token to send; null before the session's first write. */
  String get() {
    return current.get();
  }

  /** A token an answer carried, merged into the session's. */
  void answered(String token) {
    current.accumulateAndGet(token, (held, given) -> held == null ? given : merge(held, given));
  }

  private static String merge(String held, String given) {
    List<String> heldParts = parts(held);
    List<String> givenParts = parts(given);
    if (heldParts == null || givenParts == null) {
      return given;
    }
    LinkedHashSet<String> entries = new LinkedHashSet<>(heldParts);
    entries.addAll(givenParts);
    List<String> kept = new ArrayList<>(entries);
    kept = kept.subList(Math.max(0, kept.size() - MAX_ENTRIES), kept.size());
    String text = "r1" + (kept.isEmpty() ? "" : ";" + String.join(";", kept));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  /** A token's entries; null when it is not in the form this client knows (the server's newer one wins then). */
  private static List<String> parts(String token) {
    try {
      String[] parts = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8).split(";");
      return parts[0].equals("r1") ? List.of(parts).subList(1, parts.length) : null;
    } catch (IllegalArgumentException notOurs) {
      return null;
    }
  }
}
