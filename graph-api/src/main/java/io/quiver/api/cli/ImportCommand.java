package io.quiver.api.cli;

import io.quiver.client.ImportReport;
import io.quiver.client.QuiverClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code quiver import FILE [--name NAME] [--server URL]}: a bulk import of an NDJSON file into a
 * running server ({@code POST /v1/bulk}), with a progress bar (lines, rate, time left) on standard
 * error, then the report on standard output. The name defaults to the file's name without its
 * extension; rerunning the same file under the same name creates nothing twice. Exits 0 when
 * every line was written, 3 when some were refused (they are listed), 1 when the import failed.
 */
@Command(name = "import", mixinStandardHelpOptions = true,
    description = "Import an NDJSON file of nodes and edges into a running server, with a progress bar.")
final class ImportCommand extends RemoteCommand {
  /** Refused lines printed; the report says how many there were. */
  private static final int SHOWN = 20;

  @Parameters(paramLabel = "FILE", description = "NDJSON: one node or edge per line (see the README)")
  Path file;

  @Option(names = "--name", paramLabel = "NAME",
      description = "the import's name; a rerun under it creates nothing twice (default: the file's name)")
  String name;

  @Override
  int run(PrintWriter out) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new CommandFailure(2, "no file " + file);
    }
    String importName = name != null ? name : defaultName(file);
    long lines;
    try (Stream<String> all = Files.lines(file)) {
      lines = all.filter(line -> !line.isBlank()).count();
    }
    ImportReport report;
    QuiverClient quiver = remote.client();
    try (ProgressBar bar = new ProgressBarBuilder()
            .setTaskName("import " + importName)
            .setInitialMax(lines)
            .setUnit(" lines", 1)
            .setStyle(ProgressBarStyle.ASCII)
            .showSpeed()
            .build()) {
      report = quiver.bulkImport(importName, file, progress -> bar.stepTo(progress.lines()));
      bar.stepTo(report.lines());
    }
    if (json) {
      printJson(out, io.quiver.api.http.ApiJson.MAPPER.valueToTree(report));
      return report.refusedCount() == 0 ? 0 : 3;
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
    out.flush();
    return report.refusedCount() == 0 ? 0 : 3;
  }

  /** The file's name without its extension, as an import name may be spelled. */
  static String defaultName(Path file) {
    String base = file.getFileName().toString().replaceFirst("\\.[^.]*$", "").replaceAll("[^A-Za-z0-9_.:-]", "-");
    return base.isEmpty() ? "import" : base.substring(0, Math.min(64, base.length()));
  }
}
