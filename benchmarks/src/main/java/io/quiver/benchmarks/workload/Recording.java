package io.quiver.benchmarks.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
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

  Recording() {
    for (Operation operation : Operation.values()) {
      latencies.put(operation, new Histogram(HIGHEST_MICROS, 3));
      outcomes.put(operation, new long[2]);
    }
  }

  /** @param failed a 5xx answer or no answer at all (4xx answers are outcomes of the mix, as in LinkBench) */
  void record(Operation operation, long micros, boolean failed) {
    Histogram histogram = latencies.get(operation);
    synchronized (histogram) {
      histogram.recordValue(Math.max(1, Math.min(micros, HIGHEST_MICROS)));
      outcomes.get(operation)[failed ? 1 : 0]++;
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
    return recording;
  }
}
