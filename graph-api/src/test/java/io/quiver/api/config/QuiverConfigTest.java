package io.quiver.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.fleet.FailoverSettings;
import io.quiver.fleet.ReplicaAcks;
import io.quiver.store.ChangeLogSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A configuration file is read strictly: a misspelt key is an error naming the key it was meant to be. */
class QuiverConfigTest {
  private static QuiverConfig parse(String json) throws Exception {
    return QuiverConfig.parse(new ObjectMapper().readTree(json));
  }

  @Test
  void aMisspeltKey_isAnError_namingItAndTheNearestKnownOne() {
    assertThatThrownBy(() -> parse("{\"zooKeeper\": {\"connect\": \"z:2181\"}, \"mysql\": {\"poolsize\": 160}}"))
        .hasMessage("unknown configuration key 'mysql.poolsize'; did you mean 'mysql.poolSize'?");
    assertThatThrownBy(() -> parse("{\"zookeeper\": {\"connect\": \"z:2181\"}}"))
        .hasMessage("unknown configuration key 'zookeeper'; did you mean 'zooKeeper'?");
    assertThatThrownBy(() -> parse("{\"zooKeeper\": {\"connect\": \"z:2181\"}, \"cache\": {\"edgeWindw\": 50}}"))
        .hasMessageContaining("'cache.edgeWindow'");
  }

  @Test
  void everyDocumentedKey_isAccepted() throws Exception {
    QuiverConfig config = parse("""
        {"http": {"port": 9090, "bodyLimitBytes": 2048, "requestTimeoutMs": 5000, "headerTimeoutMs": 3000,
                  "idleTimeoutSeconds": 30, "maxRequestLineBytes": 8192},
         "zooKeeper": {"connect": "z:2181", "shardMapPath": "/m", "schemaPath": "/s", "sessionTimeoutMs": 9000,
                       "connectTimeoutMs": 4000},
         "mysql": {"user": "q", "password": "p", "poolSize": 160, "waitQueue": 10, "connectTimeoutMs": 100,
                   "acquireTimeoutMs": 100, "statementCacheSize": 10, "pipeliningLimit": 2},
         "outbox": {"leasePath": "/l", "batchSize": 5, "idleDelayMs": 5, "busyPauseMs": 7, "maxAttempts": 3, "maxBackoffMs": 100,
                    "tombstoneGraceSeconds": 100, "gcIntervalSeconds": 10},
         "cache": {"enabled": false, "nodeMaxBytes": 100, "edgeWindow": 10, "edgeMaxBytes": 100, "valueTtlSeconds": 9,
                   "peersPath": "/p", "advertiseHost": "10.0.0.5"},
         "admin": {"token": "a-long-enough-secret"},
         "replication": {"withoutAck": "async", "ackTimeoutMs": 250},
         "failover": {"enabled": false, "detectAfterMs": 2000, "probeEveryMs": 200, "fenceTimeoutMs": 1000},
         "changes": {"enabled": false, "retentionHours": 24, "maxPerShard": 1000, "source": "binlog"},
         "consistency": {"tokenWaitMs": 2500},
         "schemaFile": "/etc/quiver/schema.json"}""");
    assertThat(config.mysql().maxSize()).isEqualTo(160);
    assertThat(config.outbox().busyPause()).isEqualTo(Duration.ofMillis(7));
    assertThat(config.replication()).isEqualTo(new ReplicaAcks(ReplicaAcks.Mode.ASYNC, Duration.ofMillis(250)));
    assertThat(config.failover()).isEqualTo(new FailoverSettings(false, Duration.ofMillis(2000), Duration.ofMillis(200),
        Duration.ofMillis(1000)));
    assertThat(config.http().headerTimeout().toMillis()).isEqualTo(3000);
    assertThat(config.zooKeeper().connectTimeout().toMillis()).isEqualTo(4000);
    assertThat(config.changeLog().maxPerShard()).isEqualTo(1000);
    assertThat(config.changeLog().source()).isEqualTo(ChangeLogSettings.Source.BINARY_LOG);
    assertThat(config.readTokens().bound()).isEqualTo(Duration.ofMillis(2500));
  }

  @Test
  void theChangeLog_isWrittenByTheWritesByDefault_andAnUnknownSourceIsAnError() throws Exception {
    assertThat(parse("{\"zooKeeper\": {\"connect\": \"z:2181\"}}").changeLog().source())
        .isEqualTo(ChangeLogSettings.Source.WRITES);
    assertThatThrownBy(() -> parse("{\"zooKeeper\": {\"connect\": \"z:2181\"}, \"changes\": {\"source\": \"kafka\"}}"))
        .hasMessageContaining("changes.source must be \"writes\" or \"binlog\"");
  }

  @Test
  void writesToHostsWithReplicas_waitForAReplicaByDefault_andAnUnknownChoiceIsAnError() throws Exception {
    assertThat(parse("{\"zooKeeper\": {\"connect\": \"z:2181\"}}").replication()).isEqualTo(ReplicaAcks.defaults());
    assertThat(ReplicaAcks.defaults().mode()).isEqualTo(ReplicaAcks.Mode.REFUSE);
    assertThat(parse("{\"zooKeeper\": {\"connect\": \"z:2181\"}}").failover()).isEqualTo(FailoverSettings.defaults());
    assertThatThrownBy(() -> parse("{\"zooKeeper\": {\"connect\": \"z:2181\"}, \"replication\": {\"withoutAck\": \"lose\"}}"))
        .hasMessageContaining("replication.withoutAck must be \"refuse\" or \"async\"");
  }
}
