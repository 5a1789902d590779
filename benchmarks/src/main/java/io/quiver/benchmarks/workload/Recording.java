package io.quiver.benchmarks.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.AsyncResult;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * Latencies (microseconds) and outcomes per operation, for one measured phase. The load generator
 * records in its own process and sends the recording whole ({@link #toJson}): each histogram in
 * HdrHistogram's compressed encoding, so the report's percentiles are the generator's own.
 */
final class Recording {
  private static final long HIGHEST_MICROS = 60_000_000L;

  private final Map<Operation, Histogram> latencies = new EnumMap<>(Operation.class);
  private final Map<Operation, long[]> outcomes = new EnumMap<>(Operation.class);
  /** How many failures of each kind ("status 503", or the exception), so a report can say what failed. */
  private final Map<String, Long> failureKinds = new TreeMap<>();

  Recording() {
    for (Operation operation : Operation.values()) {
      latencies.put(operation, new Histogram(HIGHEST_MICROS, 3));
      outcomes.put(operation, new long[2]);
    }
  }

  /**
   * @param failure what failed, null for a success: a 5xx answer ("status 503") or no answer at
   *     all (the exception); 4xx answers are outcomes of the mix, as in LinkBench
   */
  void record(Operation operation, long micros, String failure) {
    Histogram histogram = latencies.get(operation);
    synchronized (histogram) {
      histogram.recordValue(Math.max(1, Math.min(micros, HIGHEST_MICROS)));
      outcomes.get(operation)[failure != null ? 1 : 0]++;
    }
    if (failure != null) {
      synchronized (failureKinds) {
        failureKinds.merge(failure, 1L, Long::sum);
      }
    }
  }

  /** What a call's outcome records: null for a success, else what failed ({@link #record}). */
  static String failure(AsyncResult<Integer> outcome) {
    return outcome.failed() ? String.valueOf(outcome.cause())
        : outcome.result() >= 500 ? "status " + outcome.result() : null;
  }

  /** The failures by kind, each with how many there were; empty when nothing failed. */
  Map<String, Long> failureKinds() {
    synchronized (failureKinds) {
      return Map.copyOf(failureKinds);
    }
  }

  Histogram latencies(Operation operation) {
    return latencies.get(operation);
  }

  long count(Operation operation) {
    long[] counts = outcomes.get(operation);
    return counts[0] + counts[1];
  }

  long failures(Operation operation) {
    return outcomes.get(operation)[1];
  }

  Histogram all() {
    Histogram merged = new Histogram(HIGHEST_MICROS, 3);
    latencies.values().forEach(merged::add);
    return merged;
  }

  /** Every operation's histogram (compressed, Base64) and failures. */
  ObjectNode toJson() {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    for (Operation operation : Operation.values()) {
      Histogram histogram = latencies.get(operation);
      synchronized (histogram) {
        ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        ObjectNode each = json.putObject(operation.name().toLowerCase(Locale.ROOT));
        each.put("latencies", Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length)));
        each.put("failures", outcomes.get(operation)[1]);
      }
    }
    ObjectNode kinds = json.putObject("failureKinds");
    failureKinds().forEach(kinds::put);
    return json;
  }

  /** The recording {@link #toJson} wrote. */
  static Recording fromJson(JsonNode json) {
    Recording recording = new Recording();
    for (Operation operation : Operation.values()) {
      JsonNode each = json.get(operation.name().toLowerCase(Locale.ROOT));
      try {
        Histogram histogram = Histogram.decodeFromCompressedByteBuffer(
            ByteBuffer.wrap(Base64.getDecoder().decode(each.get("latencies").asText())), HIGHEST_MICROS);
        recording.latencies.get(operation).add(histogram);
      } catch (DataFormatException e) {
        throw new IllegalStateException("the generator sent a histogram that does not decode", e);
      }
      long failures = each.get("failures").asLong();
      long[] counts = recording.outcomes.get(operation);
      counts[1] = failures;
      counts[0] = recording.latencies.get(operation).getTotalCount() - failures;
    }
    json.path("failureKinds").fields().forEachRemaining(kind ->
        recording.failureKinds.put(kind.getKey(), kind.getValue().asLong()));
    return recording;
  }
}
