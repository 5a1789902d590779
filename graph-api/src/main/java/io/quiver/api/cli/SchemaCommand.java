package io.quiver.api.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.quiver.api.http.ApiJson;
import io.quiver.core.GraphException;
import io.quiver.fleet.AdminService;
import io.quiver.schema.EdgeType;
import io.quiver.schema.FieldDef;
import io.quiver.schema.Fields;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaChanges;
import io.quiver.schema.SchemaJson;
import io.quiver.schema.UniqueIndex;
import io.quiver.store.UniqueRepairReport;
import io.vertx.core.Future;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code quiver schema show | diff FILE | apply FILE}: the registry's types as the server serves
 * them, and a schema document's changes to them — what each would change and whether the
 * compatibility rules allow it (asked of the registry as a preview), before anything is applied. A type the document does not name is left as it is. A unique index declared on a type
 * that has nodes is published building and then built under a progress bar, by the unique repair's
 * scan. Every call goes through the {@link AdminService}; only the document is read as JSON.
 */
@Command(name = "schema", mixinStandardHelpOptions = true, description = "The schema registry's types.",
    subcommands = {SchemaCommand.Show.class, SchemaCommand.Diff.class, SchemaCommand.Apply.class})
final class SchemaCommand extends CommandGroup {

  @Command(name = "show", mixinStandardHelpOptions = true,
      description = "Node types with their fields and defaults; edge types with their ends and inverses.")
  static final class Show extends RemoteCommand {
    @Override
    int run(PrintWriter out) {
      Schema schema = remote.admin().schema().await();
      if (json) {
        printJson(out, SchemaJson.write(schema));
        return 0;
      }
      out.printf("schema version %d%n%n", schema.version());
      Table nodes = new Table("NODE TYPE", "ID", "STRICT", "FIELDS");
      schema.nodeTypes().forEach((name, type) -> nodes.row(name, type.id(), type.strict() ? "yes" : "no",
          fields(type.fields())));
      nodes.print(out);
      out.println();
      Table edges = new Table("EDGE TYPE", "ID", "FROM", "TO", "INVERSE", "FIELDS");
      schema.edgeTypes().forEach((name, type) -> edges.row(name, type.id(), type.from(), type.to(),
          type.inverse() == null ? "-" : type.inverse(), fields(type.fields())));
      edges.print(out);
      return 0;
    }

    /** {@code name:type=default}, required and unique fields marked. */
    private static String fields(Fields fields) {
      List<String> described = new ArrayList<>();
      fields.definitions().forEach((name, field) -> {
        String text = name + ":" + field.type().jsonName();
        if (field.hasDefault()) {
          text += "=" + field.defaultValue();
        }
        if (field.required()) {
          text += " (required)";
        }
        if (field.unique() != null) {
          text += " (unique)";
        }
        described.add(text);
      });
      return described.isEmpty() ? "-" : String.join(", ", described);
    }
  }

  @Command(name = "diff", mixinStandardHelpOptions = true,
      description = "What a schema document would change, type by type, and whether the rules allow it.")
  static final class Diff extends RemoteCommand {
    @Parameters(paramLabel = "FILE", description = "a schema document: {\"nodeTypes\": {...}, \"edgeTypes\": {...}}")
    Path file;

    @Option(names = "--change-defaults", description = "allow changed defaults (they change what stored nodes read)")
    boolean changeDefaults;

    @Override
    int run(PrintWriter out) throws IOException {
      List<TypeChange> changes = compare(remote.admin(), file, permits(changeDefaults));
      print(changes, out);
      return changes.stream().anyMatch(TypeChange::refused) ? 3 : 0;
    }
  }

  @Command(name = "apply", mixinStandardHelpOptions = true,
      description = "Define every type a schema document changes; nothing at all if the rules refuse any of them.")
  static final class Apply extends RemoteCommand {
    @Parameters(paramLabel = "FILE", description = "a schema document: {\"nodeTypes\": {...}, \"edgeTypes\": {...}}")
    Path file;

    @Option(names = "--change-defaults", description = "allow changed defaults (they change what stored nodes read)")
    boolean changeDefaults;

    @Override
    int run(PrintWriter out) throws IOException {
      AdminService admin = remote.admin();
      Set<SchemaChanges.Permit> permits = permits(changeDefaults);
      List<TypeChange> changes = compare(admin, file, permits);
      print(changes, out);
      if (changes.stream().anyMatch(TypeChange::refused)) {
        throw new CommandFailure(1, "the rules refuse a change above; nothing was applied");
      }
      Set<SchemaChanges.Permit> andBuildLater = EnumSet.of(SchemaChanges.Permit.BUILD_INDEXES_LATER);
      andBuildLater.addAll(permits);
      long version = -1;
      for (TypeChange change : changes) {
        if (!change.lines().isEmpty()) {
          version = change.define(admin, andBuildLater).await().version();
          out.printf("defined %s%n", change.name());
        }
      }
      out.println(version < 0 ? "nothing to change" : "schema version " + version);
      out.flush();
      return buildIndexes(admin, out);
    }

    /**
     * Every unique index left building (declared on a type that has nodes): built by the unique
     * repair's scan, under a progress bar; exits 3 when values are held twice.
     */
    private static int buildIndexes(AdminService admin, PrintWriter out) {
      int status = 0;
      for (NodeType type : admin.schema().await().nodeTypes().values()) {
        for (var field : type.uniqueFields().entrySet()) {
          if (field.getValue().unique().state() == UniqueIndex.State.BUILDING) {
            out.printf("building the unique index of %s.%s%n", type.name(), field.getKey());
            out.flush();
            UniqueRepairReport report = RepairCommand.unique(admin, type.name(), field.getKey(),
                "index " + type.name() + "." + field.getKey());
            RepairCommand.summarize(report, out);
            status = report.duplicates().isEmpty() ? status : 3;
          }
        }
      }
      return status;
    }
  }

  private static Set<SchemaChanges.Permit> permits(boolean changeDefaults) {
    return changeDefaults ? EnumSet.of(SchemaChanges.Permit.CHANGE_DEFAULTS) : EnumSet.noneOf(SchemaChanges.Permit.class);
  }

  /**
   * One type of the document against the registry: what would change ({@code lines}, empty when
   * nothing), and the server's verdict on it (null when allowed).
   */
  record TypeChange(NodeType node, EdgeType edge, List<String> lines, String refusal) {
    boolean refused() {
      return refusal != null;
    }

    String name() {
      return node != null ? "node type " + node.name() : "edge type " + edge.name();
    }

    /** Defines the type as the document does ({@code preview}: only asks what that would publish). */
    Future<Schema> define(AdminService admin, Set<SchemaChanges.Permit> permits) {
      return node != null ? admin.defineNodeType(node, permits) : admin.defineEdgeType(edge, permits);
    }

    Future<Schema> preview(AdminService admin, Set<SchemaChanges.Permit> permits) {
      return node != null ? admin.previewNodeType(node, permits) : admin.previewEdgeType(edge, permits);
    }
  }

  private static List<TypeChange> compare(AdminService admin, Path file, Set<SchemaChanges.Permit> permits)
      throws IOException {
    Schema wanted;
    try {
      // Read as apply reads it: a document apply would refuse is refused here too.
      wanted = SchemaJson.parse(Files.readString(file));
    } catch (java.nio.file.NoSuchFileException missing) {
      throw new CommandFailure(2, "no file " + file);
    } catch (GraphException malformed) {
      throw new CommandFailure(1, file + ": " + malformed.getMessage());
    }
    Schema stored = admin.schema().await();
    List<TypeChange> changes = new ArrayList<>();
    wanted.nodeTypes().forEach((name, type) -> changes.add(verdict(admin, new TypeChange(type, null,
        differences(stored.nodeType(name).orElse(null), type), null), permits)));
    wanted.edgeTypes().forEach((name, type) -> changes.add(verdict(admin, new TypeChange(null, type,
        differences(stored.edgeType(name).orElse(null), type), null), permits)));
    return changes;
  }

  /** The rules' verdict on a change: what it would publish, asked of the registry, nothing changed. */
  private static TypeChange verdict(AdminService admin, TypeChange change, Set<SchemaChanges.Permit> permits) {
    if (change.lines().isEmpty()) {
      return change;
    }
    try {
      change.preview(admin, permits).await();
      return change;
    } catch (GraphException refused) {
      return new TypeChange(change.node(), change.edge(), change.lines(), CommandFailure.of(refused).getMessage());
    }
  }

  /** What defining {@code after} over {@code before} (null: not defined) changes, a line each. */
  private static List<String> differences(NodeType before, NodeType after) {
    if (before == null) {
      return List.of("new");
    }
    List<String> lines = new ArrayList<>();
    changed(lines, "id", before.id(), after.id());
    changed(lines, "strict", before.strict(), after.strict());
    fieldDifferences(lines, before.fields(), after.fields());
    return lines;
  }

  private static List<String> differences(EdgeType before, EdgeType after) {
    if (before == null) {
      return List.of("new");
    }
    List<String> lines = new ArrayList<>();
    changed(lines, "id", before.id(), after.id());
    changed(lines, "from", quoted(before.from()), quoted(after.from()));
    changed(lines, "to", quoted(before.to()), quoted(after.to()));
    changed(lines, "inverse", quoted(before.inverse()), quoted(after.inverse()));
    fieldDifferences(lines, before.fields(), after.fields());
    return lines;
  }

  private static void changed(List<String> lines, String member, Object was, Object is) {
    if (!java.util.Objects.equals(was, is)) {
      lines.add("~ " + member + ": " + was + " -> " + is);
    }
  }

  private static String quoted(String name) {
    return name == null ? null : "\"" + name + "\"";
  }

  private static void fieldDifferences(List<String> lines, Fields before, Fields after) {
    after.definitions().forEach((name, field) -> {
      FieldDef was = before.definitions().get(name);
      if (was == null) {
        lines.add("+ field " + name + " " + comparable(field));
      } else if (!comparable(was).equals(comparable(field))) {
        lines.add("~ field " + name + " " + comparable(was) + " -> " + comparable(field));
      }
    });
    before.definitions().keySet().forEach(name -> {
      if (!after.definitions().containsKey(name)) {
        lines.add("- field " + name);
      }
    });
  }

  /** A field's definition as a document states it: a unique index is {@code "unique": true}, whatever its state. */
  private static JsonNode comparable(FieldDef field) {
    com.fasterxml.jackson.databind.node.ObjectNode json = SchemaJson.write(
        new FieldDef(field.type(), field.required(), field.defaultValue(), field.nodeType(), null));
    if (field.unique() != null) {
      json.put("unique", true);
    }
    return json;
  }

  private static void print(List<TypeChange> changes, PrintWriter out) {
    for (TypeChange change : changes) {
      if (change.lines().isEmpty()) {
        out.printf("= %s: unchanged%n", change.name());
        continue;
      }
      out.printf("%s %s: %s%n", change.refused() ? "!" : "*", change.name(),
          change.refused() ? "refused: " + change.refusal() : "allowed");
      change.lines().forEach(line -> out.println("    " + line));
    }
    out.flush();
  }
}
