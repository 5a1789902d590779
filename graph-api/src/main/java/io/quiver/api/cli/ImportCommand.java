package io.quiver.api.cli;

import io.quiver.client.ImportReport;
import io.quiver.client.QuiverClient;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * {@code quiver import FILE [--name NAME] [--server URL]}: a bulk import of an NDJSON file into a
 * running server ({@code POST /v1/bulk}), with a progress bar (lines, rate, time left) on standard
 * error, then the report on standard output. The name defaults to the file's name without its
 * extension; rerunning the same file under the same name creates nothing twice. Exits 0 when
 * every line was written, 3 when some were refused (they are listed), 1 when the import failed.
 */
final class ImportCommand {
  /** Refused lines printed; the report says how many there were. */
  private static final int SHOWN = 20;

  private ImportCommand() {}

  /** Runs the import; answers the process's exit status. */
  static int run(List<String> options, PrintStream out) throws IOException {
    String server = Main.option(options, "--server", "http://localhost:8080");
    String name = Main.option(options, "--name", null);
    if (options.size() != 1 || options.get(0).startsWith("--")) {
      throw new Main.UsageException("import needs one FILE");
    }
    Path file = Path.of(options.remove(0));
    if (!Files.isRegularFile(file)) {
      throw new Main.UsageException("no file " + file);
    }
    String importName = name != null ? name : defaultName(file);
    long lines;
    try (Stream<String> all = Files.lines(file)) {
      lines = all.filter(line -> !line.isBlank()).count();
    }
    ImportReport report;
    try (QuiverClient quiver = QuiverClient.create(URI.create(server), Duration.ofSeconds(10));
        ProgressBar bar = new ProgressBarBuilder()
            .setTaskName("import " + importName)
            .setInitialMax(lines)
            .setUnit(" lines", 1)
            .setStyle(ProgressBarStyle.ASCII)
            .showSpeed()
            .build()) {
      report = quiver.bulkImport(importName, file, progress -> bar.stepTo(progress.lines()));
      bar.stepTo(report.lines());
    }
    out.printf("import %s: %d lines; nodes %d created, %d already there; edges %d created, %d updated,"
            + " %d unchanged; %d refused%s%n",
        importName, report.lines(), report.nodesCreated(), report.nodesExisting(), report.edgesCreated(),
        report.edgesUpdated(), report.edgesUnchanged(), report.refusedCount(),
        report.inversesLeft() == 0 ? "" : "; " + report.inversesLeft() + " inverse edges left to the outbox");
    report.refused().stream().limit(SHOWN).forEach(refused ->
        out.printf("  line %d: %s: %s%n", refused.line(), refused.code(), refused.message()));
    if (report.refusedCount() > SHOWN) {
      out.printf("  … and %d more%n", report.refusedCount() - SHOWN);
    }
    return report.refusedCount() == 0 ? 0 : 3;
  }

  /** The file's name without its extension, as an import name may be spelled. */
  static String defaultName(Path file) {
    String base = file.getFileName().toString().replaceFirst("\\.[^.]*$", "").replaceAll("[^A-Za-z0-9_.:-]", "-");
    return base.isEmpty() ? "import" : base.substring(0, Math.min(64, base.length()));
  }
}
