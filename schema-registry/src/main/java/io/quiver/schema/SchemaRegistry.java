package io.quiver.schema;

import java.util.ConcurrentModificationException;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes to the registry: define a node or edge type, or apply a whole schema document.
 *
 * <h2>A change, step by step</h2>
 * <ol>
 *   <li>Read the stored version and build the proposed one. Defining a type exactly as it is
 *       stored changes nothing and publishes nothing.
 *   <li>Check it against the stored version ({@link SchemaChanges}).
 *   <li>Create the tables of every new type on every shard ({@link TypeProvisioner}).
 *   <li>Publish it, compare-and-set, as the stored version plus one. If another change won the
 *       race, start again from the first step.
 * </ol>
 * Because tables exist before the version that names their type is published, no server can
 * accept a write for a type whose tables are missing: a half-provisioned type is invisible.
 *
 * <p>Blocking (ZooKeeper and JDBC): call it from a worker thread.
 */
public final class SchemaRegistry {
  private static final Logger log = LoggerFactory.getLogger(SchemaRegistry.class);
  private static final int MAX_ATTEMPTS = 10;

  /** Creates what a schema's types need on every shard, idempotently. */
  @FunctionalInterface
  public interface TypeProvisioner {
    void provision(Schema schema) throws Exception;
  }

  private final SchemaStore store;
  private final TypeProvisioner provisioner;

  public SchemaRegistry(SchemaStore store, TypeProvisioner provisioner) {
    this.store = store;
    this.provisioner = provisioner;
  }

  public Schema defineNodeType(NodeType type) throws Exception {
    return defineNodeType(type, Set.of());
  }

  /** Defines or changes a node type, allowing what {@code permits} names. */
  public Schema defineNodeType(NodeType type, Set<SchemaChanges.Permit> permits) throws Exception {
    return change(current -> current.with(type, current.version() + 1), permits);
  }

  public Schema defineEdgeType(EdgeType type) throws Exception {
    return defineEdgeType(type, Set.of());
  }

  /** Defines or changes an edge type, allowing what {@code permits} names. */
  public Schema defineEdgeType(EdgeType type, Set<SchemaChanges.Permit> permits) throws Exception {
    return change(current -> current.with(type, current.version() + 1), permits);
  }

  /**
   * Defines every type of {@code document} that is not already defined as it is there: how a
   * server seeds the registry from a schema file. Types stored but absent from the document are
   * kept.
   */
  public Schema apply(Schema document) throws Exception {
    return change(current -> {
      // Merged whole, then checked once: one type may refer to another defined beside it.
      Map<String, NodeType> nodeTypes = new TreeMap<>(current.nodeTypes());
      nodeTypes.putAll(document.nodeTypes());
      Map<String, EdgeType> edgeTypes = new TreeMap<>(current.edgeTypes());
      edgeTypes.putAll(document.edgeTypes());
      return new Schema(current.version() + 1, nodeTypes, edgeTypes);
    }, Set.of());
  }

  private interface Change {
    Schema apply(Schema current);
  }

  private Schema change(Change change, Set<SchemaChanges.Permit> permits) throws Exception {
    for (int attempt = 1; ; attempt++) {
      Schema current = store.read().orElse(Schema.empty());
      Schema proposed = SchemaChanges.carryRetiredFields(current, change.apply(current));
      if (proposed.sameTypesAs(current)) {
        return current;
      }
      SchemaChanges.check(current, proposed, permits);
      provisioner.provision(proposed);
      try {
        store.publish(proposed);
        log.info("schema version {} published", proposed.version());
        return proposed;
      } catch (ConcurrentModificationException raced) {
        if (attempt >= MAX_ATTEMPTS) {
          throw raced;
        }
      }
    }
  }
}
