package io.quiver.api.remote;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.http.AdminJson;
import io.quiver.api.http.StatusReport;
import io.quiver.api.testing.ApiFixture;
import io.quiver.core.GraphException.Code;
import io.quiver.core.GraphException;
import io.quiver.core.testing.Await;
import io.quiver.fleet.AdminService;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.testing.TestBackend;
import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The admin contract, held by a server's admin API read back through {@link RemoteAdminService}
 * (what the command line holds); and what only the remote has: the token, a server that is not
 * there, and the server's status.
 */
class RemoteAdminServiceTest extends AdminServiceContractTest {
  private URI server;

  @Override
  AdminService admin(ApiFixture fleet) {
    server = URI.create("http://127.0.0.1:" + fleet.port());
    return new RemoteAdminService(server, TestBackend.ADMIN_TOKEN);
  }

  @Override
  int firstShard() {
    return 60;
  }

  @Test
  @Order(0)
  void aWrongToken_isPermissionDenied_noToken_isUnauthenticated_andNoServer_isUnavailableWithItsCause() {
    try (RemoteAdminService wrong = new RemoteAdminService(server, "not-the-token");
        RemoteAdminService anonymous = new RemoteAdminService(server, null);
        RemoteAdminService away = new RemoteAdminService(URI.create("http://127.0.0.1:1"), TestBackend.ADMIN_TOKEN)) {
      assertThat(refusal(wrong.shardMap()).code()).isEqualTo(Code.PERMISSION_DENIED);
      assertThat(refusal(anonymous.shardMap()).code()).isEqualTo(Code.UNAUTHENTICATED);
      GraphException unreachable = refusal(away.shardMap());
      assertThat(unreachable.code()).isEqualTo(Code.UNAVAILABLE);
      assertThat(unreachable).hasCauseInstanceOf(ConnectException.class)
          .hasMessage("cannot reach a server at http://127.0.0.1:1 (is it running? --server URL)");
    }
  }

  @Test
  @Order(0)
  void status_namesEveryHostOfTheMapWithItsShards_andReadsBackAsWritten() throws Exception {
    try (RemoteAdminService remote = new RemoteAdminService(server, TestBackend.ADMIN_TOKEN)) {
      // The fleet's server has just started: its outbox leases come a moment later (a clean-clone run
      // asked before h1's had, and found its figures unknown).
      Await.until("this server drains h1", Duration.ofSeconds(10),
          () -> remote.status().await().hosts().get(0).outbox().known());
      StatusReport status = remote.status().await();
      ShardMap map = remote.shardMap().await();

      assertThat(status.shardMapVersion()).isEqualTo(map.version());
      assertThat(status.zooKeeperUp()).isTrue();
      assertThat(status.hosts()).extracting(StatusReport.HostStatus::name).containsExactly("h1", "h2", "h3");
      status.hosts().forEach(host -> assertThat(host.shards()).as(host.name()).isEqualTo(map.shardsOn(host.name()).size()));
      assertThat(status.hosts().get(0).outbox().known()).as("h1's outbox, drained by this server").isTrue();
      assertThat(AdminJson.readStatus(AdminJson.write(status))).isEqualTo(status);
    }
  }
}
