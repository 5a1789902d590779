package io.quiver.api.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import io.quiver.store.BulkImport;
import io.quiver.store.BulkLine;
import io.quiver.store.BulkReport;
import io.quiver.store.GraphBackend;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.parsetools.RecordParser;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * {@code POST /v1/bulk?name=NAME}: a bulk import streamed as NDJSON, one node or edge per line
 * ({@link BulkLines}), written in batches of {@link #BATCH} lines ({@link BulkImport}). The body
 * is read as it arrives and paused while a batch is written, so an import of any size holds one
 * batch in memory and never meets the body limit or the request timeout of other calls.
 *
 * <p>The answer streams too ({@code application/x-ndjson}): after each batch, {@code {"nodes":
 * {"<ref>": "<id>", ...}}} for its node lines (created, or found from an earlier run) and
 * {@code {"progress": {...}}} with the figures so far; then {@code {"report": {...}}} with every refused line (the first
 * {@link #REFUSALS_SHOWN}, and how many in all). A refused line never stops the others. A failure
 * of the fleet ends the answer with {@code {"error": {...}, "report": {...}}} saying what was
 * written before it; rerunning the import under the same name finishes the rest and creates
 * nothing twice.
 */
public final class BulkRoute {
  /** Lines per batch. */
  static final int BATCH = 5_000;
  /** Refused lines listed in the report; the count says how many there were. */
  static final int REFUSALS_SHOWN = 1_000;

  private final GraphBackend backend;
  private final int maxLineBytes;

  /**
   * @param maxLineBytes the most bytes one line may hold: a request body's limit
   *     ({@code http.bodyLimitBytes}), so that a node too large for createNode is too large to import
   */
  public BulkRoute(GraphBackend backend, long maxLineBytes) {
    this.backend = backend;
    this.maxLineBytes = (int) Math.min(Integer.MAX_VALUE, maxLineBytes);
  }

  /** Mounted before the body and timeout handlers: the body streams, and an import takes as long as it takes. */
  public void mount(Router router) {
    RequestObserver.operation(router.post("/v1/bulk"), "bulkImport")
        .handler(QueryParams.allowing(Set.of("name")))
        .handler(this::start);
  }

  /**
   * Claims the import's name (one run of a name at a time), then streams the body into it; the
   * body waits, paused, meanwhile. The run lets go of its name just before its answer ends (so a
   * rerun sent on the answer finds it free), or when the connection closes midway. A refusal
   * leaves the body unread and closes the connection after it.
   */
  private void start(RoutingContext ctx) {
    String name = QueryParams.of(ctx).get("name");
    if (name == null) {
      ctx.fail(GraphException.invalid("name the import: POST /v1/bulk?name=NAME (a rerun under the same name"
          + " creates nothing twice)"));
      return;
    }
    ctx.request().pause();
    backend.bulkImport(name).onComplete(started -> {
      if (started.failed()) {
        ctx.response().putHeader("Connection", "close");
        ctx.fail(started.cause());
        return;
      }
      BulkImport run = started.result();
      // Should the connection close midway (a client that cut its body), the name is let go all the same.
      ctx.addEndHandler(ended -> run.close());
      ctx.response().closeHandler(closed -> run.close());
      new Stream(ctx, run, maxLineBytes).start();
    });
  }

  /**
   * One import's request and answer. The next batch is read and parsed while the one before is
   * written (at most one batch in flight, one more being gathered), so parsing costs no time of
   * its own. Everything here runs on the request's context: a write's completion may come on
   * another event loop, and is handed back.
   */
  private static final class Stream {
    private final RoutingContext ctx;
    private final BulkImport run;
    private final Context context;
    private final RecordParser parser;
    private List<BulkLine> batch = new ArrayList<>();
    private List<BulkReport.Refused> unreadable = new ArrayList<>();
    private BulkReport total = BulkReport.EMPTY;
    private long lineNumber;
    private boolean writing;
    private boolean ended;
    private boolean failed;

    private final int maxLineBytes;

    Stream(RoutingContext ctx, BulkImport run, int maxLineBytes) {
      this.ctx = ctx;
      this.run = run;
      this.maxLineBytes = maxLineBytes;
      this.context = ctx.vertx().getOrCreateContext();
      this.parser = RecordParser.newDelimited("\n", ctx.request());
      parser.maxRecordSize(maxLineBytes);
    }

    void start() {
      ctx.response().setChunked(true).putHeader("Content-Type", "application/x-ndjson");
      parser.handler(this::line);
      parser.endHandler(end -> {
        ended = true;
        // A failed run's answer is its error line, sent by fail.
        if (!writing && !failed) {
          writeGathered();
        }
      });
      parser.exceptionHandler(this::fail);
      parser.resume();
    }

    private void line(Buffer bytes) {
      lineNumber++;
      if (failed || blank(bytes)) {
        return;
      }
      if (bytes.length() > maxLineBytes) {
        // The parser's own limit sees only what is left unparsed: a whole line read at once passes it.
        fail(tooLarge(lineNumber));
        return;
      }
      try {
        batch.add(BulkLines.parse(lineNumber, bytes.getBytes()));
      } catch (GraphException refused) {
        unreadable.add(new BulkReport.Refused(lineNumber, refused.code(), refused.getMessage()));
      }
      if (full()) {
        if (writing) {
          parser.pause();
        } else {
          writeGathered();
        }
      }
    }

    /** Whether a line holds only JSON whitespace, read in place rather than decoded into a string. */
    private static boolean blank(Buffer bytes) {
      for (int i = 0; i < bytes.length(); i++) {
        byte b = bytes.getByte(i);
        if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
          return false;
        }
      }
      return true;
    }

    private boolean full() {
      return batch.size() + unreadable.size() >= BATCH;
    }

    /** Writes the lines gathered so far; once the body has ended and nothing is left, ends the answer. */
    private void writeGathered() {
      List<BulkLine> lines = batch;
      List<BulkReport.Refused> refused = unreadable;
      if (ended && lines.isEmpty() && refused.isEmpty()) {
        // The name is let go before the answer ends, so a rerun sent on the answer finds it free.
        run.close().onComplete(released -> ctx.response().end(ndjson("report", report(total, true))));
        return;
      }
      batch = new ArrayList<>();
      unreadable = new ArrayList<>();
      writing = true;
      Future<BulkReport> written = lines.isEmpty() ? Future.succeededFuture(BulkReport.EMPTY) : run.write(lines);
      written.onComplete(done -> context.runOnContext(back -> {
        writing = false;
        if (failed) {
          return;
        }
        if (done.failed()) {
          fail(done.cause());
          return;
        }
        total = total.plus(done.result()).plus(BulkReport.refusedOnly(refused));
        if (!done.result().nodes().isEmpty()) {
          ObjectNode nodes = ApiJson.object();
          done.result().nodes().forEach((ref, id) -> nodes.put(ref, id.toString()));
          ctx.response().write(ndjson("nodes", nodes));
        }
        if (ended) {
          writeGathered();
          return;
        }
        ctx.response().write(ndjson("progress", report(total, false)));
        if (full()) {
          writeGathered();
        }
        parser.resume();
      }));
    }

    private void fail(Throwable failure) {
      if (failed) {
        return;
      }
      failed = true;
      ObjectNode last = ApiJson.object();
      last.set("error", ApiErrors.errorObject(failure instanceof GraphException ? failure
          : failure instanceof IllegalStateException tooLong && String.valueOf(tooLong.getMessage()).contains("too long")
              ? tooLarge(lineNumber + 1)
              : GraphException.invalid("the body could not be read as NDJSON: " + failure.getMessage())));
      last.set("report", report(total, true));
      // The rest of the body is not read: the connection closes after the answer (and says so,
      // unless progress lines have already sent the answer's head).
      if (!ctx.response().headWritten()) {
        ctx.response().putHeader("Connection", "close");
      }
      run.close().onComplete(released ->
          ctx.response().end(ndjson(last)).onComplete(sent -> ctx.request().connection().close()));
    }

    private GraphException tooLarge(long line) {
      return GraphException.of(GraphException.Code.TOO_LARGE, "line " + line + " is over " + maxLineBytes
          + " bytes, the limit of a request body (http.bodyLimitBytes): a node too large for createNode is too"
          + " large to import");
    }

    private static Buffer ndjson(String member, ObjectNode value) {
      ObjectNode json = ApiJson.object();
      json.set(member, value);
      return ndjson(json);
    }

    private static Buffer ndjson(ObjectNode json) {
      return ApiJson.buffer(json).appendString("\n");
    }
  }

  /** A report as JSON: the figures, and for the final one the refused lines. */
  static ObjectNode report(BulkReport report, boolean withRefusals) {
    ObjectNode json = ApiJson.object()
        .put("lines", report.lines())
        .put("nodesCreated", report.nodesCreated())
        .put("nodesExisting", report.nodesExisting())
        .put("edgesCreated", report.edgesCreated())
        .put("edgesUpdated", report.edgesUpdated())
        .put("edgesUnchanged", report.edgesUnchanged())
        .put("inversesLeft", report.inversesLeft())
        .put("refusedCount", report.refused().size());
    if (withRefusals) {
      ArrayNode refused = json.putArray("refused");
      report.refused().stream().sorted(Comparator.comparingLong(BulkReport.Refused::line))
          .limit(REFUSALS_SHOWN).forEach(refusal -> refused.addObject()
          .put("line", refusal.line())
          .put("code", ApiErrors.answer(refusal.code()).code())
          .put("message", refusal.message()));
    }
    return json;
  }
}
