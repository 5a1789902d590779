package io.quiver.api.http;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

/**
 * The access log of one event loop, buffered as nginx buffers its own ({@code access_log …
 * buffer=32k flush=…}): each request appends one JSON line to a buffer that only its event loop
 * touches, and the buffer goes to the logger as one message when it holds {@link #BUFFER_CHARS}
 * or at the next flush ({@link #FLUSH_EVERY}, on the event loop's timer). Handing the logger one
 * message per request woke the log writer's thread for every request and cost a cached read
 * nearly half its throughput; a buffer costs it the appending of a line. Each line carries its
 * own time, since a message holds many.
 *
 * <p>Not thread-safe: one instance per event loop.
 */
final class AccessLog {
  static final int BUFFER_CHARS = 32 * 1024;
  static final Duration FLUSH_EVERY = Duration.ofMillis(100);

  private final Consumer<String> sink;
  private final StringBuilder pending = new StringBuilder(BUFFER_CHARS + 1024);

  /** @param sink takes a batch of lines, newline-separated, without a final newline */
  AccessLog(Consumer<String> sink) {
    this.sink = sink;
  }

  /** One request's line. */
  void append(Instant time, String method, String path, String operation, int status, long nanos, long bytesOut,
      String remote) {
    if (!pending.isEmpty()) {
      pending.append('\n');
    }
    pending.append("{\"time\":\"").append(ApiJson.timestamp(time))
        .append("\",\"method\":\"").append(method)
        .append("\",\"path\":\"");
    appendQuoted(path);
    pending.append("\",\"operation\":\"").append(operation)
        .append("\",\"status\":").append(status)
        .append(",\"ms\":");
    appendMillis(nanos);
    pending
        .append(",\"bytesOut\":").append(bytesOut)
        .append(",\"remote\":\"");
    appendQuoted(remote);
    pending.append("\"}");
    if (pending.length() >= BUFFER_CHARS) {
      flush();
    }
  }

  /**
   * A JSON string's contents. Most paths and addresses need no escape (the gate refuses control
   * characters in paths) and are appended as they are; Jackson's encoder, which copies through a
   * buffer of its own, escapes the others.
   */
  private void appendQuoted(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7f) {
        JsonStringEncoder.getInstance().quoteAsString(text, pending);
        return;
      }
    }
    pending.append(text);
  }

  /** Milliseconds with three decimals, without a formatter. */
  private void appendMillis(long nanos) {
    long micros = (nanos + 500) / 1000;
    pending.append(micros / 1000).append('.');
    long fraction = micros % 1000;
    if (fraction < 100) {
      pending.append(fraction < 10 ? "00" : "0");
    }
    pending.append(fraction);
  }

  /** Hands what is buffered to the logger. */
  void flush() {
    if (!pending.isEmpty()) {
      sink.accept(pending.toString());
      pending.setLength(0);
    }
  }
}
