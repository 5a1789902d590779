package io.quiver.cache.internal;

import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a receiver knows of each peer's numbering, and when it last heard from each: the rule that
 * turns a lost invalidation into a dropped cache instead of a stale one.
 *
 * <p>Every sender numbers its changes 1, 2, 3… once for all its peers, and between changes sends a
 * heartbeat carrying the last number it gave. A receiver that sees a number it did not expect — a
 * datagram lost, or a peer first heard mid-stream, which may have changed things before it knew
 * of this receiver — cannot know what it missed, and so answers {@link Verdict#GAP}: drop
 * everything. A peer that is registered but silent for the bound, heartbeats included, may be
 * writing without telling this receiver (it lost sight of it in ZooKeeper): {@link #silent()}
 * names it once per bound for as long as that lasts.
 *
 * <p>Thread-safe; time comes from a {@link Ticker}, so tests move it by hand.
 */
public final class PeerSequences {
  /** What a numbered datagram means for the cache. */
  public enum Verdict {
    /** Nothing was missed. */
    IN_ORDER,
    /** Something may have been missed: drop everything cached. */
    GAP
  }

  /** The last number heard from a peer ({@code UNKNOWN} before its first datagram) and when. */
  private record Heard(long sequence, long atNanos) {}

  private static final long UNKNOWN = -1;

  private final Map<String, Heard> peers = new HashMap<>();
  private final long boundNanos;
  private final Ticker ticker;

  public PeerSequences(Duration bound, Ticker ticker) {
    this.boundNanos = bound.toNanos();
    this.ticker = ticker;
  }

  /** A peer registered in ZooKeeper: its silence counts from now. */
  public synchronized void expect(String peer) {
    peers.putIfAbsent(peer, new Heard(UNKNOWN, ticker.read()));
  }

  /** A peer that left: neither its numbering nor its silence matter any more. */
  public synchronized void forget(String peer) {
    peers.remove(peer);
  }

  /** Change number {@code sequence} from {@code peer}. A late (reordered) one is in order: it was counted as missed. */
  public synchronized Verdict change(String peer, long sequence) {
    Heard last = peers.get(peer);
    long known = last == null ? UNKNOWN : last.sequence();
    boolean inOrder = known == UNKNOWN ? sequence == 1 : sequence <= known + 1;
    peers.put(peer, new Heard(Math.max(known, sequence), ticker.read()));
    return inOrder ? Verdict.IN_ORDER : Verdict.GAP;
  }

  /** A heartbeat from {@code peer}, {@code sequence} being the last change it numbered. */
  public synchronized Verdict heartbeat(String peer, long sequence) {
    Heard last = peers.get(peer);
    long known = last == null ? UNKNOWN : last.sequence();
    boolean inOrder = known == UNKNOWN ? sequence == 0 : sequence <= known;
    peers.put(peer, new Heard(Math.max(known, sequence), ticker.read()));
    return inOrder ? Verdict.IN_ORDER : Verdict.GAP;
  }

  /**
   * The registered peers heard from neither change nor heartbeat within the bound. Each is given a
   * fresh bound, so a peer that stays silent is named once per bound, not at every call.
   */
  public synchronized List<String> silent() {
    long now = ticker.read();
    List<String> silent = new ArrayList<>();
    peers.replaceAll((peer, heard) -> {
      if (now - heard.atNanos() < boundNanos) {
        return heard;
      }
      silent.add(peer);
      return new Heard(heard.sequence(), now);
    });
    return silent;
  }
}
