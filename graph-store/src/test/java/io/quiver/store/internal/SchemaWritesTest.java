package io.quiver.store.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.core.testing.Await;
import io.quiver.core.zk.ServedVersions;
import io.quiver.core.zk.VersionFence;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** A server acknowledges a schema version only once no write begun under an older one can commit. */
class SchemaWritesTest {

  /** A schema source a test moves by hand. */
  private static final class MovingSchemas implements SchemaSource {
    private volatile Schema current = Schema.empty().withVersion(1);
    private final List<Consumer<Schema>> listeners = new CopyOnWriteArrayList<>();

    @Override
    public Schema current() {
      return current;
    }

    @Override
    public void onChange(Consumer<Schema> listener) {
      listeners.add(listener);
    }

    void move(long version) {
      current = current.withVersion(version);
      listeners.forEach(listener -> listener.accept(current));
    }
  }

  /** The fence a backend keeps over node writes: evaluated again whenever the schema moves. */
  private static VersionFence<Schema> fence(SchemaSource schemas, java.util.function.LongConsumer acknowledge) {
    VersionFence<Schema> fence = new VersionFence<>(schemas::current, Schema::version, acknowledge);
    schemas.onChange(changed -> fence.evaluate());
    return fence;
  }

  @Test
  void aWriteInFlightUnderAnOlderVersion_holdsTheAcknowledgementBack_untilItCompletes() {
    MovingSchemas schemas = new MovingSchemas();
    List<Long> acknowledged = new CopyOnWriteArrayList<>();
    VersionFence<Schema> writes = fence(schemas, acknowledged::add);
    Promise<Void> slowWrite = Promise.promise();
    writes.write(schema -> slowWrite.future());

    schemas.move(2);
    assertThat(acknowledged).as("the write under version 1 may still commit").containsOnly(1L);
    writes.write(schema -> io.vertx.core.Future.succeededFuture(schema.version()));
    assertThat(acknowledged).doesNotContain(2L);

    slowWrite.complete();
    assertThat(acknowledged).last().isEqualTo(2L);
  }

  @Test
  void aWriteStartedAfterTheChange_runsUnderTheNewVersion() {
    MovingSchemas schemas = new MovingSchemas();
    VersionFence<Schema> writes = fence(schemas, version -> { });
    schemas.move(5);
    assertThat(writes.write(schema -> io.vertx.core.Future.succeededFuture(schema.version())).result()).isEqualTo(5L);
  }

  @Test
  void theFence_waitsForEveryRegisteredServer_namesTheOnesBehind_andForgetsOnesThatLeft() throws Exception {
    var curator = TestBackend.get().curator();
    String directory = "/quiver-test/served-" + System.nanoTime();
    try (ServedVersions first = new ServedVersions(curator, directory, "first", 3);
        ServedVersions second = new ServedVersions(curator, directory, "second", 2)) {
      awaitRegistered(curator, directory, 2);
      ServedVersions.awaitAll(curator, directory, 2, Duration.ofSeconds(5));
      assertThatThrownBy(() -> ServedVersions.awaitAll(curator, directory, 3, Duration.ofMillis(200)))
          .isInstanceOf(TimeoutException.class).hasMessageContaining("second@2").hasMessageNotContaining("first");

      second.acknowledge(3);
      second.acknowledge(1);
      assertThat(second.acknowledged()).as("acknowledgements only move forward").isEqualTo(3);
      ServedVersions.awaitAll(curator, directory, 3, Duration.ofSeconds(5));

      second.close();
      first.acknowledge(4);
      ServedVersions.awaitAll(curator, directory, 4, Duration.ofSeconds(5));
    }
  }

  private static void awaitRegistered(org.apache.curator.framework.CuratorFramework curator, String directory, int count)
      throws Exception {
    Await.until("both registrations appear", Duration.ofSeconds(5),
        () -> curator.checkExists().forPath(directory) != null && curator.getChildren().forPath(directory).size() >= count);
  }
}
