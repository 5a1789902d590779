package io.quiver.api.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.quiver.api.http.ApiJson;
import io.quiver.core.GraphException;
import io.quiver.fleet.AdminService;
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
  record TypeChange(String kind, String typeName, JsonNode definition, List<String> lines, String refusal) {
    boolean refused() {
      return refusal != null;
    }

    String name() {
      return kind + " type " + typeName;
    }

    /** Defines the type as the document does ({@code preview}: only asks what that would publish). */
    Future<Schema> define(AdminService admin, Set<SchemaChanges.Permit> permits) {
      return kind.equals("node")
          ? admin.defineNodeType(SchemaJson.readNodeType(typeName, definition), permits)
          : admin.defineEdgeType(SchemaJson.readEdgeType(typeName, definition), permits);
    }

    Future<Schema> preview(AdminService admin, Set<SchemaChanges.Permit> permits) {
      return kind.equals("node")
          ? admin.previewNodeType(SchemaJson.readNodeType(typeName, definition), permits)
          : admin.previewEdgeType(SchemaJson.readEdgeType(typeName, definition), permits);
    }
  }

  private static List<TypeChange> compare(AdminService admin, Path file, Set<SchemaChanges.Permit> permits)
      throws IOException {
    JsonNode document;
    try {
      document = ApiJson.MAPPER.readTree(Files.readString(file));
    } catch (java.nio.file.NoSuchFileException missing) {
      throw new CommandFailure(2, "no file " + file);
    } catch (com.fasterxml.jackson.core.JsonProcessingException malformed) {
      throw new CommandFailure(1, file + " is not JSON: " + malformed.getOriginalMessage());
    }
    JsonNode stored = SchemaJson.write(admin.schema().await());
    List<TypeChange> changes = new ArrayList<>();
    for (String kind : List.of("node", "edge")) {
      String member = kind + "Types";
      document.path(member).fields().forEachRemaining(entry -> {
        List<String> lines = differences(stored.path(member).get(entry.getKey()), entry.getValue());
        TypeChange change = new TypeChange(kind, entry.getKey(), entry.getValue(), lines, null);
        changes.add(lines.isEmpty() ? change : verdict(admin, change, permits));
      });
    }
    return changes;
  }

  /** The rules' verdict on a change: what it would publish, asked of the registry, nothing changed. */
  private static TypeChange verdict(AdminService admin, TypeChange change, Set<SchemaChanges.Permit> permits) {
    try {
      change.preview(admin, permits).await();
      return change;
    } catch (GraphException refused) {
      return new TypeChange(change.kind(), change.typeName(), change.definition(), change.lines(),
          CommandFailure.of(refused).getMessage());
    }
  }

  /** What defining {@code after} over {@code before} (null: not defined) changes, a line each. */
  private static List<String> differences(JsonNode before, JsonNode after) {
    List<String> lines = new ArrayList<>();
    if (before == null) {
      lines.add("new");
      return lines;
    }
    for (String member : List.of("id", "strict", "from", "to", "inverse")) {
      JsonNode was = before.path(member);
      JsonNode is = after.path(member);
      if (!is.isMissingNode() && !is.equals(was) && !(member.equals("strict") && !is.asBoolean() && was.isMissingNode())) {
        lines.add("~ " + member + ": " + was + " -> " + is);
      }
    }
    JsonNode oldFields = before.path("fields");
    JsonNode newFields = after.path("fields");
    newFields.fields().forEachRemaining(field -> {
      JsonNode was = oldFields.get(field.getKey());
      if (was == null) {
        lines.add("+ field " + field.getKey() + " " + comparable(field.getValue()));
      } else if (!comparable(was).equals(comparable(field.getValue()))) {
        lines.add("~ field " + field.getKey() + " " + comparable(was) + " -> " + comparable(field.getValue()));
      }
    });
    oldFields.fieldNames().forEachRemaining(name -> {
      if (!newFields.has(name)) {
        lines.add("- field " + name);
      }
    });
    return lines;
  }

  /** A field's definition as the document states it: a unique index is {@code "unique": true}, whatever its state. */
  private static JsonNode comparable(JsonNode field) {
    com.fasterxml.jackson.databind.node.ObjectNode copy = field.deepCopy();
    JsonNode unique = copy.get("unique");
    if (unique != null && (unique.isObject() || unique.asBoolean())) {
      copy.put("unique", true);
    } else {
      copy.remove("unique");
    }
    return copy;
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
