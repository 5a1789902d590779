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
    return ProcessHandle.allProcesses()
        .filter(process -> process.info().command().orElse("").endsWith("mariadbd"))
        .mapToDouble(process -> process.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(0.0))
        .sum();
  }
}
