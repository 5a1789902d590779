package io.quiver.store.shard;

import io.quiver.core.zk.ZkDocumentWatcher;
import org.apache.curator.framework.CuratorFramework;

/**
 * Keeps the newest valid shard map from ZooKeeper, serving the last known good one while
 * ZooKeeper is away or a bad document is written; versions only move forward.
 */
public final class ShardMapWatcher extends ZkDocumentWatcher<ShardMap> implements ShardMapSource {
  public ShardMapWatcher(CuratorFramework client, String path) {
    super(client, path, ShardMapJson.CODEC, null);
  }
}
