package io.quiver.fleet.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.core.GraphException;
import io.quiver.fleet.AdminService;
import io.quiver.schema.SchemaSource;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.shard.ShardMapSource;
import io.quiver.store.shard.ShardSpan;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * While the change log is written from the binary log, the admin API refuses, before doing any of
 * it and saying why, a replica or a shard move asked of a service built without a backend's
 * repairs, through which each waits for a tailer; with the log written by the writes, the same call
 * goes on to its own checks. {@code ReplicasTest} refuses a replica that does not log what it
 * applies, {@code TailedShardMoveTest} moves shards in this mode, {@code TailedFailoverTest} fails
 * hosts over.
 */
class TailedChangeLogAdminTest {
  private static final ChangeLogSettings TAILED = ChangeLogSettings.defaults().from(ChangeLogSettings.Source.BINARY_LOG);
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  private AdminService admin(ChangeLogSettings changeLog) {
    TestBackend backend = TestBackend.get();
    return AdminService.builder(vertx).schemas(SchemaSource.fixed(backend.schema()))
        .shardMaps(ShardMapSource.fixed(backend.shardMap())).pools(backend.poolSettings()).changeLog(changeLog)
        .build();
  }

  @Test
  void aReplica_isRefusedWhileTheLogIsTailed_byAServiceWithoutABackendsRepairs_whichItWaitsThrough() {
    AdminService tailed = admin(TAILED);

    assertThatThrownBy(() -> tailed.addReplica("h1", "127.0.0.1:1", line -> { }).await())
        .isInstanceOf(GraphException.class).hasMessageContaining("waits for its primary's tailer")
        .satisfies(refusal -> assertThat(((GraphException) refusal).code()).isEqualTo(GraphException.Code.INVALID_ARGUMENT));
  }

  @Test
  void aMove_isRefusedWhileTheLogIsTailed_byAServiceWithoutABackendsRepairs_whichItsCutOverWaitsThrough() {
    AdminService tailed = admin(TAILED);

    assertThatThrownBy(() -> tailed.moveShards(new ShardSpan(0, 0), "h2", null, step -> { }).await())
        .isInstanceOf(GraphException.class).hasMessageContaining("waits for the source's tailer")
        .satisfies(refusal -> assertThat(((GraphException) refusal).code()).isEqualTo(GraphException.Code.INVALID_ARGUMENT));
  }

  @Test
  void theSameCall_goesOnToItsOwnChecks_whenTheWritesLogThemselves() {
    AdminService writes = admin(ChangeLogSettings.defaults());

    assertThatThrownBy(() -> writes.addReplica("h1", "127.0.0.1:1", line -> { }).await())
        .satisfies(failure -> assertThat(failure.getMessage()).doesNotContain("changes.source"));
  }
}
