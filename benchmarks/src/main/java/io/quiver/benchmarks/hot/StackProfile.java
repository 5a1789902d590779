package io.quiver.benchmarks.hot;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where one hot-path case's CPU went, per request, by layer: what {@code ./bench hot --profile}
 * prints beside each case's rate. The profile is async-profiler's, taken in the servers' JVM
 * around each measured round of the case and summed over its rounds, as collapsed stacks (one
 * line per distinct stack: its frames root first, separated by {@code ;}, then the CPU
 * nanoseconds spent in it). A layer is a set of frame names; a stack counts towards every layer
 * one of whose frames it holds, so layers nest as their code does (the request's handler holds
 * Quiver's call, which holds the rendering) and a row is read against the rows above it, not
 * summed with them.
 *
 * <p>Why per request and not a share of the profile: the ratio the issue asks for compares two
 * servers answering at different rates, and what separates them is microseconds of CPU a request
 * in named places (on 2026-12-03, 10 µs a cached getNode over bare Vert.x's, no place above
 * 2.1 µs; benchmarks/README, "Where a cached getNode's CPU goes, layer by layer"). A share
 * of each profile would hide that the two profiles' wholes differ.
 *
 * <p>Not thread-safe; one per case.
 */
final class StackProfile {

  /**
   * A named part of a request's path, {@code depth} rows inside the outermost: a stack belongs to
   * it if one of its frames contains one of {@code frames}; a layer of no frames holds every stack.
   */
  record Layer(String name, int depth, List<String> frames) {
    boolean holds(String[] stack) {
      if (frames.isEmpty()) {
        return true;
      }
      for (String frame : stack) {
        for (String marker : frames) {
          if (frame.contains(marker)) {
            return true;
          }
        }
      }
      return false;
    }
  }

  /**
   * The layers reported, outermost first, each nested in the nearest row above it of lesser depth. The event loops'
   * rows cover Quiver's loops and bare Vert.x's alike (both are Netty's), the handler's row the
   * bare server's one-line handler as much as Quiver's whole route.
   */
  static final List<Layer> LAYERS = List.of(
      new Layer("every thread of the servers' JVM", 0, List.of()),
      new Layer("event loops", 0, List.of("NioIoHandler.run", "EpollIoHandler.run")),
      new Layer("waiting for sockets (epoll)", 1, List.of("NioIoHandler.select", "EpollIoHandler.epollWait")),
      new Layer("reading requests from sockets", 1, List.of("NioSocketChannel.doReadBytes", "EpollSocketChannel.doReadBytes")),
      new Layer("decoding HTTP", 1, List.of("HttpObjectDecoder.decode")),
      new Layer("the request's handler", 1, List.of("Http1xServerRequestHandler.handle")),
      new Layer("Quiver's call (route table, store, answer)", 2, List.of("RouteTable.handle")),
      new Layer("rendering JSON", 3, List.of("ApiJson.render")),
      new Layer("ending the answer (headers, end handlers)", 3, List.of("Http1xServerResponse.end")),
      new Layer("access log and metrics, on the loop", 2, List.of("RequestObserver.observe")),
      new Layer("writing answers to sockets", 1, List.of("NioSocketChannel.doWrite", "EpollSocketChannel.doWrite")),
      new Layer("the access log's writer thread", 0, List.of("AsyncAppenderBase$Worker.run")),
      new Layer("the JIT compiler", 0, List.of("CompileBroker::compiler_thread_loop")),
      new Layer("the collector", 0, List.of("GangWorker::", "ConcurrentGCThread::", "G1ServiceThread::")));

  private final Map<String, Long> nanosByLayer = new LinkedHashMap<>();
  private long requests;

  StackProfile() {
    for (Layer layer : LAYERS) {
      nanosByLayer.put(layer.name(), 0L);
    }
  }

  /** Adds one round: its collapsed stacks (nanoseconds per stack) and the requests it answered. */
  void add(String collapsed, long answered) {
    requests += answered;
    for (String line : collapsed.split("\n")) {
      int space = line.lastIndexOf(' ');
      if (space <= 0) {
        continue;
      }
      long nanos;
      try {
        nanos = Long.parseLong(line.substring(space + 1).trim());
      } catch (NumberFormatException notAStack) {
        continue;
      }
      String[] stack = line.substring(0, space).split(";");
      for (Layer layer : LAYERS) {
        if (layer.holds(stack)) {
          nanosByLayer.merge(layer.name(), nanos, Long::sum);
        }
      }
    }
  }

  /** Microseconds of CPU per request answered, by layer (in {@link #LAYERS}' order); zeros before any request. */
  Map<String, Double> microsPerRequest() {
    Map<String, Double> micros = new LinkedHashMap<>();
    nanosByLayer.forEach((layer, nanos) -> micros.put(layer, requests == 0 ? 0 : nanos / 1e3 / requests));
    return micros;
  }
}
