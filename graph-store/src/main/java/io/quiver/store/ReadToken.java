package io.quiver.store;

import io.quiver.core.GraphException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Read-your-writes, across servers and inverse lists: what a write leaves for a later read to
 * observe. A write commits its own rows before it answers, on the shard's primary, so what a read
 * elsewhere could miss is what happens after: the inverse copy (and its count) written from the
 * outbox, and every other server's cache, told by a datagram. A token names the outbox entries of
 * the writes it covers ({@link Entry}: shard and entry id); a read that carries one first sees them
 * applied — applying any still waiting itself, as {@code waitForInverse} does, so it needs neither
 * the drainer nor a wait, only the inverse's host — and then reads the primary, not a cache
 * ({@link GraphStore#settle}, {@link GraphStore#fresh}). FlightTracker's tickets, kept small: an
 * entry per edge write, at most {@link #MAX_ENTRIES} (the newest kept when tokens merge).
 *
 * @param entries the outbox entries of the covered writes' inverse copies, oldest first
 */
public record ReadToken(List<Entry> entries) {
  /** The most entries a token keeps; merging more keeps the newest. */
  public static final int MAX_ENTRIES = 64;
  /** A token covering writes that left nothing to apply: a read carrying it reads the primary. */
  public static final ReadToken EMPTY = new ReadToken(List.of());
  private static final String VERSION = "r1";

  /** An outbox entry a covered write left: the inverse copy it will write. */
  public record Entry(int shard, long outboxId) {}

  public ReadToken {
    List<Entry> distinct = new ArrayList<>(new LinkedHashSet<>(entries));
    entries = List.copyOf(distinct.subList(Math.max(0, distinct.size() - MAX_ENTRIES), distinct.size()));
  }

  /** A token covering one write that left {@code entry}. */
  public static ReadToken of(int shard, long outboxId) {
    return new ReadToken(List.of(new Entry(shard, outboxId)));
  }

  /** A token covering the writes of both: a session's token merged with its newest write's. */
  public ReadToken merge(ReadToken other) {
    List<Entry> both = new ArrayList<>(entries);
    both.addAll(other.entries);
    return new ReadToken(both);
  }

  /** The opaque text a client keeps and sends back ({@code Quiver-Token}). */
  @Override
  public String toString() {
    StringBuilder text = new StringBuilder(VERSION);
    entries.forEach(entry -> text.append(';').append(entry.shard()).append(':').append(entry.outboxId()));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(text.toString().getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Reads a token's text.
   *
   * @throws GraphException INVALID_ARGUMENT when it is not a token this store gave
   */
  public static ReadToken parse(String text) {
    try {
      String[] parts = new String(Base64.getUrlDecoder().decode(text.trim()), StandardCharsets.UTF_8).split(";");
      if (!parts[0].equals(VERSION) || parts.length - 1 > MAX_ENTRIES) {
        throw new IllegalArgumentException("not a token");
      }
      List<Entry> entries = new ArrayList<>(parts.length - 1);
      for (int i = 1; i < parts.length; i++) {
        String[] entry = parts[i].split(":");
        int shard = Integer.parseInt(entry[0]);
        long id = Long.parseLong(entry[1]);
        if (entry.length != 2 || shard < 0 || shard > 65535 || id <= 0) {
          throw new IllegalArgumentException("out of range");
        }
        entries.add(new Entry(shard, id));
      }
      return new ReadToken(entries);
    } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
      throw GraphException.invalid("'" + (text.length() > 64 ? text.substring(0, 64) + "…" : text)
          + "' is not a read token this store gave (the Quiver-Token header of a write's answer)");
    }
  }
}
