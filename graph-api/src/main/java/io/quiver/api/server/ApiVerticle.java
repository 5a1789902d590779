package io.quiver.api.server;

import io.quiver.api.config.QuiverConfig;
import io.quiver.api.http.AdminRoutes;
import io.quiver.api.http.ApiErrors;
import io.quiver.api.http.BulkRoute;
import io.quiver.api.http.ChangesRoute;
import io.quiver.api.http.CodecRefusals;
import io.quiver.api.http.ConsoleRoutes;
import io.quiver.api.http.GraphRoutes;
import io.quiver.api.http.HealthRoute;
import io.quiver.api.http.OperationsRoutes;
import io.quiver.api.http.RequestDeadlines;
import io.quiver.api.http.RequestGate;
import io.quiver.api.http.RequestObserver;
import io.quiver.api.http.ServerStatus;
import io.quiver.api.http.SlowClients;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Clock;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP server on one event loop; the server deploys one per event loop, all on the same
 * port, so requests spread over every core.
 */
final class ApiVerticle extends VerticleBase {
  private final Services services;
  private final int port;
  private final java.util.concurrent.atomic.AtomicInteger bound;
  private RequestObserver observer;

  /** @param bound told the port this server listens on (the one the system picked, for port 0) */
  ApiVerticle(Services services, int port, java.util.concurrent.atomic.AtomicInteger bound) {
    this.services = services;
    this.port = port;
    this.bound = bound;
  }

  @Override
  public Future<?> stop() {
    if (observer != null) {
      observer.flush();
    }
    return Future.succeededFuture();
  }

  @Override
  public Future<?> start() {
    Router router = Router.router(vertx);
    observer = new RequestObserver(vertx, services.metrics().registry(), Clock.systemUTC());
    router.route().handler(observer);
    // The graph calls first, each behind the timeout and the body's reader; then the calls that
    // stream (before the timeout, which would cut them off); then every other call behind them.
    Handler<RoutingContext> timeout = new RequestDeadlines(vertx, services.config().http().requestTimeout(), 503);
    Handler<RoutingContext> body = BodyHandler.create(false).setBodyLimit(services.config().http().bodyLimitBytes());
    new GraphRoutes(services.store(), services.schemas(), services.rendered()).mount(router, timeout, body);
    new BulkRoute(services.backend(), services.config().http().bodyLimitBytes()).mount(router);
    ServerStatus status = new ServerStatus(services.admin(), services.backend().telemetry(),
        services.schemas(), services.metrics()::cacheFigures, services::zooKeeperConnected);
    AdminRoutes admin = new AdminRoutes(services.admin(), status, services.config().adminToken());
    admin.mountStreams(router);
    ChangesRoute changes = new ChangesRoute(services.backend().changeLog(), services.backend().changeGroups(), vertx);
    changes.mount(router);
    router.route().handler(timeout);
    router.route().handler(body);
    admin.mount(router);
    changes.mountGroups(router);
    new HealthRoute(services.backend().telemetry(), services::zooKeeperConnected).mount(router);
    new OperationsRoutes(services.metrics()).mount(router);
    new ConsoleRoutes().mount(router);
    router.route().failureHandler(ApiErrors::handle);
    router.errorHandler(404, ApiErrors::handle);
    router.errorHandler(405, ApiErrors::handle);
    QuiverConfig.Http http = services.config().http();
    SlowClients slowClients = services.slowClients();
    RequestGate gate = new RequestGate(router);
    HttpServerOptions options = new HttpServerOptions()
        .setPort(port)
        .setHost("0.0.0.0")
        .setMaxInitialLineLength(http.maxRequestLineBytes())
        // HTTP/1.1 only: with h2c prior knowledge on, Vert.x waits for a connection's first bytes
        // before it builds the HTTP/1 pipeline and hands the connection over, so the header timeout
        // could not watch a first request trickled in a byte at a time.
        .setHttp2ClearTextEnabled(false)
        // No WebSocket is served: without compression handshakers Vert.x leaves the WebSocket
        // extension handler out of each connection's pipeline, which every request and every
        // answer otherwise passed through.
        .setPerFrameWebSocketCompressionSupported(false)
        .setPerMessageWebSocketCompressionSupported(false)
        .setIdleTimeout((int) http.idleTimeout().toMillis())
        .setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
    return vertx.createHttpServer(options)
        .connectionHandler(connection -> {
          CodecRefusals.install(connection);
          slowClients.connected(connection);
        })
        .invalidRequestHandler(ApiErrors::invalidRequest)
        .requestHandler(request -> {
          slowClients.requestStarted(request);
          gate.handle(request);
        })
        .listen()
        .onSuccess(server -> bound.set(server.actualPort()));
  }
}
