package io.quiver.store.internal;

import io.quiver.core.GraphException;
import io.quiver.store.EdgeResult;
import io.quiver.store.NodeId;
import io.quiver.store.ReadToken;
import io.quiver.store.ReadTokenSettings;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Settles a {@link ReadToken} before a read: each outbox entry it names is applied now by
 * {@link InverseNow}, or found applied (gone); each written copy it names has its mirror brought up
 * to the copy as it is now (a write that left no entry, the change log tailed). It retries every
 * {@link #RETRY_MS} while a host cannot take it, until {@link ReadTokenSettings#bound()}; then the
 * read is UNAVAILABLE rather than older than the token. Applying twice, here and by the drainer or
 * the tailer, writes one copy: the inverse writer compares stamps.
 */
final class TokenSettler {
  /** How long a settle waits between tries while an entry's host cannot take it. */
  static final long RETRY_MS = 20;

  private final Vertx vertx;
  private final InverseNow inverses;
  private final ReadTokenSettings settings;
  private final Clock clock;

  TokenSettler(Vertx vertx, InverseNow inverses, ReadTokenSettings settings, Clock clock) {
    this.vertx = vertx;
    this.inverses = inverses;
    this.settings = settings;
    this.clock = clock;
  }

  Future<Void> settle(ReadToken token) {
    long deadline = clock.millis() + settings.bound().toMillis();
    List<Future<Void>> entries = new ArrayList<>(token.entries().size());
    for (ReadToken.Entry entry : token.entries()) {
      entries.add(settle(entry, deadline));
    }
    return Future.all(entries).mapEmpty();
  }

  private Future<Void> settle(ReadToken.Entry entry, long deadline) {
    return applied(entry).compose(inverse -> {
      if (inverse != EdgeResult.Inverse.PENDING) {
        return Future.succeededFuture();
      }
      if (clock.millis() >= deadline) {
        return Future.failedFuture(GraphException.unavailable("the read carries a token whose write's inverse copy ("
            + named(entry) + ") could not be applied within " + settings.bound().toMillis() + " ms — its host is"
            + " down or read-only, or the entry parked — so it cannot observe that write yet; retry later"));
      }
      return vertx.timer(RETRY_MS).compose(fired -> settle(entry, deadline));
    });
  }

  private Future<EdgeResult.Inverse> applied(ReadToken.Entry entry) {
    if (entry instanceof ReadToken.Outboxed outboxed) {
      return inverses.applyEntry(outboxed.shard(), outboxed.outboxId());
    }
    ReadToken.Written written = (ReadToken.Written) entry;
    return inverses.converge(written.edgeType(), new NodeId(written.from()), new NodeId(written.to()));
  }

  private static String named(ReadToken.Entry entry) {
    if (entry instanceof ReadToken.Outboxed outboxed) {
      return "outbox entry " + outboxed.outboxId() + " on shard " + outboxed.shard();
    }
    ReadToken.Written written = (ReadToken.Written) entry;
    return "the mirror of edge type " + written.edgeType() + "'s copy from " + new NodeId(written.from()) + " to "
        + new NodeId(written.to());
  }
}
