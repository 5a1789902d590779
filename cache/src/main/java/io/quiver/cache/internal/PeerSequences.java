package io.quiver.cache.internal;

import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a receiver knows of each peer's numbering, and when it last heard from each: the rule that
 * turns a lost invalidation into a dropped cache instead of a stale one.
 *
 * <p>Every sender numbers its datagrams of changes 1, 2, 3… once for all its peers, and between
 * them sends a heartbeat carrying the last number it gave. A number the receiver skipped is a
 * <em>hole</em>: the datagram may be lost, or only overtaken by a later one (UDP keeps no order,
 * and a busy sender's event loop can hand two datagrams to the network in either order). A hole
 * filled within the {@code grace} was a reordering and costs nothing; one still open after it was
 * a loss, and since the receiver cannot know what it missed, {@link #overdue()} names the peer:
 * drop everything. The first version of this class dropped everything at the first skipped number,
 * and under load a LinkBench run cleared its caches dozens of times a second for datagrams that
 * arrived a moment later (issue 13).
 *
 * <p>Two cases cannot wait: a peer first heard mid-stream may have changed things before it knew
 * of this receiver, and more than {@link #MAX_HOLES} open holes is a peer whose datagrams are not
 * arriving at all — both answer {@link Verdict#GAP} at once. A peer that is registered but silent
 * for the bound, heartbeats included, may be writing without telling this receiver (it lost sight
 * of it in ZooKeeper): {@link #silent()} names it once per bound for as long as that lasts.
 *
 * <p>A lost change is therefore acted on within the heartbeat interval (when the hole is seen) plus
 * the grace plus the caller's polling interval of {@link #overdue()}; {@link CachePeers} keeps that
 * sum under the stale bound. Thread-safe; time comes from a {@link Ticker}, so tests move it by hand.
 */
public final class PeerSequences {
  /** What a numbered datagram means for the cache at once. */
  public enum Verdict {
    /** Nothing was missed, or what is missing may still arrive within the grace. */
    IN_ORDER,
    /** Something was missed and cannot arrive: drop everything cached. */
    GAP
  }

  /** More open holes than this from one peer are not a reordering: its datagrams are being lost. */
  static final int MAX_HOLES = 1024;
  private static final long UNKNOWN = -1;

  /** One peer: the highest number heard ({@code UNKNOWN} before its first datagram), when, and the holes below it. */
  private static final class Peer {
    long highest = UNKNOWN;
    long heardAt;
    /** Skipped numbers, each with when it was first missed, oldest first. */
    final LinkedHashMap<Long, Long> holes = new LinkedHashMap<>();

    Peer(long now) {
      heardAt = now;
    }
  }

  private final Map<String, Peer> peers = new HashMap<>();
  private final long boundNanos;
  private final long graceNanos;
  private final Ticker ticker;

  /**
   * @param bound how long a registered peer may stay silent before it counts as writing unheard
   * @param grace how long a skipped number may take to arrive before it counts as lost
   */
  public PeerSequences(Duration bound, Duration grace, Ticker ticker) {
    this.boundNanos = bound.toNanos();
    this.graceNanos = grace.toNanos();
    this.ticker = ticker;
  }

  /** A peer registered in ZooKeeper: its silence counts from now. */
  public synchronized void expect(String peer) {
    peers.computeIfAbsent(peer, p -> new Peer(ticker.read()));
  }

  /** A peer that left: neither its numbering nor its silence matter any more. */
  public synchronized void forget(String peer) {
    peers.remove(peer);
  }

  /** Datagram number {@code sequence} of changes from {@code peer}; a late one fills the hole it left. */
  public synchronized Verdict change(String peer, long sequence) {
    return heard(peer, sequence, sequence - 1);
  }

  /** A heartbeat from {@code peer}, {@code sequence} being the last number it gave. */
  public synchronized Verdict heartbeat(String peer, long sequence) {
    return heard(peer, sequence, sequence);
  }

  /** Heard {@code sequence}, which says that every number up to {@code sentBefore} was sent. */
  private Verdict heard(String name, long sequence, long sentBefore) {
    long now = ticker.read();
    Peer peer = peers.computeIfAbsent(name, p -> new Peer(now));
    peer.heardAt = now;
    if (peer.highest == UNKNOWN) {
      peer.highest = Math.max(sequence, 0);
      return sentBefore == 0 ? Verdict.IN_ORDER : Verdict.GAP;
    }
    if (sequence <= peer.highest) {
      peer.holes.remove(sequence);
      return Verdict.IN_ORDER;
    }
    if (sentBefore - peer.highest + peer.holes.size() > MAX_HOLES) {
      peer.holes.clear();
      peer.highest = sequence;
      return Verdict.GAP;
    }
    for (long missed = peer.highest + 1; missed <= sentBefore; missed++) {
      peer.holes.put(missed, now);
    }
    peer.highest = sequence;
    return Verdict.IN_ORDER;
  }

  /**
   * The peers with a hole open for longer than the grace: a datagram of theirs was lost. Their
   * holes are forgotten, since the caller drops everything it holds.
   */
  public synchronized List<String> overdue() {
    long now = ticker.read();
    List<String> lost = new ArrayList<>();
    for (Map.Entry<String, Peer> entry : peers.entrySet()) {
      Iterator<Long> oldest = entry.getValue().holes.values().iterator();
      if (oldest.hasNext() && now - oldest.next() >= graceNanos) {
        lost.add(entry.getKey());
        entry.getValue().holes.clear();
      }
    }
    return lost;
  }

  /**
   * The registered peers heard from neither change nor heartbeat within the bound. Each is given a
   * fresh bound, so a peer that stays silent is named once per bound, not at every call.
   */
  public synchronized List<String> silent() {
    long now = ticker.read();
    List<String> silent = new ArrayList<>();
    peers.forEach((name, peer) -> {
      if (now - peer.heardAt >= boundNanos) {
        silent.add(name);
        peer.heardAt = now;
      }
    });
    return silent;
  }
}
