package io.quiver.api.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * A shard move followed from its NDJSON progress: one bar per phase that has a measure (rows
 * copied, chunks compared) with rate and time left, on standard error; each phase's closing line
 * (and each cut-over step) printed on standard output. With {@code --json} the lines are passed
 * through as they come.
 */
final class MoveProgressBar {
  private final PrintWriter out;
  private ProgressBar bar;
  private String phase = "";
  private String printed = "";

  private MoveProgressBar(PrintWriter out) {
    this.out = out;
  }

  /** Starts the move described by {@code body} and follows it; answers the last line (the summary, or the error). */
  static JsonNode follow(AdminHttp server, JsonNode body, PrintWriter out, boolean json) {
    MoveProgressBar bars = new MoveProgressBar(out);
    try {
      return server.stream("POST", "/v1/admin/shards/move", body, line -> {
        if (json) {
          if (!line.has("summary")) {
            out.println(line);
            out.flush();
          }
        } else {
          bars.show(line);
        }
      });
    } finally {
      bars.closeBar();
    }
  }

  private void show(JsonNode line) {
    if (!line.has("phase")) {
      return;
    }
    String now = line.path("phase").asText();
    long done = line.path("done").asLong();
    long total = line.path("total").asLong();
    String message = line.path("progress").asText();
    if (!now.equals(phase)) {
      closeBar();
      phase = now;
    }
    if (bar == null && total > 0 && done < total) {
      bar = new ProgressBarBuilder().setTaskName(now).setInitialMax(total).setStyle(ProgressBarStyle.ASCII)
          .setUnit(now.equals("copy") ? " rows" : now.equals("verify") ? " chunks" : " steps", 1).showSpeed().build();
    }
    if (bar != null) {
      bar.stepTo(done);
      bar.setExtraMessage(message);
    }
    // A cut-over's steps are each worth a line (how long writes were refused, and why).
    if ((done >= total || now.equals("cut-over")) && !message.equals(printed)) {
      closeBar();
      out.println(now + ": " + message);
      out.flush();
      printed = message;
    }
  }

  private void closeBar() {
    if (bar != null) {
      bar.close();
      bar = null;
    }
  }
}
