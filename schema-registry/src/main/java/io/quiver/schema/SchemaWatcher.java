package io.quiver.schema;

import io.quiver.core.zk.ZkDocumentWatcher;
import org.apache.curator.framework.CuratorFramework;

/**
 * The schema in force on this server, following ZooKeeper: every change is swapped in whole,
 * and until the first arrives the schema is empty.
 */
public final class SchemaWatcher extends ZkDocumentWatcher<Schema> implements SchemaSource {
  public SchemaWatcher(CuratorFramework client, String path) {
    super(client, path, SchemaJson.CODEC, Schema.empty());
  }
}
