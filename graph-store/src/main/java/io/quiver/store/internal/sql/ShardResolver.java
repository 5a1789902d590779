package io.quiver.store.internal.sql;

import io.quiver.store.NodeId;
import io.quiver.store.shard.ShardMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The read-only view of placement that the request path needs. */
public interface ShardResolver {

  /** The shard map in force now. */
  ShardMap shardMap();

  /** The IDs grouped by shard, each group in first-seen order, for one query per shard. */
  static Map<Integer, List<NodeId>> groupByShard(Collection<NodeId> ids) {
    Map<Integer, List<NodeId>> groups = new LinkedHashMap<>();
    for (NodeId id : ids) {
      groups.computeIfAbsent(id.shard(), shard -> new ArrayList<>()).add(id);
    }
    return groups;
  }
}
