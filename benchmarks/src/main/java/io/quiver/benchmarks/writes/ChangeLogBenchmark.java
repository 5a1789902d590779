package io.quiver.benchmarks.writes;

import io.quiver.api.server.QuiverServer;
import io.quiver.client.ChangeEvent;
import io.quiver.client.QuiverClient;
import io.quiver.store.ChangeLogSettings;
import java.net.URI;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * {@code ./bench changes [--seconds S] [--writers N] [--rounds R]}: what the change log costs a
 * write, and how fast one consumer reads it. The dev stack with the log off and on, in alternating
 * rounds ({@link WriteRounds}); after each round with the log, one consumer follows it over HTTP
 * ({@code GET /v1/changes?follow=true}, the Java client) from its start to the end the writes left,
 * and its events per second are printed.
 */
public final class ChangeLogBenchmark {
  private ChangeLogBenchmark() {}

  public static void main(String[] args) throws Exception {
    WriteRounds.Options options = WriteRounds.Options.parse(args,
        "./bench changes [--seconds S] [--writers N] [--rounds R]");
    WriteRounds.run(options, List.of(
        new WriteRounds.Variant("no change log", 0, config -> config.withChangeLog(ChangeLogSettings.disabled()), null),
        new WriteRounds.Variant("change log", 0, UnaryOperator.identity(), ChangeLogBenchmark::follow)),
        "changes-data");
  }

  /** One consumer following the whole log to its end; prints its events per second. */
  private static void follow(QuiverServer server) {
    try (QuiverClient quiver = QuiverClient.create(URI.create("http://127.0.0.1:" + server.port()))) {
      String end = quiver.changes("now", List.of(), 1).cursor();
      io.quiver.store.ChangeCursor last = io.quiver.store.ChangeCursor.parse(end);
      long events = 0;
      long started = System.nanoTime();
      try (Stream<ChangeEvent> stream = quiver.follow(null, List.of())) {
        Iterator<ChangeEvent> next = stream.iterator();
        while (next.hasNext()) {
          ChangeEvent event = next.next();
          if (event.heartbeat()) {
            continue;
          }
          events++;
          if (event.position() >= last.position(event.shard()) && caughtUp(event.cursor(), last)) {
            break;
          }
        }
      }
      double seconds = (System.nanoTime() - started) / 1e9;
      System.out.printf(Locale.ROOT, "one consumer read the log's %,d events in %.1f s: %,.0f events/s%n", events,
          seconds, events / seconds);
    }
  }

  private static boolean caughtUp(String cursor, io.quiver.store.ChangeCursor end) {
    io.quiver.store.ChangeCursor at = io.quiver.store.ChangeCursor.parse(cursor);
    return end.positions().entrySet().stream().allMatch(shard -> at.position(shard.getKey()) >= shard.getValue());
  }
}
