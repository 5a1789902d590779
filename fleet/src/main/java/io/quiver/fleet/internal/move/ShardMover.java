package io.quiver.fleet.internal.move;

import io.quiver.core.GraphException;
import io.quiver.core.zk.ServedVersions;
import io.quiver.fleet.MoveProgress;
import io.quiver.fleet.MoveReport;
import io.quiver.fleet.ShardMoveStatus;
import io.quiver.fleet.internal.MapChanges;
import io.quiver.fleet.internal.ShardProvisioner;
import io.quiver.fleet.internal.TailerWait;
import io.quiver.schema.Schema;
import io.quiver.store.Repairs;
import io.quiver.store.ShardLayout;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapChange;
import io.quiver.store.shard.ShardSpan;
import io.quiver.store.shard.ShardState;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a range of shards from one host to another while they keep serving — the way a Quiver
 * fleet outgrows its machines. It follows Vitess' MoveTables (copy, VDiff, SwitchTraffic) and
 * Quora's shard moves (a short cut-over in ZooKeeper), on MariaDB's own machinery:
 *
 * <ol>
 *   <li><b>copy</b> ({@link SnapshotCopy}): the target's databases made afresh and filled from one
 *       consistent snapshot of the source, whose GTID position starts a replication channel
 *       ({@link Replication}) filtered to the moving databases;
 *   <li><b>catch-up</b>: the channel applies what was written since, until the target is current;
 *   <li><b>verify</b> ({@link TableChecksums}): both hosts read at one position and every table
 *       compared chunk by chunk; any difference stops the move here, naming table and key range;
 *   <li><b>cut-over</b>: the shards turn read-only in the map; every server acknowledges that
 *       version, which it does only once no write begun under an older one is in flight
 *       ({@code MapWrites}) — the fence: nothing can commit on the source after it; the target
 *       catches up to the source's last position; the channel is removed; the map routes the
 *       shards to the target, read-write. Writes to the moving shards meanwhile get 503 with
 *       {@code Retry-After} (never a lost acknowledgement), reads go on, other shards are
 *       untouched. The outbox entries came with the copy, so the target's drainer takes them up.
 *       With the change log written from the binary log, the source's tailer is first waited for
 *       ({@link Repairs#caughtUp}) between the fence and the last catch-up: the changes of the
 *       shards' last writes, and the outbox entries of the inverses it could not write, are
 *       written on the source after those writes, so they must be there before the catch-up
 *       carries them across;
 *   <li><b>cleanup</b> ({@link RetiredShards}): the source's databases renamed aside, kept for
 *       the grace period, dropped by a command.
 * </ol>
 *
 * <p>The move's state lives in ZooKeeper ({@link MoveStore}), saved before each phase, and the
 * server running it holds an ephemeral lease: if that server dies, a rerun of the same move on any
 * server resumes it — the copy from the start, the other phases from what they find. A move can be
 * cancelled at any phase before the map flips; the map and the source are then as they were, and
 * the target's copy is dropped. One move at a time per fleet.
 *
 * <p>Blocking (JDBC, ZooKeeper): from admin threads only.
 */
public final class ShardMover implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ShardMover.class);
  /** How long the cut-over waits for every server to acknowledge the read-only map before it backs off. */
  static final Duration FENCE_TIMEOUT = Duration.ofSeconds(10);
  /** How long the last catch-up of a cut-over may take before the shards go back to read-write. */
  static final Duration FINAL_CATCH_UP = Duration.ofSeconds(10);
  /**
   * How long the cut-over waits for the source's change-log tailer, beyond the tailer barrier's
   * own bound ({@link Repairs#caughtUp}), before it backs off.
   */
  static final Duration SOURCE_LOGGED = Duration.ofSeconds(15);
  /** How long the catch-up phase waits for the target to become current. */
  static final Duration CATCH_UP = Duration.ofMinutes(30);
  /** How long a cancel waits for the runner to undo the move before it answers (the runner goes on regardless). */
  static final Duration CANCEL_WAIT = Duration.ofSeconds(5);
  private static final long PROGRESS_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  private final MoveStore store;
  private final MapChanges maps;
  private final ShardProvisioner hosts;
  private final Replication replication;
  private final SnapshotCopy copy;
  private final TableChecksums checksums;
  private final RetiredShards retired;
  private final CuratorFramework curator;
  private final String servedPath;
  private final String serverId;
  private final Clock clock;
  /** The backend's wait for a host's tailer, asked at the cut-over when {@link #tailed}. */
  private final Repairs changes;
  /** Whether the change log is written from the binary log ({@code changes.source: binlog}). */
  private final boolean tailed;
  private volatile boolean closed;

  public ShardMover(CuratorFramework curator, String movePath, String mapServedPath, String serverId, MapChanges maps,
      ShardProvisioner hosts, String user, String password, Clock clock, Repairs changes, boolean tailed) {
    this.store = new MoveStore(curator, movePath);
    this.maps = maps;
    this.hosts = hosts;
    this.replication = new Replication(hosts, user, password, Replication.MOVE);
    this.copy = new SnapshotCopy(hosts);
    this.checksums = new TableChecksums(hosts, replication);
    this.retired = new RetiredShards(hosts, clock);
    this.curator = curator;
    this.servedPath = mapServedPath;
    this.serverId = serverId;
    this.clock = clock;
    this.changes = changes;
    this.tailed = tailed;
  }

  /**
   * Starts a move of {@code shards} to {@code to}, or resumes the recorded one if it is that move.
   *
   * @param stopBefore a phase ({@code catch-up}, {@code verify}, {@code cut-over}) to stop before,
   *     the move kept as it is with its replication running, to be resumed by a rerun (Vitess'
   *     MoveTables lets an operator verify and switch when it suits them); null runs to the end
   */
  public MoveReport move(ShardSpan shards, String to, String stopBefore, Consumer<MoveProgress> progress)
      throws Exception {
    MovePhase until = stopBefore == null ? null : MovePhase.fromJsonName(stopBefore);
    MoveState state = startOrResume(shards, to);
    store.takeLease(serverId);
    try {
      return new Run(state, progress).toTheEnd(until);
    } finally {
      if (!closed) {
        store.releaseLease(serverId);
      }
    }
  }

  private MoveState startOrResume(ShardSpan shards, String to) throws Exception {
    Optional<MoveState> recorded = store.read();
    if (recorded.isPresent()) {
      MoveState state = recorded.get();
      if (!state.is(shards, to)) {
        throw GraphException.of(GraphException.Code.VERSION_CONFLICT, "a move of shards " + state.shards() + " to "
            + state.to() + " is under way (" + state.phase().jsonName() + "); rerun it to resume it, or cancel it first");
      }
      return state;
    }
    ShardMap map = maps.stored();
    if (!map.hosts().containsKey(to)) {
      throw GraphException.invalid("host '" + to + "' is not in the shard map; add it first");
    }
    String from = ShardMapChange.MoveShards.sourceOf(map, shards);
    if (from.equals(to)) {
      throw GraphException.invalid("shards " + shards + " are already on " + to);
    }
    if (!map.hosts().get(to).replicas().isEmpty()) {
      // The copy skips the target's binary log and the move's channel applies without logging, so the
      // target's replicas would never hold the moved shards: a failover would lose them.
      throw GraphException.invalid("host '" + to + "' has replicas " + map.hosts().get(to).replicas() + ", which a move's"
          + " copy does not reach; move onto a host without replicas, then add them (quiver hosts add-replica seeds"
          + " them from a snapshot)");
    }
    if (tailed) {
      refuseLoggingTarget(map.hosts().get(to));
    }
    for (int shard = shards.from(); shard <= shards.to(); shard++) {
      if (map.stateOf(shard) != ShardState.READ_WRITE) {
        throw GraphException.invalid("shard " + shard + " is " + map.stateOf(shard).jsonName()
            + "; a move starts from read-write shards");
      }
    }
    MoveState state = new MoveState(UUID.randomUUID().toString().substring(0, 8), shards, from, to, MovePhase.COPY,
        clock.millis(), false);
    store.create(state);
    log.info("shard move {}: shards {} from {} to {}", state.id(), shards, from, to);
    return state;
  }

  /**
   * With the change log written from the binary log, a target that logs what its channels apply
   * ({@code log_slave_updates}) is refused: its tailer would read the moving shards' copy as
   * writes of its own and log every change the source's tailer already logged, once the shards
   * are its. Without it, the channel's rows stay out of the target's binary log, and the tailer
   * logs only what is written on the target after the cut-over.
   */
  private void refuseLoggingTarget(Host target) throws SQLException {
    try (Connection connection = hosts.connect(target)) {
      if ("1".equals(Replication.single(connection, "SELECT @@GLOBAL.log_slave_updates"))) {
        throw GraphException.invalid("host '" + target.name() + "' logs what it replicates (log_slave_updates=ON):"
            + " with the change log written from the binary log (changes.source: binlog), its tailer would log the"
            + " moving shards' changes a second time; move onto a host without it");
      }
    }
  }

  /** The move recorded now, with its runner. */
  public Optional<ShardMoveStatus> status() throws Exception {
    Optional<MoveState> state = store.read();
    if (state.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(status(state.get(), store.runner().orElse(null)));
  }

  /**
   * Cancels the recorded move, before its map flips: the runner, if one is running it, stops at
   * its next step and undoes it (this waits up to {@link #CANCEL_WAIT} for that; the answer's
   * runner is null once it has); otherwise it is undone here. Answers the move, cancelled.
   */
  public ShardMoveStatus cancel() throws Exception {
    MoveState state = store.read().orElseThrow(() -> GraphException.notFound("no shard move is under way"));
    if (state.phase() == MovePhase.CLEANUP || flipped(maps.stored(), state)) {
      throw GraphException.invalid("the move of shards " + state.shards() + " is past its cut-over: they are served by "
          + state.to() + " now; move them back instead");
    }
    Optional<String> runner = store.runner();
    if (runner.isEmpty()) {
      undo(state);
      return status(state.cancelling(), null);
    }
    // The runner undoes the move itself at its next step (a batch, a table, a phase): wait a little for it.
    store.requestCancel(state);
    long deadline = System.nanoTime() + CANCEL_WAIT.toNanos();
    while (store.read().isPresent() && System.nanoTime() < deadline) {
      Replication.sleep(Duration.ofMillis(50));
    }
    return status(store.read().orElse(state).cancelling(), store.runner().orElse(null));
  }

  /** Drops every retired shard copy on the fleet's hosts older than {@code grace}; answers what it dropped. */
  public List<String> dropRetired(Duration grace) throws Exception {
    return retired.dropOlderThan(maps.stored().hosts().values(), grace);
  }

  /** Stops a move this server runs at its next step, without waiting for it; its lease goes with the session. */
  @Override
  public void close() {
    closed = true;
  }

  /** Back to where the move began: no channel, no copy on the target, the shards read-write on the source. */
  private void undo(MoveState state) throws Exception {
    ShardMap map = maps.stored();
    Host target = map.hosts().get(state.to());
    replication.remove(target);
    dropDatabases(target, databases(state.shards()));
    if (!allIn(map, state.shards(), ShardState::writable)) {
      maps.change(new ShardMapChange.SetState(state.shards(), ShardState.READ_WRITE));
    }
    store.delete();
    log.info("shard move {} cancelled: shards {} stay on {}", state.id(), state.shards(), state.from());
  }

  private static ShardMoveStatus status(MoveState state, String runner) {
    return new ShardMoveStatus(state.id(), state.shards().toString(), state.from(), state.to(), state.phase().jsonName(),
        state.startedAtMillis(), runner, state.cancelled());
  }

  /** One run of a move, from the phase it was found in to its report. */
  private final class Run {
    private MoveState state;
    private final Consumer<MoveProgress> progress;
    private final long started = System.nanoTime();
    private final List<String> databases;
    private long rowsCopied;
    private long chunksCompared;
    private long refusedMillis;
    private long lastCancelCheck;
    private volatile boolean leaseLost;
    private long lastProgress;
    private List<String> lastRetired = List.of();

    Run(MoveState state, Consumer<MoveProgress> progress) {
      this.state = state;
      this.progress = progress;
      this.databases = databases(state.shards());
    }

    MoveReport toTheEnd(MovePhase until) throws Exception {
      while (true) {
        if (state.phase() == until) {
          tell(state.phase().jsonName(), 0, 0, "stopped before " + until.jsonName() + " as asked; rerun the move to go on");
          return report(List.of(), state.phase().jsonName());
        }
        ShardMap map = maps.stored();
        Host source = map.hosts().get(state.from());
        Host target = map.hosts().get(state.to());
        if (source == null || target == null) {
          throw GraphException.invalid("host " + (source == null ? state.from() : state.to())
              + " has left the shard map; cancel the move");
        }
        requireLease();
        undoIfCancelled(map);
        try {
          step(map, source, target);
        } catch (Exception failed) {
          if (!closed && !leaseLost) {
            undoIfCancelled(maps.stored());
          }
          throw failed;
        }
        if (state.phase() == MovePhase.CLEANUP) {
          return report(lastRetired, "done");
        }
        state = state.at(MovePhase.values()[state.phase().ordinal() + 1]);
        store.save(state, serverId);
      }
    }

    /** An operator's cancellation, seen before the map flipped: the move undone, and the run ended saying so. */
    private void undoIfCancelled(ShardMap map) throws Exception {
      if (state.phase() != MovePhase.CLEANUP && !flipped(map, state) && cancelRequested()) {
        undo(state);
        throw GraphException.of(GraphException.Code.VERSION_CONFLICT, "the move of shards " + state.shards()
            + " was cancelled; the map and the source are as they were");
      }
    }

    private void step(ShardMap map, Host source, Host target) throws Exception {
      switch (state.phase()) {
        case COPY -> copy(map, source, target);
        case CATCH_UP -> {
          tell("catch-up", 0, 0, "replicating from " + source.name() + " until " + target.name() + " is current");
          Duration took = replication.catchUp(source, target, CATCH_UP);
          tell("catch-up", 1, 1, target.name() + " caught up in " + took.toMillis() + " ms");
        }
        case VERIFY -> verify(source, target);
        case CUT_OVER -> cutOver(map, source, target);
        case CLEANUP -> {
          List<String> aside = retired.retire(source, databases);
          store.delete();
          tell("cleanup", 1, 1, "the source's copy is kept as " + String.join(", ", aside)
              + "; drop it with 'quiver shards drop-retired' after the grace period");
          log.info("shard move {} done: shards {} on {}, writes refused for {} ms", state.id(), state.shards(),
              state.to(), refusedMillis);
          lastRetired = aside;
        }
        default -> throw new IllegalStateException(state.phase().name());
      }
    }

    private MoveReport report(List<String> aside, String reached) {
      return new MoveReport(state.id(), state.shards().toString(), state.from(), state.to(), reached, rowsCopied,
          chunksCompared, refusedMillis, aside, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    private void copy(ShardMap map, Host source, Host target) throws Exception {
      tell("copy", 0, 0, "making the target's databases afresh on " + target.name());
      replication.remove(target);
      dropDatabases(target, databases);
      hosts.provision(new ShardMapChange.MoveShards(state.shards(), state.to()).applyTo(map), maps.schema());
      Told told = new Told("copy", "rows copied", rows -> "copying " + rows + " rows from a snapshot of "
          + source.name(), copied -> rowsCopied = copied);
      String position = copy.copy(source, target, databases, told, stopped());
      replication.start(source, target, databases, position);
      tell("copy", told.total, told.total, rowsCopied + " rows copied at " + (position.isEmpty() ? "the log's start"
          : "GTID " + position) + "; replicating from there");
    }

    private void verify(Host source, Host target) throws Exception {
      Told told = new Told("verify", "chunks compared", chunks -> "comparing " + chunks + " chunks on both hosts",
          compared -> chunksCompared = compared);
      TableChecksums.Result result = checksums.compare(source, target, databases, told, stopped());
      if (!result.differences().isEmpty()) {
        List<String> found = result.differences().stream().map(Object::toString).toList();
        tell("verify", chunksCompared, told.total, "differences: " + String.join("; ", found));
        throw GraphException.of(GraphException.Code.VERSION_CONFLICT, "the copy on " + target.name() + " differs from "
            + source.name() + " in " + found.size() + " chunk(s), first " + found.get(0) + "; the move stopped before"
            + " its cut-over (cancel it, or rerun it to verify again)", Map.of("differences", found));
      }
      tell("verify", chunksCompared, told.total, chunksCompared + " chunks equal on both hosts");
    }

    /**
     * A step's progress as the move tells it: its start with the total, then "N of T counted" at
     * most every so often ({@link #throttled}), each count also kept by {@code keep} for the report.
     */
    private final class Told implements StepProgress {
      private final String phase;
      private final String counted;
      private final java.util.function.LongFunction<String> starting;
      private final java.util.function.LongConsumer keep;
      private long total;

      Told(String phase, String counted, java.util.function.LongFunction<String> starting,
          java.util.function.LongConsumer keep) {
        this.phase = phase;
        this.counted = counted;
        this.starting = starting;
        this.keep = keep;
      }

      @Override
      public void total(long total) {
        this.total = total;
        tell(phase, 0, total, starting.apply(total));
      }

      @Override
      public void done(long done) {
        keep.accept(done);
        throttled(phase, done, total, done + " of " + total + " " + counted);
      }
    }

    /**
     * A catch-up while still writable, then the switch ({@link #refuseWritesAndFlip}), then every
     * server's acknowledgement of the flipped map, so none reads the source once it is renamed.
     * Resumable at each step: a map already flipped skips to the wait, a channel already removed
     * means the catch-up it followed had finished.
     */
    private void cutOver(ShardMap map, Host source, Host target) throws Exception {
      if (!flipped(map, state)) {
        try (Replication.Link link = replication.link(source, target)) {
          // Caught up while still writable, so the read-only window holds only what the fence lets finish.
          if (link.exists()) {
            link.catchUp(CATCH_UP);
          }
          map = refuseWritesAndFlip(map, link, source, target);
        }
      }
      try {
        ServedVersions.awaitAll(curator, servedPath, map.version(), FENCE_TIMEOUT);
      } catch (TimeoutException late) {
        // The source is renamed aside next: a server still reading it then gets a 503 and retries.
        log.warn("shard move {}: {}", state.id(), late.getMessage());
      }
      tell("cut-over", 3, 3, "every server routes shards " + state.shards() + " to " + target.name());
    }

    /**
     * Read-only, fence, last catch-up, channel removed, map flipped; answers the flipped map. When
     * the fence or the catch-up does not complete in time, the shards go back to read-write and
     * the move back to catching up.
     */
    private ShardMap refuseWritesAndFlip(ShardMap map, Replication.Link link, Host source, Host target)
        throws Exception {
      long began = System.nanoTime();
      ShardMap readOnly = map;
      if (!allIn(map, state.shards(), ShardState.READ_ONLY::equals)) {
        readOnly = maps.change(new ShardMapChange.SetState(state.shards(), ShardState.READ_ONLY));
      }
      long published = System.nanoTime();
      tell("cut-over", 0, 3, "shards " + state.shards() + " read-only at map version " + readOnly.version()
          + "; waiting for every server");
      long fenced;
      long logged;
      try {
        ServedVersions.awaitAll(curator, servedPath, readOnly.version(), FENCE_TIMEOUT);
        fenced = System.nanoTime();
        if (tailed) {
          sourceCaughtUp(source);
          targetTailedFromNow(map, target);
        }
        logged = System.nanoTime();
        if (link.exists()) {
          link.catchUp(FINAL_CATCH_UP);
          link.remove();
        }
      } catch (TimeoutException | GraphException | SQLException late) {
        maps.change(new ShardMapChange.SetState(state.shards(), ShardState.READ_WRITE));
        state = state.at(MovePhase.CATCH_UP);
        store.save(state, serverId);
        throw GraphException.unavailable("the cut-over backed off, the shards are read-write again: "
            + late.getMessage() + "; rerun the move to try again");
      }
      long caughtUp = System.nanoTime();
      tell("cut-over", 1, 3, target.name() + " holds every write the source took");
      ShardMap moved = maps.change(new ShardMapChange.MoveShards(state.shards(), state.to()));
      long flipped = System.nanoTime();
      refusedMillis = TimeUnit.NANOSECONDS.toMillis(flipped - began);
      tell("cut-over", 2, 3, "shards " + state.shards() + " served by " + target.name() + " at map version "
          + moved.version() + "; writes refused for " + refusedMillis + " ms (read-only map " + millis(began, published)
          + " ms, every server's fence " + millis(published, fenced) + " ms, "
          + (tailed ? "the source's change log " + millis(fenced, logged) + " ms, " : "")
          + "last catch-up " + millis(logged, caughtUp) + " ms, flipped map " + millis(caughtUp, flipped) + " ms)");
      return moved;
    }

    /**
     * Waits until the source's tailer has logged everything the source committed: after the
     * fence, that includes the moving shards' last writes.
     */
    private void sourceCaughtUp(Host source) throws InterruptedException {
      TailerWait.caughtUp(changes, source.name(), SOURCE_LOGGED);
    }

    /**
     * A target serving no shard yet has its tail position moved to now ({@link
     * ShardLayout#tailPositionNow}), so its tailer, which starts once the shards are its, logs
     * from there.
     */
    private void targetTailedFromNow(ShardMap map, Host target) throws SQLException {
      if (map.shardsOn(target.name()).isEmpty()) {
        try (Connection connection = hosts.connect(target)) {
          ShardProvisioner.run(connection, List.of(ShardLayout.tailPositionNow(target.name())));
        }
      }
    }

    /**
     * Asked between batches (ZooKeeper read at most once a second): true once the server closes,
     * an operator cancels, or this server no longer holds the runner's lease — its session ended
     * while it was cut off, say, and another server may have taken the move over. A runner that
     * cannot tell stops too: a rerun resumes.
     */
    private BooleanSupplier stopped() {
      return () -> {
        if (closed || leaseLost) {
          return true;
        }
        long at = System.nanoTime();
        if (at - lastCancelCheck < TimeUnit.SECONDS.toNanos(1)) {
          return false;
        }
        lastCancelCheck = at;
        try {
          if (!store.runner().map(serverId::equals).orElse(false)) {
            leaseLost = true;
            return true;
          }
          return store.read().map(MoveState::cancelled).orElse(true);
        } catch (Exception cutOff) {
          leaseLost = true;
          return true;
        }
      };
    }

    /** Before each phase: the lease is still this server's, or the run ends and leaves the move to its new runner. */
    private void requireLease() throws Exception {
      if (leaseLost || !store.runner().map(serverId::equals).orElse(false)) {
        leaseLost = true;
        throw MoveStore.leaseLost(state.shards());
      }
    }

    private boolean cancelRequested() {
      try {
        return store.read().map(MoveState::cancelled).orElse(true);
      } catch (Exception unreadable) {
        return false;
      }
    }

    private void throttled(String phase, long done, long total, String message) {
      long at = System.nanoTime();
      if (done == total || at - lastProgress >= PROGRESS_EVERY_NANOS) {
        lastProgress = at;
        tell(phase, done, total, message);
      }
    }

    private void tell(String phase, long done, long total, String message) {
      progress.accept(new MoveProgress(phase, done, total, message));
    }
  }

  private static long millis(long from, long to) {
    return TimeUnit.NANOSECONDS.toMillis(to - from);
  }

  private static boolean flipped(ShardMap map, MoveState state) {
    return map.rangeOf(state.shards().from()).map(range -> range.host().equals(state.to())).orElse(false)
        && map.rangeOf(state.shards().to()).map(range -> range.host().equals(state.to())).orElse(false);
  }

  /** Whether every shard of {@code shards} is in a state {@code wanted} accepts. */
  private static boolean allIn(ShardMap map, ShardSpan shards, java.util.function.Predicate<ShardState> wanted) {
    for (int shard = shards.from(); shard <= shards.to(); shard++) {
      if (!wanted.test(map.stateOf(shard))) {
        return false;
      }
    }
    return true;
  }

  private static List<String> databases(ShardSpan shards) {
    List<String> names = new ArrayList<>();
    for (int shard = shards.from(); shard <= shards.to(); shard++) {
      names.add(ShardLayout.database(shard));
    }
    return names;
  }

  /** Drops a target's copies of the moving databases — never a database the map routes there. */
  private void dropDatabases(Host target, List<String> names) throws SQLException {
    try (Connection connection = hosts.connect(target); Statement statement = connection.createStatement()) {
      statement.execute("SET SESSION sql_log_bin = 0");
      for (String name : names) {
        statement.execute("DROP DATABASE IF EXISTS `" + name + "`");
      }
    }
  }
}
