package io.quiver.api.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.testing.ApiFixture;
import io.quiver.store.testing.GraphInvariants;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code quiver import FILE}: the report on standard output, and its exit status, against a real server. */
@ExtendWith(GraphInvariants.class)
class ImportCommandTest {
  private static ApiFixture api;

  @BeforeAll
  static void start() throws Exception {
    api = new ApiFixture();
  }

  @AfterAll
  static void stop() {
    api.close();
  }

  /** Runs the command; answers its exit status and what it printed. */
  private static String[] run(String... arguments) {
    List<String> line = new ArrayList<>(List.of("import"));
    line.addAll(List.of(arguments));
    Cli.Run run = Cli.quiver(line.toArray(String[]::new));
    return new String[] {Integer.toString(run.status()), run.out(), run.err()};
  }

  @Test
  void anImport_printsItsReport_exits0_andARerunUnderTheFilesNameCreatesNothing() throws Exception {
    Path file = Files.createTempFile("people", ".ndjson");
    Files.writeString(file, """
        {"node": {"ref": "ann", "type": "user", "data": {"name": "Ann"}}}
        {"node": {"ref": "bob", "type": "user", "data": {"name": "Bob"}}}

        {"edge": {"from": "ann", "type": "follows", "to": "bob"}}
        """);
    String server = "http://127.0.0.1:" + api.port();

    String[] first = run(file.toString(), "--server", server);
    String name = ImportCommand.defaultName(file);
    assertThat(first[0]).isEqualTo("0");
    assertThat(first[1]).contains("import " + name + ": 3 lines; nodes 2 created, 0 already there; edges 1 created");

    String[] again = run(file.toString(), "--server", server);
    assertThat(again[1]).contains("nodes 0 created, 2 already there; edges 0 created, 0 updated, 1 unchanged");
  }

  @Test
  void refusedLines_areListedWithTheirNumbers_andExit3_whileAMissingFileIsAUsageError() throws Exception {
    Path file = Files.createTempFile("bad", ".ndjson");
    Files.writeString(file, """
        {"node": {"ref": "x", "type": "user", "data": {"name": "X"}}}
        {"edge": {"from": "x", "type": "follows", "to": "nowhere"}}
        """);

    String[] refused = run(file.toString(), "--server", "http://127.0.0.1:" + api.port(), "--name", "bad" + System.nanoTime());

    assertThat(refused[0]).isEqualTo("3");
    assertThat(refused[1]).contains("1 refused").contains("line 2: ");
    String[] missing = run("/no/such/file.ndjson");
    assertThat(missing[0]).isEqualTo("2");
    assertThat(missing[2]).isEqualTo("quiver: no file /no/such/file.ndjson\n");
  }
}
