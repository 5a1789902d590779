package io.quiver.store.internal.sql;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;

/** Conversions between Java values and what the shard tables store. */
public final class SqlValues {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private SqlValues() {}

  /** Now, at the microsecond precision the tables keep, so what is returned equals what is read back. */
  public static Instant now(java.time.Clock clock) {
    return clock.instant().truncatedTo(ChronoUnit.MICROS);
  }

  /** Now, in microseconds since the epoch: the unit of write times and sequences. */
  public static long nowMicros(java.time.Clock clock) {
    return micros(now(clock));
  }

  public static long micros(Instant instant) {
    return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
  }

  public static Instant fromMicros(long micros) {
    return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
  }

  /** DATETIME(6) columns hold UTC. */
  public static LocalDateTime toDateTime(Instant instant) {
    return LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
  }

  public static Instant fromDateTime(LocalDateTime dateTime) {
    return dateTime.toInstant(ZoneOffset.UTC);
  }

  public static String toJson(JsonNode value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot happen: writing a JSON tree", e);
    }
  }

  /** A stored JSON object; null stays null. */
  public static ObjectNode parseObject(String json) {
    if (json == null) {
      return null;
    }
    try {
      JsonNode node = MAPPER.readTree(json);
      if (!(node instanceof ObjectNode object)) {
        throw new IllegalStateException("stored data is not a JSON object");
      }
      return object;
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored data is not valid JSON", e);
    }
  }

  public static ObjectNode emptyObject() {
    return MAPPER.createObjectNode();
  }
}
