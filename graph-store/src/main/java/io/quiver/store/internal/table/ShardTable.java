package io.quiver.store.internal.table;

import io.quiver.store.internal.sql.ShardRoute;
import java.util.List;

/**
 * One table kind of a shard database: beside what provisioning needs ({@link
 * io.quiver.store.ShardLayout.Table}: its name, DDL and upgrades), its columns and key, which the
 * statements of the stores are written from.
 */
public interface ShardTable extends io.quiver.store.ShardLayout.Table {

  /** Every column, in the order the DDL declares them. */
  List<String> columns();

  /** The primary key's columns, in key order. */
  List<String> key();

  /** The column list as SQL: {@code a, b, c}. */
  default String columnList() {
    return String.join(", ", columns());
  }

  /**
   * Which of {@code routes}' shards hold a row matching {@code where} in this table, as one
   * statement however many shards: per shard a {@code LIMIT 1} probe answering its number
   * ({@code shard}, then the columns {@code also} adds), joined by {@code UNION ALL}. Its
   * parameters, the shard and then {@code whereArguments} per shard, are added to {@code arguments}.
   */
  default String shardsHoldingQuery(List<ShardRoute> routes, String where, List<Object> whereArguments, String also,
      List<Object> arguments) {
    return eachShardQuery(routes, also, "WHERE " + where + " LIMIT 1", whereArguments, arguments);
  }

  /**
   * One statement asking each of {@code routes}' shards the same question: per shard a part
   * {@code (SELECT ? AS shard<also> FROM <the shard's table> <rest>)}, joined by {@code UNION ALL},
   * so each part keeps its own ORDER BY and LIMIT. Its parameters, the shard and then
   * {@code restArguments} per shard, are added to {@code arguments}.
   */
  default String eachShardQuery(List<ShardRoute> routes, String also, String rest, List<Object> restArguments,
      List<Object> arguments) {
    StringBuilder sql = new StringBuilder();
    for (ShardRoute route : routes) {
      sql.append(sql.isEmpty() ? "" : " UNION ALL ").append("(SELECT ? AS shard").append(also).append(" FROM ")
          .append(on(route.shard())).append(' ').append(rest).append(')');
      arguments.add(route.shard());
      arguments.addAll(restArguments);
    }
    return sql.toString();
  }
}
