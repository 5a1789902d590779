package io.quiver.schema;

import java.util.ConcurrentModificationException;
import java.util.LinkedHashMap;
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
   * Seeds the registry from a schema document (a schema file, the dev stack's example): adds the
   * types and fields the registry lacks, and nothing else. A type or field the registry holds is
   * never replaced or removed — it may have been changed through the admin API since the document
   * was written — and a field the registry retired stays retired. What the document says
   * differently is skipped and logged, one line each.
   */
  public Schema apply(Schema document) throws Exception {
    return change(current -> seeded(current, document), Set.of());
  }

  /** {@code current} with what {@code document} adds to it; logs what it skips. */
  static Schema seeded(Schema current, Schema document) {
    Map<String, NodeType> nodeTypes = new TreeMap<>(current.nodeTypes());
    document.nodeTypes().forEach((name, type) -> {
      NodeType stored = nodeTypes.get(name);
      nodeTypes.put(name, stored == null ? type : stored.withFields(added("node type '" + name + "'", stored.fields(),
          type.fields())));
      if (stored != null && stored.id() != type.id()) {
        log.info("seed: kept node type '{}' with id {}; the seed gives it id {}", name, stored.id(), type.id());
      }
    });
    Map<String, EdgeType> edgeTypes = new TreeMap<>(current.edgeTypes());
    document.edgeTypes().forEach((name, type) -> {
      EdgeType stored = edgeTypes.get(name);
      edgeTypes.put(name, stored == null ? type : stored.withFields(added("edge type '" + name + "'", stored.fields(),
          type.fields())));
      if (stored != null && !stored.withFields(type.fields()).equals(type)) {
        log.info("seed: kept edge type '{}' as stored; the seed defines it otherwise", name);
      }
    });
    return new Schema(current.version() + 1, nodeTypes, edgeTypes);
  }

  /** The stored fields, with the seed's fields that are neither stored nor retired. */
  private static Fields added(String what, Fields stored, Fields seed) {
    Map<String, FieldDef> definitions = new LinkedHashMap<>(stored.definitions());
    seed.definitions().forEach((name, field) -> {
      FieldDef held = stored.definitions().get(name);
      if (held == null && !stored.retired().containsKey(name)) {
        definitions.put(name, field);
      } else if (held == null) {
        log.info("seed: left {} field '{}' retired, as the registry holds it", what, name);
      } else if (!held.equals(field)) {
        log.info("seed: kept {} field '{}' as stored ({}); the seed defines it otherwise", what, name, held.type().jsonName());
      }
    });
    return new Fields(definitions, stored.strict(), stored.retired());
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
