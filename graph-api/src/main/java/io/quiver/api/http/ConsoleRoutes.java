package io.quiver.api.http;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.StaticHandler;

/**
 * {@code /console}: the admin console, static files from the jar (HTML, CSS and plain JavaScript,
 * no build step) and Chart.js from its WebJar. The files hold no data and need no token; every
 * call the console makes goes to the admin API with the token the operator signs in with, kept in
 * the browser tab's sessionStorage only. A strict Content-Security-Policy allows nothing but this
 * server's own files: no inline script, no third-party origin, no framing.
 */
public final class ConsoleRoutes {
  /** The Chart.js WebJar's version, as the build names it (graph-api's pom). */
  static final String CHART_JS = "META-INF/resources/webjars/chart.js/4.5.1/dist";
  private static final String POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
      + " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

  public void mount(Router router) {
    // The router matches "/console" for "/console/" too: only the bare path is sent on.
    RequestObserver.operation(router.get("/console"), "console").handler(ctx -> {
      if (ctx.request().path().equals("/console")) {
        ctx.redirect("/console/");
      } else {
        ctx.next();
      }
    });
    RequestObserver.operation(router.get("/console/vendor/*"), "console")
        .handler(ConsoleRoutes::secure)
        .handler(StaticHandler.create(CHART_JS).setCachingEnabled(true).setMaxAgeSeconds(3600));
    RequestObserver.operation(router.get("/console/*"), "console")
        .handler(ConsoleRoutes::secure)
        .handler(StaticHandler.create("io/quiver/api/console").setCachingEnabled(false)
            .setIndexPage("index.html"));
  }

  private static void secure(RoutingContext ctx) {
    ctx.response().headers()
        .set("Content-Security-Policy", POLICY)
        .set("X-Content-Type-Options", "nosniff")
        .set("Referrer-Policy", "no-referrer")
        .set(HttpHeaders.CACHE_CONTROL, "no-cache");
    ctx.next();
  }
}
