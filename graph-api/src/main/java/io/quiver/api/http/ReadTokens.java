package io.quiver.api.http;

import io.quiver.core.GraphException;
import io.quiver.store.GraphStore;
import io.quiver.store.ReadToken;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;

/**
 * Read-your-writes over HTTP ({@link ReadToken}): every write's answer carries {@code
 * Quiver-Token}, the token of what it wrote merged with the one its request carried, so a client
 * keeping the last one it was given covers its whole session; a read that carries one is answered
 * only once every write the token covers is visible — its pending inverse copies applied
 * ({@link GraphStore#settle}, 503 if one cannot be within a second) — and from the primaries, not
 * a cache ({@link GraphStore#fresh}); its answer carries the token back. A token that is not one
 * this store gave is 400 before anything is read or written.
 */
final class ReadTokens {
  static final String HEADER = "Quiver-Token";
  private static final String CARRIED = "quiver.token";
  private static final String WRITTEN = "quiver.written";

  private final GraphStore store;

  ReadTokens(GraphStore store) {
    this.store = store;
  }

  /**
   * Handles the token of a graph call, then hands it to {@code calls} (the graph calls' route
   * table) — in the same route, not one of its own: a route more costs every request vertx-web's
   * dispatch once more. A GET that carries no token, the cached reads' hot path, costs one header
   * lookup here.
   */
  Handler<RoutingContext> before(Handler<RoutingContext> calls) {
    return ctx -> {
      String header = ctx.request().getHeader(HEADER);
      if (header == null && ctx.request().method() == HttpMethod.GET) {
        calls.handle(ctx);
      } else {
        handle(ctx, header, calls);
      }
    };
  }

  private void handle(RoutingContext ctx, String header, Handler<RoutingContext> calls) {
    ReadToken carried;
    try {
      carried = header == null ? null : ReadToken.parse(header);
    } catch (GraphException refused) {
      ctx.fail(refused);
      return;
    }
    boolean read = isRead(ctx);
    if (carried != null) {
      ctx.put(CARRIED, carried);
    }
    if (carried != null || !read) {
      ctx.addHeadersEndHandler(ending -> {
        if (ctx.response().getStatusCode() < 300) {
          ReadToken written = ctx.get(WRITTEN);
          ReadToken answered = carried == null ? ReadToken.EMPTY : carried;
          ctx.response().putHeader(HEADER, (written == null ? answered : answered.merge(written)).toString());
        }
      });
    }
    if (carried == null || !read) {
      calls.handle(ctx);
      return;
    }
    store.settle(carried).onSuccess(settled -> calls.handle(ctx)).onFailure(ctx::fail);
  }

  /** GETs, and the POSTs that only read (batch gets, list queries, multi-reads). */
  private static boolean isRead(RoutingContext ctx) {
    String path = ctx.normalizedPath();
    return ctx.request().method() == HttpMethod.GET
        || path.endsWith(":batchGet") || path.equals("/v1/edges/query") || path.equals("/v1/read");
  }

  /** Whether the request carries a token: its reads go to the primaries. */
  static boolean carried(RoutingContext ctx) {
    return ctx.get(CARRIED) != null;
  }

  /** What a write left for a later read to observe, merged into its answer's token. */
  static void wrote(RoutingContext ctx, ReadToken token) {
    ctx.put(WRITTEN, token);
  }
}
