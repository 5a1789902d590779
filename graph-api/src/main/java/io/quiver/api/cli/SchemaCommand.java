package io.quiver.api.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code quiver schema show | diff FILE | apply FILE}: the registry's types as the server serves
 * them, and a schema document's changes to them — what each would change and whether the
 * compatibility rules allow it (asked of the server with {@code ?dryRun=true}), before anything is
 * applied. A type the document does not name is left as it is. A unique index declared on a type
 * that has nodes is published building and then built under a progress bar, by the unique repair's
 * scan through the server.
 */
@Command(name = "schema", mixinStandardHelpOptions = true, description = "The schema registry's types.",
    subcommands = {SchemaCommand.Show.class, SchemaCommand.Diff.class, SchemaCommand.Apply.class})
final class SchemaCommand extends CommandGroup {

  @Command(name = "show", mixinStandardHelpOptions = true,
      description = "Node types with their fields and defaults; edge types with their ends and inverses.")
  static final class Show extends RemoteCommand {
    @Override
    int run(AdminHttp server, PrintWriter out) {
      JsonNode schema = server.get("/v1/schema");
      if (json) {
        printJson(out, schema);
        return 0;
      }
      out.printf("schema version %d%n%n", schema.path("version").asLong());
      Table nodes = new Table("NODE TYPE", "ID", "STRICT", "FIELDS");
      schema.path("nodeTypes").fields().forEachRemaining(type -> nodes.row(type.getKey(), type.getValue().path("id").asInt(),
          type.getValue().path("strict").asBoolean() ? "yes" : "no", fields(type.getValue().path("fields"))));
      nodes.print(out);
      out.println();
      Table edges = new Table("EDGE TYPE", "ID", "FROM", "TO", "INVERSE", "FIELDS");
      schema.path("edgeTypes").fields().forEachRemaining(type -> edges.row(type.getKey(), type.getValue().path("id").asInt(),
          type.getValue().path("from").asText(), type.getValue().path("to").asText(),
          type.getValue().path("inverse").asText("-"), fields(type.getValue().path("fields"))));
      edges.print(out);
      return 0;
    }

    /** {@code name:type=default}, unique fields marked {@code !}. */
    private static String fields(JsonNode fields) {
      List<String> described = new ArrayList<>();
      fields.fields().forEachRemaining(field -> {
        JsonNode def = field.getValue();
        String text = field.getKey() + ":" + def.path("type").asText();
        if (def.has("default")) {
          text += "=" + def.get("default");
        }
        if (def.path("required").asBoolean()) {
          text += " (required)";
        }
        if (!def.path("unique").isMissingNode() && !def.path("unique").isNull() && !def.path("unique").equals(
            AdminHttp.JSON.getNodeFactory().booleanNode(false))) {
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
    int run(AdminHttp server, PrintWriter out) throws IOException {
      List<TypeChange> changes = compare(server, file, changeDefaults);
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
    int run(AdminHttp server, PrintWriter out) throws IOException {
      List<TypeChange> changes = compare(server, file, changeDefaults);
      print(changes, out);
      if (changes.stream().anyMatch(TypeChange::refused)) {
        throw new CommandFailure(1, "the rules refuse a change above; nothing was applied");
      }
      long version = -1;
      for (TypeChange change : changes) {
        if (!change.lines().isEmpty()) {
          String path = change.path(changeDefaults);
          version = server.put(path + (path.contains("?") ? "&" : "?") + "buildLater=true", change.definition())
              .path("version").asLong();
          out.printf("defined %s%n", change.name());
        }
      }
      out.println(version < 0 ? "nothing to change" : "schema version " + version);
      out.flush();
      return buildIndexes(server, out);
    }

    /**
     * Every unique index left building (declared on a type that has nodes): built by the unique
     * repair's scan through the server, under a progress bar; exits 3 when values are held twice.
     */
    private static int buildIndexes(AdminHttp server, PrintWriter out) {
      int status = 0;
      JsonNode schema = server.get("/v1/schema");
      for (java.util.Iterator<java.util.Map.Entry<String, JsonNode>> types = schema.path("nodeTypes").fields();
          types.hasNext(); ) {
        java.util.Map.Entry<String, JsonNode> type = types.next();
        for (java.util.Iterator<java.util.Map.Entry<String, JsonNode>> fields = type.getValue().path("fields").fields();
            fields.hasNext(); ) {
          java.util.Map.Entry<String, JsonNode> field = fields.next();
          if ("building".equals(field.getValue().path("unique").path("state").asText())) {
            out.printf("building the unique index of %s.%s%n", type.getKey(), field.getKey());
            out.flush();
            JsonNode report = RepairCommand.remote(server, "/v1/admin/unique/" + type.getKey() + "/" + field.getKey()
                + "/repair", "index " + type.getKey() + "." + field.getKey());
            RepairCommand.summarize(report, out);
            status = report.path("duplicates").isEmpty() ? status : 3;
          }
        }
      }
      return status;
    }
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

    String path(boolean changeDefaults) {
      return "/v1/schema/" + kind + "-types/" + typeName + (changeDefaults ? "?changeDefaults=true" : "");
    }
  }

  private static List<TypeChange> compare(AdminHttp server, Path file, boolean changeDefaults) throws IOException {
    JsonNode document;
    try {
      document = AdminHttp.JSON.readTree(Files.readString(file));
    } catch (java.nio.file.NoSuchFileException missing) {
      throw new CommandFailure(2, "no file " + file);
    } catch (com.fasterxml.jackson.core.JsonProcessingException malformed) {
      throw new CommandFailure(1, file + " is not JSON: " + malformed.getOriginalMessage());
    }
    JsonNode stored = server.get("/v1/schema");
    List<TypeChange> changes = new ArrayList<>();
    for (String kind : List.of("node", "edge")) {
      String member = kind + "Types";
      document.path(member).fields().forEachRemaining(entry -> {
        List<String> lines = differences(stored.path(member).get(entry.getKey()), entry.getValue());
        TypeChange change = new TypeChange(kind, entry.getKey(), entry.getValue(), lines, null);
        changes.add(lines.isEmpty() ? change : verdict(server, change, changeDefaults));
      });
    }
    return changes;
  }

  /** The server's verdict on a change: the definition sent with {@code dryRun}, nothing changed. */
  private static TypeChange verdict(AdminHttp server, TypeChange change, boolean changeDefaults) {
    try {
      server.put(change.path(changeDefaults) + (changeDefaults ? "&" : "?") + "dryRun=true", change.definition());
      return change;
    } catch (CommandFailure refused) {
      return new TypeChange(change.kind(), change.typeName(), change.definition(), change.lines(), refused.getMessage());
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
