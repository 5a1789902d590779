package io.quiver.fleet;

/**
 * What one provisioning run did.
 *
 * @param shards shards checked
 * @param databasesCreated shard databases that did not exist before
 * @param tablesCreated tables that did not exist before
 */
public record ProvisionReport(int shards, int databasesCreated, int tablesCreated) {
  public boolean changedNothing() {
    return databasesCreated == 0 && tablesCreated == 0;
  }
}
