package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.POST;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.NodeId;
import io.quiver.store.testing.GraphInvariants;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BinaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Set operations over edge lists on different hosts ({@code POST /v1/edges/query}): paged with a
 * cursor while edges are added, every answer lies between the same operation computed from the
 * tables before and after, in ascending order without repeats; counts and hydrated pages agree.
 */
@ExtendWith(GraphInvariants.class)
class EdgeListQueryTest {
  private static ApiFixture api;
  private static List<String> people;
  private static String first;
  private static String second;
  private static String third;

  @BeforeAll
  static void start() throws Exception {
    api = new ApiFixture();
    people = new ArrayList<>();
    for (int i = 0; i < 80; i++) {
      people.add(user());
    }
    first = userOn("h1");
    second = userOn("h2");
    third = user();
    Random random = new Random(22);
    for (String person : people) {
      if (random.nextInt(100) < 45) {
        follow(first, person);
      }
      if (random.nextInt(100) < 45) {
        follow(second, person);
      }
      if (random.nextInt(100) < 25) {
        follow(third, person);
      }
    }
  }

  @AfterAll
  static void stop() {
    api.close();
  }

  private static String user() {
    Answer created = api.call(POST, "/v1/nodes/user", "{\"data\": {\"name\": \"q\"}}");
    assertThat(created.status()).as(created.text()).isEqualTo(201);
    return created.id();
  }

  private static String userOn(String host) {
    for (int i = 0; i < 200; i++) {
      String id = user();
      if (api.hostOf(NodeId.parse(id).orElseThrow().shard()).equals(host)) {
        return id;
      }
    }
    throw new AssertionError("no user landed on " + host);
  }

  private static void follow(String from, String to) {
    assertThat(api.call(PUT, "/v1/nodes/" + from + "/edges/follows/" + to).status()).isEqualTo(200);
  }

  /** What a list holds now, read from its rows. */
  private static Set<Long> stored(String from) throws Exception {
    return new HashSet<>(api.activeTargets("follows", NodeId.parse(from).orElseThrow()));
  }

  private static String body(String operation, List<String> lists, String extra) {
    List<String> named = lists.stream().map(from -> "{\"from\": \"" + from + "\", \"type\": \"follows\"}").toList();
    return "{\"operation\": \"" + operation + "\", \"lists\": [" + String.join(", ", named) + "]" + extra + "}";
  }

  /** Every page of the operation, 7 targets at a time, adding a follow to the first list between pages. */
  private static List<Long> pagedWhileAdding(String operation, List<String> lists) {
    List<Long> read = new ArrayList<>();
    List<String> notFollowed = new ArrayList<>(people);
    String after = null;
    do {
      Answer page = api.call(POST, "/v1/edges/query",
          body(operation, lists, ", \"limit\": 7" + (after == null ? "" : ", \"after\": \"" + after + "\"")));
      assertThat(page.status()).as(page.text()).isEqualTo(200);
      page.body().get("targets").forEach(target -> read.add(Long.parseLong(target.asText())));
      after = page.body().get("next").isNull() ? null : page.body().get("next").asText();
      follow(lists.get(0), notFollowed.remove(notFollowed.size() - 1));
    } while (after != null);
    return read;
  }

  private static void assertBetween(String operation, List<String> lists, BinaryOperator<Set<Long>> combine)
      throws Exception {
    Set<Long> before = lists.stream().map(EdgeListQueryTest::storedUnchecked).reduce(combine).orElseThrow();
    List<Long> read = pagedWhileAdding(operation, lists);
    Set<Long> after = lists.stream().map(EdgeListQueryTest::storedUnchecked).reduce(combine).orElseThrow();

    assertThat(read).as(operation).isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
    assertThat(new HashSet<>(read)).as(operation + ": everything there throughout").containsAll(before);
    assertThat(after).as(operation + ": nothing that was never there").containsAll(read);
    assertThat(before).as(operation + " is not trivially empty").isNotEmpty();

    Answer count = api.call(POST, "/v1/edges/query", body(operation, lists, ", \"count\": true"));
    assertThat(count.body().get("count").asLong()).as(operation + " count").isEqualTo(after.size());
  }

  private static Set<Long> storedUnchecked(String from) {
    try {
      return stored(from);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void intersection_ofListsOnTwoHosts_pagedWhileEdgesAreAdded() throws Exception {
    assertBetween("intersection", List.of(first, second), (a, b) -> {
      Set<Long> both = new TreeSet<>(a);
      both.retainAll(b);
      return both;
    });
  }

  @Test
  void union_ofThreeLists_pagedWhileEdgesAreAdded() throws Exception {
    assertBetween("union", List.of(first, second, third), (a, b) -> {
      Set<Long> either = new TreeSet<>(a);
      either.addAll(b);
      return either;
    });
  }

  @Test
  void difference_ofTheFirstListAndTwoOthers_pagedWhileEdgesAreAdded() throws Exception {
    assertBetween("difference", List.of(first, second, third), (a, b) -> {
      Set<Long> rest = new TreeSet<>(a);
      rest.removeAll(b);
      return rest;
    });
  }

  @Test
  void aHydratedPage_carriesTheTargetNodes_inTargetOrder() {
    Answer page = api.call(POST, "/v1/edges/query", body("union", List.of(first, second), ", \"limit\": 5, \"hydrate\": true"));
    assertThat(page.status()).as(page.text()).isEqualTo(200);
    List<String> targets = new ArrayList<>();
    page.body().get("targets").forEach(target -> targets.add(target.asText()));
    assertThat(page.body().get("nodes").findValuesAsText("id")).containsExactlyElementsOf(targets);
    assertThat(new LinkedHashSet<>(targets)).hasSize(5);
  }

  @Test
  void badQueries_areRefusedWith400() {
    String one = body("union", List.of(first), "");
    String nine = body("union", java.util.Collections.nCopies(9, first), "");
    String unknown = body("xor", List.of(first, second), "");
    String countAndLimit = body("union", List.of(first, second), ", \"count\": true, \"limit\": 3");
    String badList = "{\"operation\": \"union\", \"lists\": [{\"from\": \"" + first + "\"}, {\"from\": \"" + second
        + "\", \"type\": \"follows\"}]}";
    String afterOutsideTheMap = body("union", List.of(first, second),
        ", \"after\": \"" + io.quiver.store.NodeId.of(io.quiver.store.testing.TestBackend.SHARDS + 5, 1, 1) + "\"");
    String afterOfNoType = body("union", List.of(first, second),
        ", \"after\": \"" + io.quiver.store.NodeId.of(0, 1023, 1) + "\"");
    for (String bad : List.of(one, nine, unknown, countAndLimit, badList, afterOutsideTheMap, afterOfNoType)) {
      Answer answer = api.call(POST, "/v1/edges/query", bad);
      assertThat(answer.status()).as(bad + " → " + answer.text()).isEqualTo(400);
      assertThat(answer.body().get("error").get("code").asText()).isEqualTo("invalid_request");
    }
  }

  @Test
  void anExactlyFullLastPage_answersNoNext_asAListsLastPageDoes() {
    long total = api.call(POST, "/v1/edges/query", body("union", List.of(first, second), ", \"count\": true"))
        .body().get("count").asLong();
    Answer whole = api.call(POST, "/v1/edges/query", body("union", List.of(first, second), ", \"limit\": " + total));
    assertThat(whole.body().get("targets")).hasSize((int) total);
    assertThat(whole.body().get("next").isNull()).as(whole.text()).isTrue();
    Answer short1 = api.call(POST, "/v1/edges/query",
        body("union", List.of(first, second), ", \"limit\": " + (total - 1)));
    assertThat(short1.body().get("next").asText()).as("one target left after the page")
        .isEqualTo(short1.body().get("targets").get((int) total - 2).asText());
  }
}
