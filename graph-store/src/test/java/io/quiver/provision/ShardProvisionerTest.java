package io.quiver.provision;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.testing.TestBackend;
import org.junit.jupiter.api.Test;

class ShardProvisionerTest {

  @Test
  void provision_secondRun_changesNothing() throws Exception {
    TestBackend backend = TestBackend.get();

    ProvisionReport again = backend.provisioner().provision(backend.shardMap(), backend.schema());

    assertThat(again.shards()).isEqualTo(TestBackend.SHARDS);
    assertThat(again.changedNothing()).as("%s", again).isTrue();
  }
}
