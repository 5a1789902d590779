package io.quiver.server;

import io.quiver.http.AdminRoutes;
import io.quiver.http.ApiErrors;
import io.quiver.http.GraphRoutes;
import io.quiver.http.HealthRoute;
import io.quiver.http.OperationsRoutes;
import io.quiver.http.RequestObserver;
import io.vertx.ext.web.handler.TimeoutHandler;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * One HTTP server on one event loop; the server deploys one per event loop, all on the same
 * port, so requests spread over every core.
 */
final class ApiVerticle extends VerticleBase {
  private final Services services;
  private final int port;

  ApiVerticle(Services services, int port) {
    this.services = services;
    this.port = port;
  }

  @Override
  public Future<?> start() {
    Router router = Router.router(vertx);
    router.route().handler(new RequestObserver(services.metrics().registry()));
    router.route().handler(TimeoutHandler.create(services.config().http().requestTimeout().toMillis(), 503));
    router.route().handler(BodyHandler.create(false).setBodyLimit(services.config().http().bodyLimitBytes()));
    new GraphRoutes(services.store(), services.schemas()).mount(router);
    new AdminRoutes(vertx, services.store(), services.registry(), services.schemas(), services.config().adminToken())
        .mount(router);
    new HealthRoute(services.store(), services::zooKeeperConnected).mount(router);
    new OperationsRoutes(services.metrics()).mount(router);
    router.route().failureHandler(ApiErrors::handle);
    router.errorHandler(404, ApiErrors::handle);
    router.errorHandler(405, ApiErrors::handle);
    return vertx.createHttpServer(new HttpServerOptions().setPort(port).setHost("0.0.0.0"))
        .requestHandler(router)
        .listen();
  }
}
