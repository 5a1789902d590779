package io.quiver.api.cli;

import io.quiver.api.http.AdminJson;
import io.quiver.fleet.AdminService;
import io.quiver.fleet.MoveProgress;
import io.quiver.fleet.MoveReport;
import io.quiver.store.shard.ShardSpan;
import java.io.PrintWriter;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * A shard move followed from its progress: one bar per phase that has a measure (rows
 * copied, chunks compared) with rate and time left, on standard error; each phase's closing line
 * (and each cut-over step) printed on standard output. With {@code --json} each step is printed
 * as the API's progress line, as it comes.
 */
final class MoveProgressBar {
  private final PrintWriter out;
  private ProgressBar bar;
  private String phase = "";
  private String printed = "";

  private MoveProgressBar(PrintWriter out) {
    this.out = out;
  }

  /** Starts the move (or resumes it) and follows it; answers its report, or throws why it stopped. */
  static MoveReport follow(AdminService admin, ShardSpan shards, String to, String stopBefore, PrintWriter out,
      boolean json) {
    MoveProgressBar bars = new MoveProgressBar(out);
    try {
      return admin.moveShards(shards, to, stopBefore, step -> {
        if (json) {
          out.println(AdminJson.write(step));
          out.flush();
        } else {
          bars.show(step);
        }
      }).await();
    } finally {
      bars.closeBar();
    }
  }

  private synchronized void show(MoveProgress step) {
    String now = step.phase();
    long done = step.done();
    long total = step.total();
    String message = step.message();
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

  private synchronized void closeBar() {
    if (bar != null) {
      bar.close();
      bar = null;
    }
  }
}
