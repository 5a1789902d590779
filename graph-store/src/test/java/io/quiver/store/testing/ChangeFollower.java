package io.quiver.store.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.core.GraphException;
import io.quiver.store.ChangeCursor;
import io.quiver.store.ChangeEvent;
import io.quiver.store.ChangeLog;
import io.quiver.store.ChangePage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A consumer of the change log that follows it on a thread of its own while a test does something
 * violent (a shard move, a failover): it reads pages after its cursor, waits out a refusal
 * (UNAVAILABLE while a host is down or a shard is being flipped), and keeps every event. Stopped, it
 * reads on to the end of the log as it then is, so a test can check that the consumer saw every
 * acknowledged change once, with no gap.
 */
public final class ChangeFollower {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final ChangeLog log;
  private final Set<Integer> shards;
  private final List<ChangeEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicInteger refusals = new AtomicInteger();
  private final Thread thread;
  private volatile ChangeCursor cursor;
  private volatile Throwable failed;

  /** Starts following {@code shards} (every shard when empty) from the end of their logs now. */
  public ChangeFollower(ChangeLog log, Set<Integer> shards) {
    this.log = log;
    this.shards = shards;
    this.cursor = log.end(shards).await();
    this.thread = new Thread(this::follow, "change-follower");
    thread.setDaemon(true);
    thread.start();
  }

  private void follow() {
    while (running.get()) {
      try {
        if (readOnce() == 0) {
          Thread.sleep(20);
        }
      } catch (GraphException refused) {
        if (refused.code() != GraphException.Code.UNAVAILABLE) {
          failed = refused;
          return;
        }
        refusals.incrementAndGet();
        sleep();
      } catch (InterruptedException stopped) {
        return;
      } catch (RuntimeException unexpected) {
        failed = unexpected;
        return;
      }
    }
  }

  private int readOnce() {
    ChangePage page = log.read(cursor, shards, Set.of(), 500).await();
    events.addAll(page.events());
    cursor = page.cursor();
    return page.events().size();
  }

  private static void sleep() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops following, then reads on until the log's end is reached and stays so for {@code quiet}
   * (the drainer numbers the last changes a few milliseconds after their commit); answers every
   * event seen, in the order read.
   */
  public List<ChangeEvent> stopAndReadToEnd(Duration quiet) throws InterruptedException {
    running.set(false);
    thread.join(TimeUnit.SECONDS.toMillis(30));
    if (failed != null) {
      throw new AssertionError("the follower failed", failed);
    }
    long quietSince = System.nanoTime();
    while (System.nanoTime() - quietSince < quiet.toNanos()) {
      if (readOnce() > 0) {
        quietSince = System.nanoTime();
      } else {
        Thread.sleep(50);
      }
    }
    return List.copyOf(events);
  }

  /** How many reads were refused as unavailable while following (a host down, a shard flipping). */
  public int refusals() {
    return refusals.get();
  }

  /** An event's body as JSON. */
  public static JsonNode body(ChangeEvent event) {
    try {
      return JSON.readTree(event.body());
    } catch (Exception e) {
      throw new AssertionError(event.body(), e);
    }
  }

  /**
   * Where the events read skip or repeat a position: each shard's positions must follow each other
   * one by one from its first event read (read unfiltered, the log has no gaps but trimmed ones),
   * except to a failover's marker, which the positions jump to.
   */
  public static List<String> gapsAndRepeats(List<ChangeEvent> events) {
    List<String> wrong = new ArrayList<>();
    Map<Integer, Long> last = new java.util.HashMap<>();
    for (ChangeEvent event : events) {
      Long before = last.get(event.shard());
      boolean failover = body(event).path("kind").asText().equals("failover");
      if (before != null && (failover ? event.position() <= before : event.position() != before + 1)) {
        wrong.add("shard " + event.shard() + ": position " + event.position() + " after " + before);
      }
      last.put(event.shard(), event.position());
    }
    return wrong;
  }
}
