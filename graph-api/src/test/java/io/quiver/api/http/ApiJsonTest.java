package io.quiver.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.store.Edge;
import io.quiver.store.EdgePage;
import io.quiver.store.HydratedPage;
import io.quiver.store.Node;
import io.quiver.store.NodeId;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** The API's JSON shapes, written by the streaming renderer. */
class ApiJsonTest {
  private static final DateTimeFormatter RFC_3339_MICROS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  @Property(tries = 5000)
  void timestamps_areWrittenAsTheJdkFormatterWritesThem(
      @ForAll @LongRange(min = -62_135_596_800L, max = 253_402_300_799L) long second,
      @ForAll @LongRange(min = 0, max = 999_999_999) long nanos) {
    Instant instant = Instant.ofEpochSecond(second, nanos);

    assertThat(ApiJson.timestamp(instant)).isEqualTo(RFC_3339_MICROS.format(instant));
  }

  @Test
  void timestampsAtCalendarEdges_areWrittenAsTheJdkFormatterWritesThem() {
    for (String text : new String[] {"1970-01-01T00:00:00Z", "1969-12-31T23:59:59.999999Z", "2000-02-29T12:00:00Z",
        "2100-03-01T00:00:00.000001Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999Z", "+10000-01-01T00:00:00Z"}) {
      Instant instant = Instant.parse(text);
      assertThat(ApiJson.timestamp(instant)).as(text).isEqualTo(RFC_3339_MICROS.format(instant));
    }
  }

  @Test
  void anEdgeWithItsTarget_isWrittenInTheApisShape_keptOrNot() throws Exception {
    Instant at = Instant.parse("2026-11-22T01:02:03.456789Z");
    Node pin = new Node(NodeId.of(3, 2, 9), "pin", ApiJson.MAPPER.createObjectNode().put("link", "l"), 2, at, at);
    Edge edge = new Edge(NodeId.of(1, 1, 5), "board_has_pins", pin.id(), 42, ApiJson.object(), at);
    HydratedPage page = new HydratedPage(List.of(new HydratedPage.Entry(edge, pin)), null, List.of(NodeId.of(2, 2, 2)));
    String expected = """
        {"edges": [{"from": "%s", "type": "board_has_pins", "to": "%s", "sequence": 42, "data": {},
         "updatedAt": "2026-11-22T01:02:03.456789Z",
         "node": {"id": "%s", "type": "pin", "shard": 3, "data": {"link": "l"}, "version": 2,
                  "createdAt": "2026-11-22T01:02:03.456789Z", "updatedAt": "2026-11-22T01:02:03.456789Z"}}],
         "next": null, "missing": ["%s"]}""".formatted(edge.from(), pin.id(), pin.id(), NodeId.of(2, 2, 2));

    RenderedJson rendered = new RenderedJson();
    for (int twice = 0; twice < 2; twice++) {
      String written = rendered.hydrated(page).toString(StandardCharsets.UTF_8);
      assertThat(ApiJson.MAPPER.readTree(written)).isEqualTo(ApiJson.MAPPER.readTree(expected));
    }
  }

  @Test
  void aPage_isWrittenTheSame_everyTime() throws Exception {
    Instant at = Instant.parse("2026-11-22T01:02:03.456789Z");
    Edge first = new Edge(NodeId.of(1, 1, 5), "follows", NodeId.of(2, 1, 6), 7, ApiJson.object().put("n", 1), at);
    Edge second = new Edge(NodeId.of(1, 1, 5), "follows", NodeId.of(2, 1, 7), 6, ApiJson.object(), at);
    EdgePage page = new EdgePage(List.of(first, second), new io.quiver.store.Cursor(6, NodeId.of(2, 1, 7).value()));
    String expected = """
        {"edges": [{"from": "%s", "type": "follows", "to": "%s", "sequence": 7, "data": {"n": 1},
                    "updatedAt": "2026-11-22T01:02:03.456789Z"},
                   {"from": "%s", "type": "follows", "to": "%s", "sequence": 6, "data": {},
                    "updatedAt": "2026-11-22T01:02:03.456789Z"}],
         "next": "%s"}""".formatted(first.from(), first.to(), second.from(), second.to(), page.next().encode());

    RenderedJson rendered = new RenderedJson();
    for (int time = 0; time < 3; time++) {
      String written = rendered.page(page).toString(StandardCharsets.UTF_8);
      assertThat(ApiJson.MAPPER.readTree(written)).as("read %d", time + 1)
          .isEqualTo(ApiJson.MAPPER.readTree(expected));
    }
  }

  @Test
  void aPageObjectAnsweredTwice_keepsItsBufferItself_andAnswersWithThatBufferAfter_andOneAnsweredOnceKeepsNone() {
    Instant at = Instant.parse("2026-11-22T01:02:03.456789Z");
    EdgePage page = new EdgePage(List.of(new Edge(NodeId.of(1, 1, 5), "follows", NodeId.of(2, 1, 6), 7,
        ApiJson.object(), at)), null);
    RenderedJson rendered = new RenderedJson();

    String first = rendered.page(page).toString(StandardCharsets.UTF_8);
    assertThat(page.attachment()).as("after one answer").isNotInstanceOf(Buffer.class);
    Buffer second = rendered.page(page);
    assertThat(page.attachment()).as("after the second").isSameAs(second);
    assertThat(second.toString(StandardCharsets.UTF_8)).isEqualTo(first);
    assertThat(rendered.page(page)).as("the third answer is the kept buffer itself").isSameAs(second);
    assertThat(second.toString(StandardCharsets.UTF_8)).isEqualTo(first);
    assertThat(new EdgePage(page.edges(), null)).as("equality ignores what is attached").isEqualTo(page);
  }

  @Test
  void dataOfEveryKind_isWrittenByteForByteAsTheObjectMapperWroteIt() throws Exception {
    ObjectNode data = (ObjectNode) ApiJson.MAPPER.readTree("""
        {"name": "a \\"quoted\\" name, \\u00e9t\\u00e9 \\ud83d\\ude00", "int": 7, "long": 9007199254740993,
         "big": 123456789012345678901234567890, "double": 0.1, "negative": -2.5e-300, "yes": true, "no": false,
         "nothing": null, "list": [1, "two", [3.5, {"deep": {}}], []], "empty": {}}""");
    data.put("float", 1.25f);
    data.put("decimal", new java.math.BigDecimal("1.50"));
    Node node = new Node(NodeId.of(1, 2, 3), "user", data, 4, Instant.parse("2026-11-27T01:02:03.000004Z"),
        Instant.parse("0001-01-01T00:00:00Z").minusSeconds(1));

    String written = ApiJson.render(64, out -> ApiJson.writeNode(out, node)).toString(StandardCharsets.UTF_8);

    // What the API wrote before it walked trees itself: the same generator, handing the tree to the mapper.
    String expected = ApiJson.render(64, out -> out.writeTree(data)).toString(StandardCharsets.UTF_8);
    int at = written.indexOf("\"data\":") + "\"data\":".length();
    assertThat(written.substring(at, Math.min(written.length(), at + expected.length()))).isEqualTo(expected);
    assertThat(ApiJson.MAPPER.readTree(written).get("updatedAt").asText())
        .as("a year the arithmetic does not cover goes to the formatter").isEqualTo(ApiJson.timestamp(node.updatedAt()));
  }
}
