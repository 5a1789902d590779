package io.quiver.provision;

import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.sql.SqlNames;

/**
 * The tables every shard holds. Identifiers come from {@link SqlNames}, which checks them.
 *
 * <p>Timestamps are {@code DATETIME(6)} holding UTC rather than {@code TIMESTAMP(6)}: a
 * TIMESTAMP is converted through the session time zone on the way in and out and ends in 2038.
 */
final class Ddl {
  static final String EDGE_COUNTS = "edge_counts";
  static final String OUTBOX = "outbox";

  private Ddl() {}

  static String createDatabase(int shard) {
    return "CREATE DATABASE IF NOT EXISTS `" + SqlNames.database(shard)
        + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin";
  }

  static String nodeTable(int shard, NodeType type) {
    return "CREATE TABLE IF NOT EXISTS " + SqlNames.table(shard, type.tableName()) + " ("
        + " local_id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,"
        + " data JSON NOT NULL,"
        + " version BIGINT UNSIGNED NOT NULL,"
        + " created_at DATETIME(6) NOT NULL,"
        + " updated_at DATETIME(6) NOT NULL"
        + ") ENGINE=InnoDB";
  }

  static String edgeTable(int shard, EdgeType type) {
    return "CREATE TABLE IF NOT EXISTS " + SqlNames.table(shard, type.tableName()) + " ("
        + " from_id BIGINT UNSIGNED NOT NULL,"
        + " to_id BIGINT UNSIGNED NOT NULL,"
        + " sequence BIGINT NOT NULL,"
        + " state TINYINT NOT NULL,"
        + " data JSON NULL,"
        + " updated_us BIGINT NOT NULL,"
        + " PRIMARY KEY (from_id, to_id),"
        + " KEY by_sequence (from_id, state, sequence, to_id),"
        // For collecting tombstones past their grace period without a full scan.
        + " KEY tombstones (state, updated_us)"
        + ") ENGINE=InnoDB";
  }

  /**
   * Inverse operations waiting to be applied. Typed columns rather than a JSON payload: the
   * applier reads them on every pass. The {@code due} index serves the applier's one query.
   */
  static String outbox(int shard) {
    return "CREATE TABLE IF NOT EXISTS " + SqlNames.table(shard, OUTBOX) + " ("
        + " id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,"
        + " edge_type SMALLINT UNSIGNED NOT NULL,"
        + " from_id BIGINT UNSIGNED NOT NULL,"
        + " to_id BIGINT UNSIGNED NOT NULL,"
        + " state TINYINT NOT NULL,"
        + " sequence BIGINT NOT NULL,"
        + " data JSON NULL,"
        + " updated_us BIGINT NOT NULL,"
        + " created_us BIGINT NOT NULL,"
        + " attempts INT NOT NULL DEFAULT 0,"
        + " next_attempt_us BIGINT NOT NULL DEFAULT 0,"
        + " parked TINYINT NOT NULL DEFAULT 0,"
        + " last_error VARCHAR(1000) NULL,"
        + " KEY due (parked, next_attempt_us, id)"
        + ") ENGINE=InnoDB";
  }

  static String edgeCounts(int shard) {
    return "CREATE TABLE IF NOT EXISTS " + SqlNames.table(shard, EDGE_COUNTS) + " ("
        + " from_id BIGINT UNSIGNED NOT NULL,"
        + " edge_type SMALLINT UNSIGNED NOT NULL,"
        + " count BIGINT NOT NULL,"
        + " PRIMARY KEY (from_id, edge_type)"
        + ") ENGINE=InnoDB";
  }
}
