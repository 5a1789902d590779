package io.quiver.store.shard;

import io.quiver.core.zk.ZkDocumentStore;
import org.apache.curator.framework.CuratorFramework;

/**
 * Reads and publishes the shard map document in ZooKeeper, compare-and-set: a change's version
 * must be the stored version plus one. Blocking: for startup, admin and provisioning.
 */
public final class ShardMapStore extends ZkDocumentStore<ShardMap> {
  public static final String DEFAULT_PATH = "/quiver/shard-map";

  public ShardMapStore(CuratorFramework client, String path) {
    super(client, path, ShardMapJson.CODEC);
  }
}
