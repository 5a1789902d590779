package io.quiver.api.http;

import io.quiver.core.GraphException;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A route's query parameters, read strictly: parameters are separated by {@code &} only (the
 * gate has refused a raw {@code ;}), each is named once, and each is one the route takes. A
 * parameter sent twice, or one the route does not know, is a 400 naming it — never "first wins",
 * never silently ignored, so a typo such as {@code ?limt=5} does not quietly read 50 edges.
 */
final class QueryParams {
  private static final String KEY = "quiver.queryParams";

  private final Map<String, String> values;

  private QueryParams(Map<String, String> values) {
    this.values = values;
  }

  /** The handler, placed before a route's own, that reads and checks its parameters. */
  static Handler<RoutingContext> allowing(Set<String> names) {
    return ctx -> {
      try {
        read(ctx, names);
      } catch (GraphException refused) {
        ctx.fail(refused);
        return;
      }
      ctx.next();
    };
  }

  /** Reads and checks the request's parameters against the {@code names} its route takes; INVALID_ARGUMENT if they do not pass. */
  static void read(RoutingContext ctx, Set<String> names) {
    ctx.put(KEY, parse(ctx.request().query(), names));
  }

  /** The parameters a route's handler was given; none when the route declared none. */
  static QueryParams of(RoutingContext ctx) {
    QueryParams params = ctx.get(KEY);
    return params != null ? params : new QueryParams(Map.of());
  }

  String get(String name) {
    return values.get(name);
  }

  static QueryParams parse(String query, Set<String> allowed) {
    Map<String, String> values = new HashMap<>();
    if (query == null || query.isEmpty()) {
      return new QueryParams(values);
    }
    for (String pair : query.split("&", -1)) {
      if (pair.isEmpty()) {
        continue;
      }
      int equals = pair.indexOf('=');
      String name;
      String value;
      try {
        name = RequestGate.decode((equals < 0 ? pair : pair.substring(0, equals)).replace('+', ' '));
        value = equals < 0 ? "" : RequestGate.decode(pair.substring(equals + 1).replace('+', ' '));
      } catch (IllegalArgumentException malformed) {
        throw GraphException.invalid("the query string " + malformed.getMessage());
      }
      if (!allowed.contains(name)) {
        throw GraphException.invalid(allowed.isEmpty()
            ? "this call takes no query parameters, but was given '" + name + "'"
            : "unknown query parameter '" + name + "'; this call takes " + new TreeSet<>(allowed));
      }
      if (values.putIfAbsent(name, value) != null) {
        throw GraphException.invalid("query parameter '" + name + "' is given more than once");
      }
    }
    return new QueryParams(values);
  }
}
