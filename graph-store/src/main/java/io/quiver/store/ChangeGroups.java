package io.quiver.store;

import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Consumer groups over the {@link ChangeLog}: the members of a group split its shards among
 * themselves, and the group keeps, per shard, the position its members have committed, so a shard
 * that changes hands — a member joined, left or died — is taken up where the group left it.
 *
 * <p>Kafka's consumer groups, with the coordination kept where Quiver already keeps its shared
 * state: in ZooKeeper (each member an ephemeral znode for as long as it follows, the committed
 * positions one document), so a consumer needs nothing but HTTP. Shards are the unit: every
 * server computes the same assignment from the same sorted list of members (the i-th shard of the
 * map to the member at {@code i mod n}), so no leader hands it out; a member learns of a change of
 * hands by its membership's {@link Assignment#generation()}. Delivery is at least once: what a
 * member processed after its last commit is read again by the shard's next owner. A commit counts
 * only for the shards its member owns when it arrives and never moves a position back, so a member
 * that lost a shard and has not yet noticed cannot undo its successor's progress.
 */
public interface ChangeGroups {
  /** What a group's or a member's name may be: letters, digits, {@code _ . -}, at most 64. */
  Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

  /**
   * Joins {@code group} as {@code member}, for as long as the membership is not {@linkplain
   * Membership#leave() left}. A member already holding the name (a consumer restarted before its
   * old connection was seen to close) is replaced: its membership is {@linkplain Membership#lost()
   * lost}. INVALID_ARGUMENT for a bad name; UNAVAILABLE without ZooKeeper.
   */
  Future<Membership> join(String group, String member);

  /**
   * Commits {@code cursor}'s positions for the shards {@code member} owns now; a shard's position
   * never moves back. NOT_FOUND when {@code member} is not in the group (its follow ended, or it
   * never joined): the shards it read belong to others now.
   */
  Future<Commit> commit(String group, String member, ChangeCursor cursor);

  /** The group's members, the shards each owns, and the positions committed. */
  Future<State> describe(String group);

  /**
   * Who owns which shard: {@code shards} dealt in order to {@code members} sorted by name, the
   * i-th to the member at {@code i mod n}. Every server computes the same from the same list.
   */
  static Map<String, List<Integer>> assign(Set<String> members, List<Integer> shards) {
    List<String> sorted = members.stream().sorted().toList();
    Map<String, List<Integer>> owned = new TreeMap<>();
    sorted.forEach(member -> owned.put(member, new ArrayList<>()));
    List<Integer> ordered = shards.stream().sorted().toList();
    for (int i = 0; i < ordered.size() && !sorted.isEmpty(); i++) {
      owned.get(sorted.get(i % sorted.size())).add(ordered.get(i));
    }
    owned.replaceAll((member, its) -> List.copyOf(its));
    return Collections.unmodifiableMap(owned);
  }

  /**
   * A member's share of its group, as it stands: the shards it owns, numbered by a generation that
   * grows each time they change.
   */
  record Assignment(long generation, List<Integer> shards) {
    public Assignment {
      shards = List.copyOf(shards);
    }
  }

  /** One member's place in its group, from {@link #join} until {@link #leave}. */
  interface Membership {
    String group();

    String member();

    /** The shards this member owns now. */
    Assignment assignment();

    /** Why this membership ended without {@link #leave()} (its name taken, its session lost); null while it holds. */
    String lost();

    /** Leaves the group: its shards go to the others. Idempotent. */
    void leave();
  }

  /**
   * What a commit did.
   *
   * @param committed the group's positions after it
   * @param shards the shards whose positions it gave (owned by the member)
   * @param ignored the shards of the cursor the member does not own, left as they were
   */
  record Commit(ChangeCursor committed, List<Integer> shards, List<Integer> ignored) {
    public Commit {
      shards = List.copyOf(shards);
      ignored = List.copyOf(ignored);
    }
  }

  /**
   * A group as it stands.
   *
   * @param owned each member, by name, and the shards it owns
   * @param committed the positions committed, per shard (0 or absent: nothing yet)
   */
  record State(String group, Map<String, List<Integer>> owned, ChangeCursor committed) {
    public State {
      owned = Map.copyOf(owned);
    }
  }
}
