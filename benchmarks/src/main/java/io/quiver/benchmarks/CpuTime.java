package io.quiver.benchmarks;

import java.lang.management.ManagementFactory;

/** CPU time spent so far, in seconds, as the benchmarks report it beside what they measure. */
public final class CpuTime {
  private CpuTime() {}

  /** This JVM's. */
  public static double thisProcess() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime() / 1e9;
  }

  /** Every MariaDB server process's on this machine, read from the operating system. */
  public static double mariaDbProcesses() {
    return processes("mariadbd");
  }

  /** Every Redis server process's on this machine (the look-aside rival's cache server). */
  public static double redisProcesses() {
    return processes("redis-server");
  }

  /** One process's, read from the operating system; 0 once it has ended. */
  public static double of(ProcessHandle process) {
    return process.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0);
  }

  private static double processes(String executable) {
    return ProcessHandle.allProcesses()
        .filter(process -> {
          String command = process.info().command().orElse("");
          return command.substring(command.lastIndexOf('/') + 1).startsWith(executable);
        })
        .mapToDouble(CpuTime::of)
        .sum();
  }
}
