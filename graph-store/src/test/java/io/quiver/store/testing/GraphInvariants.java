package io.quiver.store.testing;

import io.quiver.store.internal.table.EdgesTable;
import io.vertx.core.Future;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What must hold on the hosts after every test, whatever the test did (Caffeine's
 * {@code CacheValidationInterceptor}, for a sharded store): every count equals its list's active
 * rows (read from one snapshot per shard, so work still draining cannot look like drift), no
 * outbox entry was parked unless the test says it parks one ({@link ParksOutboxEntries}), and
 * every node and edge window a watched cache holds equals what MySQL holds. A failure names the
 * first few offenders.
 *
 * <p>Register it on a test class ({@code @ExtendWith(GraphInvariants.class)}); caches are
 * watched while their fixture is open ({@link #watchCache}).
 */
public final class GraphInvariants implements BeforeEachCallback, AfterEachCallback {
  /** How long a cache may take to hear of the last changes (a datagram between servers). */
  static final Duration CACHE_SETTLE = Duration.ofSeconds(2);
  private static final int SHOWN = 5;

  /** A test that leaves outbox entries parked on purpose. */
  @Target(ElementType.METHOD)
  @Retention(RetentionPolicy.RUNTIME)
  public @interface ParksOutboxEntries {}

  /** A cache that compares what it holds with MySQL; answers a line per difference. */
  @FunctionalInterface
  public interface CacheCheck {
    Future<List<String>> differences();
  }

  private static final List<CacheCheck> caches = new CopyOnWriteArrayList<>();
  /**
   * Drifts and cache differences already reported, so that one test's damage fails that test, not
   * every test after it.
   */
  private static final java.util.Set<String> reportedDrifts = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private final ShardTables tables;
  private long parkedBefore;

  public GraphInvariants() {
    this(TestBackend.get());
  }

  public GraphInvariants(TestBackend backend) {
    this.tables = new ShardTables(backend);
  }

  /** Checks {@code cache} after every test until the returned handle is closed. */
  public static AutoCloseable watchCache(CacheCheck cache) {
    caches.add(cache);
    return () -> caches.remove(cache);
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    parkedBefore = tables.outboxEntries(true);
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    if (context.getExecutionException().isPresent()) {
      return;
    }
    if (context.getRequiredTestMethod().getAnnotation(ParksOutboxEntries.class) == null) {
      long parked = tables.outboxEntries(true);
      if (parked > parkedBefore) {
        throw new AssertionError((parked - parkedBefore) + " outbox entries were parked by this test");
      }
    }
    checkCounts();
    checkCaches();
  }

  private void checkCounts() throws Exception {
    List<String> wrong = new ArrayList<>();
    List<EdgesTable> edgeTables = tables.schema().edgeTypes().values().stream().map(EdgesTable::new).toList();
    tables.countsAgainstRows(edgeTables).forEach((type, byFrom) -> byFrom.forEach((from, countAndRows) -> {
      if (countAndRows[0] != countAndRows[1]) {
        wrong.add(type + " from " + from + ": count " + countAndRows[0] + ", active rows " + countAndRows[1]);
      }
    }));
    wrong.removeIf(drift -> !reportedDrifts.add(drift));
    if (!wrong.isEmpty()) {
      throw new AssertionError(wrong.size() + " counts differ from their rows: " + first(wrong));
    }
  }

  private void checkCaches() throws InterruptedException {
    for (CacheCheck cache : caches) {
      List<String> differences = new ArrayList<>(settled(cache));
      differences.removeIf(difference -> !reportedDrifts.add(difference));
      if (!differences.isEmpty()) {
        throw new AssertionError(differences.size() + " cached values differ from MySQL: " + first(differences));
      }
    }
  }

  /**
   * A cache's differences once they are gone, or as they stand when the settling time is up: a
   * change committed a moment ago (an inverse the drainer just wrote) may not have been announced yet.
   */
  public static List<String> settled(CacheCheck cache) throws InterruptedException {
    return settledDifferences(cache::differences);
  }

  /** The differences once they are gone, or as they stand when the settling time is up. */
  private static List<String> settledDifferences(Supplier<Future<List<String>>> check) throws InterruptedException {
    long deadline = System.nanoTime() + CACHE_SETTLE.toNanos();
    while (true) {
      List<String> differences = check.get().await();
      if (differences.isEmpty() || System.nanoTime() > deadline) {
        return differences;
      }
      Thread.sleep(20);
    }
  }

  private static List<String> first(List<String> lines) {
    return lines.subList(0, Math.min(SHOWN, lines.size()));
  }
}
