package io.quiver.api.http;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.HttpException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Finds a call's route in one walk down its path, by a table keyed by path shape and method,
 * where vertx-web tries each route's regular expression in turn: the graph calls are fifteen
 * routes with path parameters, and a cached getEdges (registered late) spent a fifth of its time
 * on the event loop matching expressions that could not match (issue 37's profile). The table is
 * a tree of path segments — a literal segment first, then a parameter — whose leaves hold a route
 * per method, as httprouter and Vert.x's own {@code RequestRouter} proposals do; mounted as the
 * handler of the vertx-web routes over the graph calls' path prefixes ({@link GraphRoutes#mount}),
 * it hands a path it does not know to the routes after it (admin, health, console), and answers
 * 405 for a known path under another method.
 *
 * <p>A route declares the query parameters it takes ({@link QueryParams}) and answers with a
 * future body, as vertx-web's {@code Route.respond} does: a null body is a 204, a failure goes
 * to the failure handler ({@link ApiErrors}). Its operation's name is recorded for the metrics and
 * the access log ({@link RequestObserver#named}). Path parameters are percent-decoded, as
 * vertx-web decodes its own, and read with {@link RoutingContext#pathParam}.
 */
final class RouteTable implements Handler<RoutingContext> {

  /** One call: its operation, its path parameters' names in order, the query parameters it takes, its answer. */
  private record Route(String operation, List<String> names, Set<String> parameters,
      Function<RoutingContext, Future<?>> answer) {}

  /**
   * A node of the tree: the segments that may follow, and the routes that end here. A node has a
   * few literal children at most, compared in place with the path ({@link #literal}) rather than
   * looked up in a map, which would take a substring of the path and hash it per segment.
   */
  private static final class Segment {
    private String[] literalNames = new String[0];
    private Segment[] literals = new Segment[0];
    private Segment parameter;
    private final Map<HttpMethod, Route> routes = new HashMap<>();

    /** The literal child named {@code path[start, end)}, or null. */
    Segment literal(String path, int start, int end) {
      for (int i = 0; i < literalNames.length; i++) {
        String name = literalNames[i];
        if (name.length() == end - start && path.startsWith(name, start)) {
          return literals[i];
        }
      }
      return null;
    }

    /** The literal child {@code name}, added if missing. */
    Segment literal(String name) {
      Segment found = literal(name, 0, name.length());
      if (found != null) {
        return found;
      }
      literalNames = Arrays.copyOf(literalNames, literalNames.length + 1);
      literals = Arrays.copyOf(literals, literals.length + 1);
      literalNames[literalNames.length - 1] = name;
      return literals[literals.length - 1] = new Segment();
    }
  }

  private final Segment root = new Segment();

  /**
   * Adds a route: {@code path} of literal segments and {@code :name} parameters (a segment of
   * its own each), taking the query parameters {@code parameters}.
   */
  RouteTable add(HttpMethod method, String path, String operation, Set<String> parameters,
      Function<RoutingContext, Future<?>> answer) {
    Segment at = root;
    List<String> names = new ArrayList<>();
    for (String segment : segments(path)) {
      if (segment.startsWith(":")) {
        names.add(segment.substring(1));
        at = at.parameter != null ? at.parameter : (at.parameter = new Segment());
      } else {
        at = at.literal(segment);
      }
    }
    if (at.routes.putIfAbsent(method, new Route(operation, List.copyOf(names), Set.copyOf(parameters), answer)) != null) {
      throw new IllegalArgumentException(method + " " + path + " is routed twice");
    }
    return this;
  }

  @Override
  public void handle(RoutingContext ctx) {
    List<String> values = new ArrayList<>(4);
    Segment found = find(root, ctx.normalizedPath(), 1, values);
    if (found == null) {
      ctx.next();
      return;
    }
    Route route = found.routes.get(ctx.request().method());
    if (route == null) {
      ctx.fail(405);
      return;
    }
    RequestObserver.named(ctx, route.operation());
    Future<?> answer;
    try {
      for (int i = 0; i < values.size(); i++) {
        ctx.pathParams().put(route.names().get(i), RequestGate.decode(values.get(i)));
      }
      QueryParams.read(ctx, route.parameters());
      answer = route.answer().apply(ctx);
    } catch (RuntimeException refused) {
      // A refused query parameter (INVALID_ARGUMENT). A malformed escape never gets here: the
      // gate refused it before routing ({@link RequestGate}).
      ctx.fail(refused);
      return;
    }
    answer.onComplete(body -> {
      if (body.failed()) {
        ctx.fail(body.cause());
      } else {
        end(ctx, body.result());
      }
    });
  }

  /** Ends the answer as vertx-web's {@code Route.respond} does: a null body is a 204, a buffer is sent as it is. */
  private static void end(RoutingContext ctx, Object body) {
    HttpServerResponse response = ctx.response();
    if (response.headWritten()) {
      if (body == null && !response.ended()) {
        ctx.end();
      } else if (body != null) {
        ctx.fail(new HttpException(500, "Response already written"));
      }
    } else if (body == null) {
      response.setStatusCode(204).end();
    } else if (body instanceof Buffer buffer) {
      ctx.end(buffer);
    } else {
      ctx.json(body);
    }
  }

  /**
   * The route's end for the path's segments from {@code start} on, collecting the parameters'
   * values; a literal segment is tried before a parameter. The path is walked where it lies:
   * splitting it ({@code String.split}) cost a cached read 2 % of its time, and a substring hashed
   * per segment to look literals up in a map nearly 6 % (issue 37's profiles of the hot path).
   */
  private static Segment find(Segment at, String path, int start, List<String> values) {
    if (start > path.length()) {
      return at.routes.isEmpty() ? null : at;
    }
    int end = path.indexOf('/', start);
    if (end < 0) {
      end = path.length();
    }
    Segment literal = at.literal(path, start, end);
    if (literal != null) {
      Segment found = find(literal, path, end + 1, values);
      if (found != null) {
        return found;
      }
    }
    if (at.parameter != null && end > start) {
      values.add(path.substring(start, end));
      Segment found = find(at.parameter, path, end + 1, values);
      if (found != null) {
        return found;
      }
      values.remove(values.size() - 1);
    }
    return null;
  }

  /** The segments of a path that starts with a slash ({@code /v1/nodes/1} is v1, nodes, 1). */
  private static String[] segments(String path) {
    return path.substring(1).split("/", -1);
  }
}
