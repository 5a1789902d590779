package io.quiver.schema;

import io.quiver.core.zk.ZkDocumentStore;
import org.apache.curator.framework.CuratorFramework;

/** The registry's document in ZooKeeper, published compare-and-set. Blocking. */
public final class SchemaStore extends ZkDocumentStore<Schema> {
  public static final String DEFAULT_PATH = "/quiver/schema";

  public SchemaStore(CuratorFramework client, String path) {
    super(client, path, SchemaJson.CODEC);
  }
}
