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
 * outbox or the binary log, and every other server's cache, told by a datagram. A token names what
 * the writes it covers left to be written ({@link Entry}): each one's outbox entry (shard and entry
 * id), or, when the change log is written from the binary log and a write leaves no entry, the
 * copy it wrote (type, from, to). A read that carries one first sees them applied — applying any
 * still waiting itself, as {@code waitForInverse} does, the entry, or the written copy's mirror
 * from the copy as it is now, so it needs neither the drainer nor the tailer nor a wait, only the
 * hosts — and then reads the primary, not a cache ({@link GraphStore#settle},
 * {@link GraphStore#fresh}). FlightTracker's tickets, kept small: an entry per edge write, at most
 * {@link #MAX_ENTRIES} (the newest kept when tokens merge).
 *
 * @param entries what the covered writes left to be written, oldest first
 */
public record ReadToken(List<Entry> entries) {
  /** The most entries a token keeps; merging more keeps the newest. */
  public static final int MAX_ENTRIES = 64;
  /** A token covering writes that left nothing to apply: a read carrying it reads the primary. */
  public static final ReadToken EMPTY = new ReadToken(List.of());
  private static final String VERSION = "r1";

  /** What a covered write left to be written. */
  public sealed interface Entry permits Outboxed, Written {}

  /** An outbox entry a covered write left: the inverse copy it will write. */
  public record Outboxed(int shard, long outboxId) implements Entry {}

  /**
   * A copy a covered write wrote, whose mirror (the inverse copy) a read must see caught up with
   * it: of edge type {@code edgeType}, from {@code from} (whose shard holds it) to {@code to}.
   */
  public record Written(int edgeType, long from, long to) implements Entry {}

  public ReadToken {
    List<Entry> distinct = new ArrayList<>(new LinkedHashSet<>(entries));
    entries = List.copyOf(distinct.subList(Math.max(0, distinct.size() - MAX_ENTRIES), distinct.size()));
  }

  /** A token covering one write that left the outbox entry {@code outboxId} on {@code shard}. */
  public static ReadToken of(int shard, long outboxId) {
    return new ReadToken(List.of(new Outboxed(shard, outboxId)));
  }

  /** A token covering one write of the copy (from, to) of edge type {@code edgeType}, which left no entry. */
  public static ReadToken ofCopy(int edgeType, long from, long to) {
    return new ReadToken(List.of(new Written(edgeType, from, to)));
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
    for (Entry entry : entries) {
      text.append(';');
      if (entry instanceof Outboxed outboxed) {
        text.append(outboxed.shard()).append(':').append(outboxed.outboxId());
      } else if (entry instanceof Written written) {
        text.append(written.edgeType()).append(':').append(written.from()).append(':').append(written.to());
      }
    }
    return Base64.getUrlEncoder().withoutPadding().encodeToString(text.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** An entry's text: {@code shard:id} for an outbox entry, {@code type:from:to} for a written copy. */
  private static Entry entry(String[] fields) {
    if (fields.length == 2) {
      int shard = Integer.parseInt(fields[0]);
      long id = Long.parseLong(fields[1]);
      if (shard < 0 || shard > 65535 || id <= 0) {
        throw new IllegalArgumentException("out of range");
      }
      return new Outboxed(shard, id);
    }
    if (fields.length != 3) {
      throw new IllegalArgumentException("not an entry");
    }
    int edgeType = Integer.parseInt(fields[0]);
    long from = Long.parseLong(fields[1]);
    long to = Long.parseLong(fields[2]);
    if (edgeType <= 0 || from == 0 || to == 0) {
      throw new IllegalArgumentException("out of range");
    }
    return new Written(edgeType, from, to);
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
        entries.add(entry(parts[i].split(":")));
      }
      return new ReadToken(entries);
    } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
      throw GraphException.invalid("'" + (text.length() > 64 ? text.substring(0, 64) + "…" : text)
          + "' is not a read token this store gave (the Quiver-Token header of a write's answer)");
    }
  }
}
