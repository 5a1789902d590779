package io.quiver.core;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The pools blocking work runs on, apart from every event loop: admin jobs that await the reactive
 * client batch by batch, a remote admin call waiting for its answer. Daemon threads, so a pool
 * left open never keeps a process (a command line, a test JVM) from ending.
 */
public final class DaemonThreads {
  private DaemonThreads() {}

  /** A pool that grows with the work given it and lets idle threads go; each thread named {@code name}. */
  public static ExecutorService cached(String name) {
    return Executors.newCachedThreadPool(work -> {
      Thread thread = new Thread(work, name);
      thread.setDaemon(true);
      return thread;
    });
  }
}
