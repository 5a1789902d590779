package io.quiver.api.http;

import io.quiver.core.GraphException;
import io.quiver.store.GraphStore;
import io.quiver.store.ReadToken;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
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

  /** Mounted before the graph routes: reads the header, settles it for a read, answers the token. */
  void mount(Router router) {
    router.route("/v1/*").handler(this::handle);
  }

  private void handle(RoutingContext ctx) {
    String header = ctx.request().getHeader(HEADER);
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
      ctx.next();
      return;
    }
    store.settle(carried).onSuccess(settled -> ctx.next()).onFailure(ctx::fail);
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
