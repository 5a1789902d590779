package io.quiver.fleet.internal;

import io.quiver.core.GraphException;
import io.quiver.schema.EdgeType;
import io.quiver.schema.FieldDef;
import io.quiver.schema.Fields;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaChanges;
import io.quiver.schema.SchemaStore;
import io.quiver.schema.UniqueIndex;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
 * <h2>Unique indexes</h2>
 * A field declared unique gets a {@link UniqueIndex} whose shard count the registry fixes from the
 * fleet ({@link IndexBuilder#shardCount}) when the change is built. On a new type the index is
 * active at once — no node holds a value yet. On a type that exists, stored nodes may hold values:
 * the change is published with the index {@link UniqueIndex.State#BUILDING building} (writes
 * claim their values from then on), then the index is built from the stored nodes
 * ({@link IndexBuilder#build}) and published active only if no value is held twice. Otherwise
 * the change stays published with the index building, and the call fails UNIQUE_VIOLATION listing
 * the duplicates; once they are resolved, {@link #activate} (run by the repair) finishes the job.
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

  /** Fixes and builds unique indexes from the stored nodes (the backend's repair scan, behind the fence of served versions). */
  public interface IndexBuilder {
    /** The shards a new index spreads over: the fleet's count when it is declared. */
    int shardCount() throws Exception;

    /**
     * Claims every value the type's stored nodes hold in the field's index and removes claims no
     * node backs, under {@code schema} (which holds the index); answers the values held by more
     * than one node, empty when the index may turn active.
     */
    List<UniqueIndex.Duplicate> build(Schema schema, String type, String field) throws Exception;

    /** For registries without unique indexes (tools, tests): declaring one is refused. */
    IndexBuilder NONE = new IndexBuilder() {
      @Override
      public int shardCount() {
        throw GraphException.invalid("this registry cannot build unique indexes");
      }

      @Override
      public List<UniqueIndex.Duplicate> build(Schema schema, String type, String field) {
        throw GraphException.invalid("this registry cannot build unique indexes");
      }
    };
  }

  private final SchemaStore store;
  private final TypeProvisioner provisioner;
  private final IndexBuilder indexes;

  public SchemaRegistry(SchemaStore store, TypeProvisioner provisioner) {
    this(store, provisioner, IndexBuilder.NONE);
  }

  public SchemaRegistry(SchemaStore store, TypeProvisioner provisioner, IndexBuilder indexes) {
    this.store = store;
    this.provisioner = provisioner;
    this.indexes = indexes;
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
    Schema apply(Schema current) throws Exception;
  }

  /**
   * Turns a building index active, if the field still has it building: what a build that found
   * no duplicates, or a repair after they were resolved, publishes. Answers the schema then stored.
   */
  public Schema activate(String type, String field) throws Exception {
    return publish(current -> current.nodeType(type)
        .map(stored -> {
          FieldDef def = stored.fields().definitions().get(field);
          if (def == null || def.unique() == null || def.unique().active()) {
            return current;
          }
          Map<String, FieldDef> definitions = new LinkedHashMap<>(stored.fields().definitions());
          definitions.put(field, def.withUnique(def.unique().withState(UniqueIndex.State.ACTIVE)));
          log.info("unique index {}.{} built: active", type, field);
          return current.with(stored.withFields(new Fields(definitions, stored.fields().strict(),
              stored.fields().retired())), current.version() + 1);
        })
        .orElse(current));
  }

  /**
   * What defining {@code type} would publish, checked against the stored schema as a definition is
   * — the stored schema itself when nothing would change — or the INCOMPATIBLE_CHANGE refusal
   * naming the rule. Nothing is provisioned, published or built: the answer to "what would this
   * do?" before an operator does it.
   */
  public Schema previewNodeType(NodeType type, Set<SchemaChanges.Permit> permits) throws Exception {
    return preview(current -> current.with(type, current.version() + 1), permits);
  }

  /** As {@link #previewNodeType}, for an edge type. */
  public Schema previewEdgeType(EdgeType type, Set<SchemaChanges.Permit> permits) throws Exception {
    return preview(current -> current.with(type, current.version() + 1), permits);
  }

  private Schema preview(Change change, Set<SchemaChanges.Permit> permits) throws Exception {
    Schema current = store.read().orElse(Schema.empty());
    Schema proposed = proposal(current, change, permits);
    return proposed.sameTypesAs(current) ? current : proposed;
  }

  /** {@code change} made to {@code current}, carrying retired fields and indexes, and checked. */
  private static Schema proposal(Schema current, Change change, Set<SchemaChanges.Permit> permits) throws Exception {
    Schema proposed = SchemaChanges.carryIndexes(current,
        SchemaChanges.carryRetiredFields(current, change.apply(current)));
    if (!proposed.sameTypesAs(current)) {
      SchemaChanges.check(current, proposed, permits);
    }
    return proposed;
  }

  private Schema change(Change change, Set<SchemaChanges.Permit> permits) throws Exception {
    List<String[]> builds = new ArrayList<>();
    Schema published = publish(current -> {
      Schema proposed = proposal(current, change, permits);
      builds.clear();
      return fixIndexes(current, proposed, builds);
    });
    if (permits.contains(SchemaChanges.Permit.BUILD_INDEXES_LATER)) {
      return published;
    }
    for (String[] build : builds) {
      List<UniqueIndex.Duplicate> duplicates = indexes.build(published, build[0], build[1]);
      if (!duplicates.isEmpty()) {
        throw UniqueIndex.Duplicate.refusal(build[0], build[1], duplicates);
      }
      published = activate(build[0], build[1]);
    }
    return published;
  }

  /**
   * {@code proposed} with every declared index given the fleet's shard count: active on a new
   * type, building on a type that has nodes — each of those named in {@code builds}.
   */
  private Schema fixIndexes(Schema current, Schema proposed, List<String[]> builds) throws Exception {
    Schema fixed = proposed;
    for (NodeType type : proposed.nodeTypes().values()) {
      Map<String, FieldDef> definitions = new LinkedHashMap<>(type.fields().definitions());
      boolean changed = false;
      for (Map.Entry<String, FieldDef> entry : type.uniqueFields().entrySet()) {
        if (!entry.getValue().unique().declared()) {
          continue;
        }
        boolean newType = !current.nodeTypes().containsKey(type.name());
        UniqueIndex index = new UniqueIndex(indexes.shardCount(),
            newType ? UniqueIndex.State.ACTIVE : UniqueIndex.State.BUILDING);
        definitions.put(entry.getKey(), entry.getValue().withUnique(index));
        changed = true;
        if (!newType) {
          builds.add(new String[] {type.name(), entry.getKey()});
        }
      }
      if (changed) {
        fixed = fixed.with(type.withFields(new Fields(definitions, type.fields().strict(), type.fields().retired())),
            fixed.version());
      }
    }
    return fixed;
  }

  /**
   * Reads the stored version, builds the next from it, provisions and publishes it compare-and-set;
   * starts again when another change won the race. A next version defining the same types
   * publishes nothing and answers the stored one.
   */
  private Schema publish(Change change) throws Exception {
    for (int attempt = 1; ; attempt++) {
      Schema current = store.read().orElse(Schema.empty());
      Schema proposed = change.apply(current);
      if (proposed.sameTypesAs(current)) {
        return current;
      }
      provisioner.provision(proposed);
      try {
        store.publish(proposed);
        log.info("schema version {} published", proposed.version());
        return proposed;
      } catch (GraphException raced) {
        if (raced.code() != GraphException.Code.VERSION_CONFLICT || attempt >= MAX_ATTEMPTS) {
          throw raced;
        }
      }
    }
  }
}
