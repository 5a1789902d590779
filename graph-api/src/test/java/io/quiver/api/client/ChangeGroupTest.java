package io.quiver.api.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import io.quiver.api.testing.ApiClient;
import io.quiver.api.testing.TwoServers;
import io.quiver.client.ChangeEvent;
import io.quiver.client.QuiverClient;
import io.quiver.client.QuiverException;
import io.quiver.core.testing.Await;
import io.quiver.store.ChangeCursor;
import io.vertx.core.http.HttpMethod;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Consumer groups over the change log, on two servers: members split the shards, a member that
 * leaves has its shards taken up from the group's committed positions, one that joins gets a share,
 * and together they see every committed change at least once; a commit counts only for its member's
 * shards and never moves back.
 */
class ChangeGroupTest {
  @RegisterExtension
  static final TwoServers servers = new TwoServers();

  /**
   * A member following on a thread of its own: it processes every event, commits after every 20
   * and at each heartbeat, and notes each deal and any event of a shard not dealt to it.
   */
  private static final class Member implements AutoCloseable {
    final String name;
    final List<ChangeEvent> processed = Collections.synchronizedList(new ArrayList<>());
    final List<String> strays = Collections.synchronizedList(new ArrayList<>());
    final List<List<Integer>> deals = Collections.synchronizedList(new ArrayList<>());
    private final QuiverClient quiver;
    private final String group;
    private final String after;
    private final Thread thread;
    private volatile Stream<ChangeEvent> stream;
    private volatile boolean stopping;

    Member(QuiverClient quiver, String group, String name, String after) {
      this.quiver = quiver;
      this.group = group;
      this.name = name;
      this.after = after;
      this.thread = new Thread(this::follow, "member-" + name);
      thread.start();
    }

    private void follow() {
      while (!stopping) {
        try (Stream<ChangeEvent> events = quiver.followGroup(group, name, after, List.of())) {
          stream = events;
          Set<Integer> mine = Set.of();
          int sinceCommit = 0;
          for (Iterator<ChangeEvent> next = events.iterator(); next.hasNext(); ) {
            ChangeEvent event = next.next();
            if (event.assigned()) {
              mine = Set.copyOf(event.assignedShards());
              deals.add(event.assignedShards());
            } else if (event.heartbeat() || ++sinceCommit == 20) {
              if (!event.heartbeat()) {
                processed(event, mine);
              }
              quiver.commit(group, name, event.cursor());
              sinceCommit = 0;
            } else {
              processed(event, mine);
            }
          }
        } catch (QuiverException | UncheckedIOException ended) {
          // Stopped, or the membership ended: follow again unless stopping.
        }
      }
    }

    private void processed(ChangeEvent event, Set<Integer> mine) {
      processed.add(event);
      if (!mine.contains(event.shard())) {
        strays.add(event.shard() + "@" + event.position());
      }
    }

    /** Leaves the group: its stream closed, as a consumer that stops does. */
    @Override
    public void close() throws InterruptedException {
      stopping = true;
      Await.until("member " + name + " following", Duration.ofSeconds(10), () -> stream != null);
      stream.close();
      thread.join(10_000);
    }
  }

  /** The group's members and the shards each owns, as {@code GET /v1/changes/groups/{group}} answers. */
  private static Map<String, List<Integer>> owned(String group) {
    JsonNode members = servers.first.call(HttpMethod.GET, "/v1/changes/groups/" + group).body().path("members");
    Map<String, List<Integer>> owned = new TreeMap<>();
    members.fields().forEachRemaining(member -> {
      List<Integer> shards = new ArrayList<>();
      member.getValue().forEach(shard -> shards.add(shard.asInt()));
      owned.put(member.getKey(), shards);
    });
    return owned;
  }

  @Test
  void membersOnTwoServers_splitTheShards_takeUpWhatALeaverLeft_andTogetherSeeEveryCommittedChange() throws Exception {
    String group = "indexer-" + UUID.randomUUID().toString().substring(0, 8);
    String start = servers.one.changes("now", List.of(), 1).cursor();
    ChangeWriters writers = ChangeWriters.start(servers.one, 4, 1_500);
    Member a = new Member(servers.one, group, "a", start);
    Member b = new Member(servers.two, group, "b", start);
    Member c = new Member(servers.one, group, "c", start);
    Await.until("the writers half way", Duration.ofMinutes(1), () -> writers.writes() > 500 || writers.done());
    b.close();
    Await.until("the writers two thirds of the way", Duration.ofMinutes(1),
        () -> writers.writes() > 1_000 || writers.done());
    Member d = new Member(servers.two, group, "d", start);
    writers.awaitDone();
    // The log's end once every acknowledged change is numbered (numbering follows the commit).
    Await.until("every change numbered", Duration.ofSeconds(30), () -> servers.first.tables().unnumberedChanges() == 0);
    ChangeCursor end = ChangeCursor.parse(servers.one.changes("now", List.of(), 1).cursor());
    List<Member> members = List.of(a, b, c, d);
    // Caught up: every position of every shard up to the end processed by some member. (The
    // highest position reached is not enough: a shard's old owner may have read past where its new
    // owner, starting from the last commit, still is.)
    ChangeCursor begin = ChangeCursor.parse(start);
    Await.until("the group caught up with the log's end", Duration.ofMinutes(2), () -> {
      Map<Integer, Set<Long>> seen = new ConcurrentHashMap<>();
      members.forEach(member -> List.copyOf(member.processed)
          .forEach(event -> seen.computeIfAbsent(event.shard(), shard -> new HashSet<>()).add(event.position())));
      return end.positions().entrySet().stream().allMatch(shard -> LongStream
          .rangeClosed(begin.position(shard.getKey()) + 1, shard.getValue())
          .allMatch(seen.getOrDefault(shard.getKey(), Set.of())::contains));
    });

    Map<String, List<Integer>> owned = owned(group);
    assertThat(owned.keySet()).as("the members following").containsExactly("a", "c", "d");
    List<Integer> dealt = owned.values().stream().flatMap(List::stream).sorted().toList();
    assertThat(dealt).as("every shard dealt once").doesNotHaveDuplicates()
        .containsExactlyElementsOf(new TreeSet<>(end.positions().keySet()));
    for (Member member : List.of(a, c, d)) {
      Await.until("member " + member.name + " told its last deal", Duration.ofSeconds(30),
          () -> !member.deals.isEmpty() && member.deals.get(member.deals.size() - 1).equals(owned.get(member.name)));
    }
    a.close();
    c.close();
    d.close();

    List<ChangeEvent> all = new ArrayList<>();
    members.forEach(member -> all.addAll(member.processed));
    members.forEach(member -> assertThat(member.strays).as(member.name + "'s events of shards not dealt to it")
        .isEmpty());
    int repeats = writers.assertSeen(all);
    System.out.printf("change group: %d writes, %d events processed by 4 members on 2 servers (one left, one"
        + " joined), %d read twice across hand-overs; deals: a %d, b %d, c %d, d %d%n", writers.writes(), all.size(),
        repeats, a.deals.size(), b.deals.size(), c.deals.size(), d.deals.size());
    assertThat(b.deals).as("b had a share before it left").isNotEmpty();
    assertThat(d.processed).as("d, joining late, took a share of the events").isNotEmpty();
  }

  @Test
  void aCommit_countsForItsMembersShardsOnly_neverMovesBack_andNeedsAMemberFollowing() throws Exception {
    String group = "commits-" + UUID.randomUUID().toString().substring(0, 8);
    try (Stream<ChangeEvent> x = servers.one.followGroup(group, "x", "now", List.of());
        Stream<ChangeEvent> y = servers.two.followGroup(group, "y", "now", List.of())) {
      Iterator<ChangeEvent> xs = x.iterator();
      assertThat(xs.next().assigned()).as("x's first line: its deal").isTrue();
      Await.until("x and y dealt the shards", Duration.ofSeconds(10), () -> owned(group).size() == 2);
      Map<String, List<Integer>> owned = owned(group);
      ChangeCursor far = ChangeCursor.START;
      ChangeCursor nearer = ChangeCursor.START;
      Set<Integer> every = new HashSet<>();
      owned.values().forEach(every::addAll);
      for (int shard : every) {
        far = far.after(shard, 1_000_000_000L + shard);
        nearer = nearer.after(shard, 5);
      }
      ChangeCursor near = nearer;
      QuiverClient.GroupCommit committed = servers.one.commit(group, "x", far.toString());
      assertThat(committed.shards()).as("x's shards").containsExactlyElementsOf(owned.get("x"));
      assertThat(committed.ignored()).as("y's shards, not x's to give").containsExactlyElementsOf(owned.get("y"));
      ChangeCursor positions = ChangeCursor.parse(servers.two.commit(group, "x", near.toString()).committed());
      for (int shard : owned.get("x")) {
        assertThat(positions.position(shard)).as("shard " + shard + " never moved back")
            .isEqualTo(1_000_000_000L + shard);
      }
      for (int shard : owned.get("y")) {
        assertThat(positions.position(shard)).as("y's shard " + shard + " untouched by x").isLessThan(1_000_000_000L);
      }

      QuiverException notMember = catchThrowableOfType(() -> servers.one.commit(group, "z", near.toString()),
          QuiverException.class);
      assertThat(notMember.status()).isEqualTo(404);
      assertThat(notMember.getMessage()).contains("not a member");

      // Another consumer joining as x takes x's name over: the old follow ends with a clear error.
      try (Stream<ChangeEvent> x2 = servers.two.followGroup(group, "x", "now", List.of())) {
        QuiverException ended = catchThrowableOfType(() -> {
          while (xs.hasNext()) {
            xs.next();
          }
        }, QuiverException.class);
        assertThat(ended.code()).isEqualTo("unavailable");
        assertThat(ended.getMessage()).contains("another consumer joined under the name 'x'");
        assertThat(x2.iterator().next().assigned()).isTrue();
      }
    }

    for (String refused : List.of("/v1/changes?group=" + group + "&member=x",
        "/v1/changes?follow=true&group=" + group,
        "/v1/changes?follow=true&group=" + group + "&member=x&shards=1",
        "/v1/changes?follow=true&group=bad%2Fname&member=x",
        "/v1/changes/groups/bad%20name")) {
      ApiClient.Answer answer = servers.first.call(HttpMethod.GET, refused);
      assertThat(answer.status()).as(refused).isEqualTo(400);
      assertThat(answer.body().path("error").path("code").asText()).as(refused).isEqualTo("invalid_request");
    }
    for (String body : List.of("{\"member\": \"x\", \"cursor\": \"nope\"}", "{\"member\": \"x\"}",
        "{\"member\": \"x\", \"cursor\": \"\", \"extra\": 1}", "[]")) {
      assertThat(servers.first.call(HttpMethod.POST, "/v1/changes/groups/" + group + "/commit", body).status()).as(body)
          .isEqualTo(400);
    }
  }
}
