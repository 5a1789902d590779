package io.quiver.api.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.store.Edge;
import io.quiver.store.EdgeState;
import io.quiver.store.Node;
import io.quiver.store.NodeId;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The JSON shapes of the API. IDs are written as decimal strings (they exceed 2^53), timestamps
 * as RFC 3339 UTC with microseconds.
 *
 * <h2>Rendering on the hot path</h2>
 * A cached read spends most of its CPU turning a value into bytes, so answers are written by one
 * streaming generator straight into the response buffer ({@link #render}) — no tree is built
 * between the value and its bytes, as Jackson's own guidance for throughput says — and
 * timestamps are formatted by arithmetic ({@link #writeTimestamp}) rather than through
 * {@link DateTimeFormatter}, which a profile showed taking a quarter of a cached getEdges.
 */
public final class ApiJson {
  public static final ObjectMapper MAPPER = new ObjectMapper();
  /** The answers' media type (API.md), built once as an ASCII string the HTTP encoder copies as bytes. */
  public static final CharSequence CONTENT_TYPE =
      io.vertx.core.http.HttpHeaders.createOptimized("application/json; charset=utf-8");
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);
  /** 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z: the years written with four digits. */
  private static final long FIRST_SECOND = -62_135_596_800L;
  private static final long END_SECOND = 253_402_300_800L;
  private static final int TIMESTAMP_CHARS = 27;

  private ApiJson() {}

  /** What writes one answer into a generator. */
  @FunctionalInterface
  public interface Writing {
    void write(JsonGenerator out) throws IOException;
  }

  /** One answer, written by a streaming generator straight into a buffer. */
  public static Buffer render(Writing writing) {
    return render(512, writing);
  }

  /** As {@link #render(Writing)}, into a buffer first sized for {@code expectedBytes}. */
  public static Buffer render(int expectedBytes, Writing writing) {
    Buffer buffer = Buffer.buffer(expectedBytes);
    try (JsonGenerator out = MAPPER.getFactory().createGenerator(new OutputStream() {
      @Override
      public void write(int b) {
        buffer.appendByte((byte) b);
      }

      @Override
      public void write(byte[] bytes, int offset, int length) {
        buffer.appendBytes(bytes, offset, length);
      }
    })) {
      writing.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot happen: writing JSON into memory", e);
    }
    return buffer;
  }

  /** A node as an object: {@code id, type, shard, data, version, createdAt, updatedAt}. */
  public static void writeNode(JsonGenerator out, Node node) throws IOException {
    out.writeStartObject();
    writeId(out, "id", node.id());
    out.writeStringField("type", node.type());
    out.writeNumberField("shard", node.id().shard());
    out.writeFieldName("data");
    writeTree(out, node.data());
    out.writeNumberField("version", node.version());
    writeTimestamp(out, "createdAt", node.createdAt());
    writeTimestamp(out, "updatedAt", node.updatedAt());
    out.writeEndObject();
  }

  /** {@code field: [node, …]}: nodes as {@link #writeNode} writes each. */
  public static void writeNodes(JsonGenerator out, String field, List<Node> nodes) throws IOException {
    out.writeArrayFieldStart(field);
    for (Node node : nodes) {
      writeNode(out, node);
    }
    out.writeEndArray();
  }

  /** {@code field: ["id", …]}: node IDs as strings. */
  public static void writeIds(JsonGenerator out, String field, List<NodeId> ids) throws IOException {
    out.writeArrayFieldStart(field);
    for (NodeId id : ids) {
      out.writeString(id.toString());
    }
    out.writeEndArray();
  }

  /** An edge as an object: {@code from, type, to, sequence, data, updatedAt}. */
  public static void writeEdge(JsonGenerator out, Edge edge) throws IOException {
    out.writeStartObject();
    writeEdgeFields(out, edge);
    out.writeEndObject();
  }

  /** An edge's members, for an object that adds its own after them (a hydrated page's {@code node}). */
  public static void writeEdgeFields(JsonGenerator out, Edge edge) throws IOException {
    writeId(out, "from", edge.from());
    out.writeStringField("type", edge.type());
    writeId(out, "to", edge.to());
    out.writeNumberField("sequence", edge.sequence());
    out.writeFieldName("data");
    writeTree(out, edge.data());
    writeTimestamp(out, "updatedAt", edge.updatedAt());
    // Only a single edge read can be archived; lists hold active edges, so they carry no state.
    if (edge.state() == EdgeState.ARCHIVED) {
      out.writeStringField("state", "archived");
    }
  }

  private static void writeId(JsonGenerator out, String field, NodeId id) throws IOException {
    out.writeFieldName(field);
    out.writeString(id.toString());
  }

  /** {@code field: "yyyy-MM-ddTHH:mm:ss.uuuuuuZ"}, by arithmetic for years 1 to 9999. */
  private static void writeTimestamp(JsonGenerator out, String field, Instant instant) throws IOException {
    out.writeFieldName(field);
    char[] chars = timestampChars(instant);
    if (chars != null) {
      out.writeString(chars, 0, chars.length);
    } else {
      out.writeString(TIMESTAMP.format(instant));
    }
  }

  /**
   * A JSON tree (a node's or an edge's data), walked and written with the streaming generator.
   * {@code JsonGenerator.writeTree} hands the tree to the object mapper, which builds a
   * serializer provider and looks up a serializer per call: a third of rendering a cached node
   * (issue 37's profile of the hot path). Stored data holds objects, arrays, strings, numbers,
   * booleans and nulls; anything else (a binary or POJO node, which no stored value parses to)
   * goes to the mapper as before.
   */
  static void writeTree(JsonGenerator out, JsonNode tree) throws IOException {
    switch (tree.getNodeType()) {
      case OBJECT -> {
        out.writeStartObject();
        for (var fields = tree.fields(); fields.hasNext(); ) {
          var field = fields.next();
          out.writeFieldName(field.getKey());
          writeTree(out, field.getValue());
        }
        out.writeEndObject();
      }
      case ARRAY -> {
        out.writeStartArray();
        for (JsonNode item : tree) {
          writeTree(out, item);
        }
        out.writeEndArray();
      }
      case STRING -> out.writeString(tree.textValue());
      case NUMBER -> writeNumber(out, tree);
      case BOOLEAN -> out.writeBoolean(tree.booleanValue());
      case NULL -> out.writeNull();
      default -> out.writeTree(tree);
    }
  }

  private static void writeNumber(JsonGenerator out, JsonNode number) throws IOException {
    switch (number.numberType()) {
      case INT -> out.writeNumber(number.intValue());
      case LONG -> out.writeNumber(number.longValue());
      case BIG_INTEGER -> out.writeNumber(number.bigIntegerValue());
      case FLOAT -> out.writeNumber(number.floatValue());
      case DOUBLE -> out.writeNumber(number.doubleValue());
      case BIG_DECIMAL -> out.writeNumber(number.decimalValue());
    }
  }

  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  /** An RFC 3339 UTC timestamp with microseconds, as the API writes it; by arithmetic for years 1 to 9999. */
  public static String timestamp(Instant instant) {
    char[] chars = timestampChars(instant);
    return chars != null ? new String(chars) : TIMESTAMP.format(instant);
  }

  /** The timestamp's characters by arithmetic, or null for a year the arithmetic does not cover. */
  private static char[] timestampChars(Instant instant) {
    long seconds = instant.getEpochSecond();
    if (seconds < FIRST_SECOND || seconds >= END_SECOND) {
      return null;
    }
    char[] chars = new char[TIMESTAMP_CHARS];
    formatTimestamp(seconds, instant.getNano() / 1000, chars);
    return chars;
  }

  public static Buffer buffer(JsonNode json) {
    try {
      return Buffer.buffer(MAPPER.writeValueAsBytes(json));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot happen: writing a JSON tree", e);
    }
  }

  /**
   * Fills {@code chars} with the timestamp, the civil date from the day number by Howard
   * Hinnant's {@code civil_from_days} (the proleptic Gregorian calendar, as {@link Instant}).
   */
  private static void formatTimestamp(long epochSecond, int micros, char[] chars) {
    long days = Math.floorDiv(epochSecond, 86_400);
    int secondOfDay = (int) Math.floorMod(epochSecond, 86_400);
    long z = days + 719_468;
    long era = Math.floorDiv(z, 146_097);
    long dayOfEra = z - era * 146_097;
    long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
    long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    long shiftedMonth = (5 * dayOfYear + 2) / 153;
    int day = (int) (dayOfYear - (153 * shiftedMonth + 2) / 5 + 1);
    int month = (int) (shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9);
    int year = (int) (yearOfEra + era * 400 + (month <= 2 ? 1 : 0));
    digits(chars, 0, year, 4);
    chars[4] = '-';
    digits(chars, 5, month, 2);
    chars[7] = '-';
    digits(chars, 8, day, 2);
    chars[10] = 'T';
    digits(chars, 11, secondOfDay / 3600, 2);
    chars[13] = ':';
    digits(chars, 14, secondOfDay / 60 % 60, 2);
    chars[16] = ':';
    digits(chars, 17, secondOfDay % 60, 2);
    chars[19] = '.';
    digits(chars, 20, micros, 6);
    chars[26] = 'Z';
  }

  private static void digits(char[] chars, int at, int value, int width) {
    for (int i = at + width - 1; i >= at; i--) {
      chars[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }
}
