package io.quiver.store;

import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * One run of a {@link TargetQuery}: a k-way merge of the lists as streams of target IDs in
 * ascending order (each list's primary-key order on its own shard, {@link GraphStore#getTargets}),
 * read a chunk at a time, so a list is never loaded whole — FlockDB's way of intersecting
 * follower lists of any size. The merge runs synchronously over what the streams have buffered
 * and goes back to the store only when a stream runs dry; all dry streams are refilled at once.
 *
 * <p>Not thread-safe: one merge, one chain of futures.
 */
final class TargetMerge {
  /** Targets read from a list at a time. */
  static final int CHUNK = 500;

  private final GraphStore store;
  private final TargetQuery.Operation operation;
  private final List<Stream> streams = new ArrayList<>();
  private final long wanted;
  private final boolean keep;
  private final List<NodeId> found = new ArrayList<>();
  private long counted;

  private TargetMerge(GraphStore store, TargetQuery query, long wanted, boolean keep) {
    this.store = store;
    this.operation = query.operation();
    this.wanted = wanted;
    this.keep = keep;
    query.lists().forEach(list -> streams.add(new Stream(list, query.after())));
  }

  /**
   * The page the query asks for. The merge runs one target past the page, so that an exactly full
   * last page answers no {@code next}, as a list's last page does.
   */
  static Future<TargetPage> page(GraphStore store, TargetQuery query) {
    TargetMerge merge = new TargetMerge(store, query, query.limit() + 1L, true);
    return merge.run().map(done -> {
      if (merge.found.size() <= query.limit()) {
        return new TargetPage(merge.found, null);
      }
      List<NodeId> page = List.copyOf(merge.found.subList(0, query.limit()));
      return new TargetPage(page, page.get(page.size() - 1));
    });
  }

  /** How many targets the whole answer holds (from the query's {@code after}), reading every list to its end. */
  static Future<Long> count(GraphStore store, TargetQuery query) {
    TargetMerge merge = new TargetMerge(store, query, Long.MAX_VALUE, false);
    return merge.run().map(done -> merge.counted);
  }

  private Future<Void> run() {
    List<Future<Void>> fills = new ArrayList<>();
    for (Stream stream : streams) {
      if (stream.dry()) {
        fills.add(stream.fill());
      }
    }
    if (!fills.isEmpty()) {
      return Future.all(fills).compose(filled -> run());
    }
    while (counted < wanted) {
      if (!step()) {
        return Future.succeededFuture();
      }
      if (streams.stream().anyMatch(Stream::dry)) {
        return run();
      }
    }
    return Future.succeededFuture();
  }

  /** One move of the merge over buffered heads; false when the answer is complete. */
  private boolean step() {
    return switch (operation) {
      case UNION -> union();
      case INTERSECTION -> intersection();
      case DIFFERENCE -> difference();
    };
  }

  private boolean union() {
    NodeId least = null;
    for (Stream stream : streams) {
      NodeId head = stream.head();
      if (head != null && (least == null || head.value() < least.value())) {
        least = head;
      }
    }
    if (least == null) {
      return false;
    }
    for (Stream stream : streams) {
      if (least.equals(stream.head())) {
        stream.advance();
      }
    }
    emit(least);
    return true;
  }

  private boolean intersection() {
    NodeId greatest = null;
    for (Stream stream : streams) {
      NodeId head = stream.head();
      if (head == null) {
        return false;
      }
      if (greatest == null || head.value() > greatest.value()) {
        greatest = head;
      }
    }
    boolean everywhere = true;
    for (Stream stream : streams) {
      if (!greatest.equals(stream.head())) {
        everywhere = false;
        stream.advance();
      }
    }
    if (everywhere) {
      streams.forEach(Stream::advance);
      emit(greatest);
    }
    return true;
  }

  private boolean difference() {
    NodeId candidate = streams.get(0).head();
    if (candidate == null) {
      return false;
    }
    for (Stream other : streams.subList(1, streams.size())) {
      NodeId head = other.head();
      if (head != null && head.value() < candidate.value()) {
        other.advance();
        return true;
      }
    }
    streams.get(0).advance();
    if (streams.subList(1, streams.size()).stream().noneMatch(other -> candidate.equals(other.head()))) {
      emit(candidate);
    }
    return true;
  }

  private void emit(NodeId target) {
    counted++;
    if (keep) {
      found.add(target);
    }
  }

  /** One list as a stream of ascending targets, buffered a chunk at a time. */
  private final class Stream {
    private final TargetQuery.EdgeList list;
    private NodeId readAfter;
    private List<NodeId> buffer = List.of();
    private int at;
    private boolean ended;

    Stream(TargetQuery.EdgeList list, NodeId after) {
      this.list = list;
      this.readAfter = after;
    }

    /** Its buffer is used up and the list may hold more: it must be refilled before its head is known. */
    boolean dry() {
      return at >= buffer.size() && !ended;
    }

    Future<Void> fill() {
      return store.getTargets(list.from(), list.type(), readAfter, CHUNK).map(chunk -> {
        buffer = chunk;
        at = 0;
        ended = chunk.size() < CHUNK;
        if (!chunk.isEmpty()) {
          readAfter = chunk.get(chunk.size() - 1);
        }
        return null;
      });
    }

    /** The next target; null when the list has no more. Only meaningful while not {@link #dry}. */
    NodeId head() {
      return at < buffer.size() ? buffer.get(at) : null;
    }

    void advance() {
      at++;
    }
  }
}
