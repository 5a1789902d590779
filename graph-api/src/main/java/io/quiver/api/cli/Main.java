package io.quiver.api.cli;

import ch.qos.logback.classic.LoggerContext;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code quiver} command line, on picocli: the server ({@code serve}), the tools that work on a
 * fleet through its configuration ({@code provision}, {@code repair --config}), and the operators'
 * commands that talk to a running server's admin API the way vtctldclient talks to vtctld
 * ({@code status}, {@code shards}, {@code hosts}, {@code schema}, {@code outbox}, {@code node},
 * {@code edges}, {@code repair}, {@code import}). Every level answers {@code --help};
 * {@code quiver completion} prints a bash/zsh completion script.
 *
 * <p>Exit statuses: 0 done; 1 failed (one line on standard error, the trace only with
 * {@code QUIVER_DEBUG=1}); 2 a call that cannot be run as given, or an admin token the server
 * refuses; 3 done, but with something a person must look at (refused import lines, values held
 * twice).
 */
@Command(name = "quiver", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    description = "Quiver, a graph store over sharded MySQL: the server and the operators' tools.",
    subcommands = {ServeCommand.class, ProvisionCommand.class, StatusCommand.class, ShardsCommand.class,
        HostsCommand.class, SchemaCommand.class, OutboxCommand.class, NodeCommand.class, EdgesCommand.class,
        RepairCommand.class, ImportCommand.class, ChangesCommand.class, ExampleCommand.class,
        CommandLine.HelpCommand.class,
        picocli.AutoComplete.GenerateCompletion.class})
public final class Main {
  /** How long stopping may take before the process exits anyway (ZooKeeper away, a host frozen). */
  public static final Duration STOP_BOUND = Duration.ofSeconds(10);
  private static volatile boolean stopping;

  public static void main(String[] args) {
    exit(execute(commandLine(new PrintWriter(System.out, true), new PrintWriter(System.err, true)), args));
  }

  /** The command line with every command; {@code ./quiver} adds {@code dev} to it. */
  public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
    CommandLine line = new CommandLine(new Main());
    line.setOut(out);
    line.setErr(err);
    line.setExecutionExceptionHandler((failure, commandLine, parsed) -> {
      CommandFailure said = CommandFailure.of(failure);
      commandLine.getErr().println("quiver: " + said.getMessage());
      if ("1".equals(System.getenv("QUIVER_DEBUG"))) {
        failure.printStackTrace(commandLine.getErr());
      }
      commandLine.getErr().flush();
      return said.status();
    });
    line.setParameterExceptionHandler(Main::usageError);
    return line;
  }

  /** Runs one command line in this process; answers its exit status (in-process tests call this). */
  public static int execute(CommandLine line, String... args) {
    return line.execute(args);
  }

  /** Exits with the status, unless the process is already stopping (a server's shutdown hook ends it). */
  public static void exit(int status) {
    if (!stopping) {
      System.exit(status);
    }
  }

  private static int usageError(ParameterException refused, String[] args) {
    CommandLine command = refused.getCommandLine();
    PrintWriter err = command.getErr();
    String message = refused.getMessage();
    if (refused instanceof UnmatchedArgumentException unmatched && command.getParent() == null
        && !unmatched.getUnmatched().isEmpty() && !unmatched.getUnmatched().get(0).startsWith("-")) {
      message = "unknown command '" + unmatched.getUnmatched().get(0) + "'";
      if (!unmatched.getSuggestions().isEmpty()) {
        message += "; did you mean '" + unmatched.getSuggestions().get(0) + "'?";
      }
    }
    err.println("quiver: " + message);
    err.println("(quiver " + (command.getParent() == null ? "" : command.getCommandName() + " ") + "--help says more)");
    err.flush();
    return 2;
  }

  /**
   * Blocks until the process is asked to stop, then runs {@code stop} — for at most
   * {@link #STOP_BOUND}: what could not close by then (a lease or registration in a ZooKeeper that
   * is away, which expires with the session anyway) is left — then lets the logging queue drain
   * (lines are written by a thread of their own) before saying it is done.
   */
  public static void awaitShutdown(Runnable stop) throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      stopping = true;
      System.out.println("stopping Quiver…");
      Thread stopper = new Thread(stop, "quiver-stop");
      stopper.setDaemon(true);
      stopper.start();
      try {
        stopper.join(STOP_BOUND.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (stopper.isAlive()) {
        System.out.println("stopping took longer than " + STOP_BOUND.toSeconds() + " s; exiting anyway");
      }
      if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logging) {
        logging.stop();
      }
      System.out.println("Quiver stopped");
      stopped.countDown();
    }, "quiver-shutdown"));
    stopped.await();
  }

  /** The version the jar was built as. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = Main.class.getPackage().getImplementationVersion();
      return new String[] {"quiver " + (version == null ? "(development build)" : version)};
    }
  }
}
