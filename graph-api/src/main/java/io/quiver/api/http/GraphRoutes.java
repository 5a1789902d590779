package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.DELETE;
import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.PATCH;
import static io.vertx.core.http.HttpMethod.POST;
import static io.vertx.core.http.HttpMethod.PUT;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.schema.SchemaJson;
import io.quiver.schema.SchemaSource;
import io.quiver.store.AtomicRead;
import io.quiver.store.Edge;
import io.quiver.store.EdgeCondition;
import io.quiver.store.EdgeListHead;
import io.quiver.store.EdgePage;
import io.quiver.store.EdgeQuery;
import io.quiver.store.EdgeResult;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphQueries;
import io.quiver.store.GraphStore;
import io.quiver.store.InverseWait;
import io.quiver.store.Node;
import io.quiver.store.NodeBatch;
import io.quiver.store.NodeCondition;
import io.quiver.store.NodeId;
import io.quiver.store.TargetPage;
import io.quiver.store.TargetQuery;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Set;

/**
 * The graph calls of API v1. Each handler is one flat chain: read the request (refusing bad
 * input before anything is touched), call the store, render the answer. Failures go to
 * {@link ApiErrors}.
 */
public final class GraphRoutes {
  private static final Set<String> REWRITE_BODY = Set.of("data", "if");
  private static final Set<String> CREATE_BODY = Set.of("data", "colocateWith");
  private static final Set<String> EDGE_BODY = Set.of("sequence", "data", "state");
  private static final Set<String> BATCH_BODY = Set.of("ids");
  private static final Set<String> EDGE_BATCH_BODY = Set.of("edges");
  private static final Set<String> MULTI_READ_BODY = Set.of("nodes", "lists");
  private static final Set<String> QUERY_BODY = Set.of("operation", "lists", "limit", "after", "count", "hydrate");
  private static final Set<String> NONE = Set.of();
  private static final Set<String> WAIT = Set.of("waitForInverse");

  /**
   * The request header by which a read tolerates bounded staleness: {@code bounded-staleness} reads
   * through {@link GraphStore#staleTolerant()}; {@code primary}, or no header, as every read.
   */
  static final String CONSISTENCY = "Quiver-Consistency";

  private final GraphStore store;
  private final GraphStore staleStore;
  private final GraphQueries queries;
  private final GraphQueries staleQueries;
  /** Reads from the primaries, never memory: for a request carrying a read token. */
  private final GraphStore freshStore;
  private final GraphQueries freshQueries;
  private final SchemaSource schemas;
  private final RenderedJson rendered;

  public GraphRoutes(GraphStore store, SchemaSource schemas, RenderedJson rendered) {
    this.store = store;
    this.staleStore = store.staleTolerant();
    this.freshStore = store.fresh();
    this.queries = GraphQueries.over(store);
    this.staleQueries = GraphQueries.over(staleStore);
    this.freshQueries = GraphQueries.over(freshStore);
    this.schemas = schemas;
    this.rendered = rendered;
  }

  /** Where the graph calls' paths start: each a route of vertx-web's that matches by prefix, without a regular expression. */
  private static final List<String> PREFIXES = List.of("/v1/nodes*", "/v1/edges*", "/v1/read", "/v1/schema");

  /**
   * Mounts the graph calls as a route over each of their path prefixes, to be mounted before any
   * other call's route: a graph call then tries no route of another's. (The streamed calls, which
   * come before the request timeout, have path parameters that vertx-web matches by regular
   * expression; a cached read trying them cost 6 % of its time.) Each route runs {@code first}
   * (the request timeout and the body's reader), then handles the read token ({@link ReadTokens}),
   * then finds the call in a {@link RouteTable}; a path it does not know goes on to the routes after.
   */
  @SafeVarargs
  public final void mount(Router router, Handler<RoutingContext>... first) {
    RouteTable table = new RouteTable()
        .add(POST, "/v1/nodes/:type", "createNode", NONE, this::createNode)
        .add(POST, "/v1/nodes:batchGet", "batchGetNodes", NONE, this::batchGetNodes)
        .add(GET, "/v1/nodes", "getNodes", Set.of("ids"), this::getNodes)
        .add(GET, "/v1/nodes/:id", "getNode", NONE, this::getNode)
        .add(GET, "/v1/nodes/:type/by/:field/:value", "getNodeBy", NONE, ctx -> getNodeBy(ctx, ctx.pathParam("value")))
        .add(GET, "/v1/nodes/:type/by/:field", "getNodeByQuery", Set.of("value"),
            ctx -> getNodeBy(ctx, QueryParams.of(ctx).get("value")))
        .add(PATCH, "/v1/nodes/:id", "updateNode", NONE, this::updateNode)
        .add(PUT, "/v1/nodes/:id", "replaceNode", NONE, this::replaceNode)
        .add(DELETE, "/v1/nodes/:id", "deleteNode", Set.of("cascade"), this::deleteNode)
        .add(POST, "/v1/nodes/:id/archive-edges", "archiveEdgesOf", NONE,
            ctx -> cascade(ctx, "archive-edges", store::archiveEdgesOf))
        .add(POST, "/v1/nodes/:id/restore-edges", "restoreEdgesOf", NONE,
            ctx -> cascade(ctx, "restore-edges", store::restoreEdgesOf))
        // A literal segment is tried before a parameter: 'count' is never taken for a node ID.
        .add(GET, "/v1/nodes/:from/edges/:edgeType/count", "countEdges", NONE, this::countEdges)
        .add(PUT, "/v1/nodes/:from/edges/:edgeType/:to", "addEdge", WAIT, this::addEdge)
        .add(POST, "/v1/nodes/:from/edges/:edgeType/:to/archive", "archiveEdge", WAIT, ctx -> changeState(ctx, true))
        .add(POST, "/v1/nodes/:from/edges/:edgeType/:to/restore", "restoreEdge", WAIT, ctx -> changeState(ctx, false))
        .add(GET, "/v1/nodes/:from/edges/:edgeType/:to", "getEdge", NONE, this::getEdge)
        .add(DELETE, "/v1/nodes/:from/edges/:edgeType/:to", "removeEdge", WAIT, this::removeEdge)
        .add(GET, "/v1/nodes/:from/edges/:edgeType", "getEdges",
            Set.of("limit", "after", "offset", "order", "minSeq", "maxSeq", "hydrate", "state", "to"), this::getEdges)
        .add(POST, "/v1/edges/query", "queryEdgeLists", NONE, this::queryEdgeLists)
        .add(POST, "/v1/edges:batchGet", "batchGetEdges", NONE, this::batchGetEdges)
        .add(POST, "/v1/read", "readAtomically", NONE, this::readAtomically)
        .add(GET, "/v1/schema", "getSchema", NONE, this::getSchema);
    Handler<RoutingContext> calls = new ReadTokens(store).before(table);
    for (String prefix : PREFIXES) {
      Route route = router.route(prefix);
      for (Handler<RoutingContext> handler : first) {
        route.handler(handler);
      }
      route.handler(calls);
    }
  }

  /**
   * The store a read goes through, by its {@code Quiver-Consistency} header.
   *
   * @throws GraphException INVALID_ARGUMENT for a value other than {@code primary} or {@code bounded-staleness}
   */
  private GraphStore reading(RoutingContext ctx) {
    if (ReadTokens.carried(ctx)) {
      // A read token asks for every write it covers: the primaries have them, a cache or a replica may not.
      return freshStore;
    }
    String asked = ctx.request().getHeader(CONSISTENCY);
    if (asked == null || asked.equals("primary")) {
      return store;
    }
    if (asked.equals("bounded-staleness")) {
      return staleStore;
    }
    throw GraphException.invalid("header " + CONSISTENCY + " must be 'primary' (the default) or 'bounded-staleness',"
        + " got '" + asked + "'");
  }

  /** The set operations and hydrated pages over the store a read goes through ({@link #reading}). */
  private GraphQueries queries(RoutingContext ctx) {
    GraphStore reading = reading(ctx);
    return reading == store ? queries : reading == freshStore ? freshQueries : staleQueries;
  }

  // ---- nodes ----

  private record Creation(String type, ObjectNode data, NodeId colocateWith) {}

  private Future<Buffer> createNode(RoutingContext ctx) {
    return Futures.attempt(() -> {
          ObjectNode body = Requests.body(ctx, CREATE_BODY);
          return new Creation(Requests.pathName(ctx, "type"), Requests.data(body, true),
              Requests.idMember(body, "colocateWith"));
        })
        .compose(creation -> store.createNode(creation.type(), creation.data(), creation.colocateWith()))
        .map(node -> {
          ctx.response().setStatusCode(201).putHeader("Location", "/v1/nodes/" + node.id());
          return nodeAnswer(ctx, node, false);
        });
  }

  private Future<Buffer> getNode(RoutingContext ctx) {
    return Futures.attempt(() -> Requests.pathId(ctx, "id"))
        .compose(id -> reading(ctx).getNode(id))
        .map(node -> nodeAnswer(ctx, node, true));
  }

  /**
   * A node by a unique field's value: the path's last segment, percent-decoded, or — for a value
   * holding a slash, which no path segment may — the {@code value} query parameter.
   */
  private Future<Buffer> getNodeBy(RoutingContext ctx, String value) {
    if (value == null) {
      return Future.failedFuture(GraphException.invalid("the query parameter 'value' is required"));
    }
    return Futures.attempt(() -> reading(ctx))
        .compose(reads -> reads.getNodeBy(ctx.pathParam("type"), ctx.pathParam("field"), value))
        .map(node -> nodeAnswer(ctx, node, true));
  }

  private Future<Buffer> getNodes(RoutingContext ctx) {
    return Futures.attempt(() -> Requests.idList(ctx, "ids"))
        .compose(ids -> reading(ctx).getNodes(ids))
        .map(batch -> json(ctx, rendered.batch(batch)));
  }

  /** getNodes with the IDs in the body, for a client that would rather not put 500 IDs in a URL. */
  private Future<Buffer> batchGetNodes(RoutingContext ctx) {
    return Futures.attempt(() -> Requests.idArray(Requests.body(ctx, BATCH_BODY), "ids"))
        .compose(ids -> reading(ctx).getNodes(ids))
        .map(batch -> json(ctx, rendered.batch(batch)));
  }

  private record Rewrite(NodeId id, ObjectNode data, NodeCondition condition) {}

  /**
   * A node's new data and its write's condition: the version of {@code If-Match}, and the fields'
   * values of the body's {@code if} (a compare-and-set).
   */
  private Future<Rewrite> readRewrite(RoutingContext ctx) {
    return Futures.attempt(() -> {
      ObjectNode body = Requests.body(ctx, REWRITE_BODY);
      return new Rewrite(Requests.pathId(ctx, "id"), Requests.data(body, true),
          new NodeCondition(Requests.ifMatch(ctx), Requests.fieldsCondition(body)));
    });
  }

  private Future<Buffer> updateNode(RoutingContext ctx) {
    return readRewrite(ctx)
        .compose(rewrite -> store.updateNode(rewrite.id(), rewrite.data(), rewrite.condition()))
        .map(node -> nodeAnswer(ctx, node, false));
  }

  private Future<Buffer> replaceNode(RoutingContext ctx) {
    return readRewrite(ctx)
        .compose(rewrite -> store.replaceNode(rewrite.id(), rewrite.data(), rewrite.condition()))
        .map(node -> nodeAnswer(ctx, node, false));
  }

  private record Deletion(NodeId id, GraphStore.Cascade cascade) {}

  private Future<Void> deleteNode(RoutingContext ctx) {
    return Futures.attempt(() -> new Deletion(Requests.pathId(ctx, "id"),
            Requests.flag(ctx, "cascade") ? GraphStore.Cascade.EDGES : GraphStore.Cascade.NONE))
        .compose(deletion -> store.deleteNode(deletion.id(), deletion.cascade()));
  }

  /**
   * A node's edges archived or restored in bulk, asynchronously: 202 once the work is committed,
   * naming the node and what was asked.
   */
  private Future<Buffer> cascade(RoutingContext ctx, String asked,
      java.util.function.Function<NodeId, Future<Void>> cascade) {
    return Futures.attempt(() -> Requests.pathId(ctx, "id"))
        .compose(id -> cascade.apply(id).map(accepted -> {
          ctx.response().setStatusCode(202);
          return json(ctx, out -> {
            out.writeStartObject();
            out.writeStringField("node", id.toString());
            out.writeStringField("accepted", asked);
            out.writeEndObject();
          });
        }));
  }

  // ---- edges ----

  private record EdgeKey(NodeId from, String type, NodeId to) {}

  private EdgeKey edgeKey(RoutingContext ctx) {
    return new EdgeKey(Requests.pathId(ctx, "from"), Requests.pathName(ctx, "edgeType"),
        ctx.pathParam("to") == null ? null : Requests.pathId(ctx, "to"));
  }

  private record EdgeWrite(EdgeKey key, Long sequence, ObjectNode data, EdgeState state, InverseWait inverseWait,
      EdgeCondition condition) {}

  private Future<Buffer> addEdge(RoutingContext ctx) {
    return Futures.attempt(() -> {
          ObjectNode body = Requests.body(ctx, EDGE_BODY);
          return new EdgeWrite(edgeKey(ctx), Requests.longMember(body, "sequence"), Requests.data(body, false),
              Requests.stateMember(body), inverseWait(ctx), Requests.edgeCondition(ctx));
        })
        .compose(write -> store.addEdge(write.key().from(), write.key().type(), write.key().to(),
            write.sequence(), write.data(), write.state(), write.inverseWait(), write.condition()))
        .map(result -> json(ctx, out -> ApiJson.writeEdge(out, reportInverse(ctx, result).edge())));
  }

  /** {@code ?waitForInverse=true} answers after the inverse copy is written too, when its host is up. */
  private static InverseWait inverseWait(RoutingContext ctx) {
    return Requests.flag(ctx, "waitForInverse") ? InverseWait.APPLIED : InverseWait.ASYNC;
  }

  /**
   * Every edge write says what it did, {@code Quiver-Edge: created | updated | unchanged} for an
   * add and {@code removed | absent} for a removal, and where its inverse stands,
   * {@code Quiver-Inverse: none | pending | applied}. The status codes stay as API.md fixes them.
   */
  private static EdgeResult reportInverse(RoutingContext ctx, EdgeResult result) {
    ReadTokens.wrote(ctx, result.token());
    ctx.response().putHeader("Quiver-Edge", result.change().name().toLowerCase(java.util.Locale.ROOT));
    ctx.response().putHeader("Quiver-Inverse", result.inverse().name().toLowerCase(java.util.Locale.ROOT));
    return result;
  }

  private Future<Buffer> getEdge(RoutingContext ctx) {
    return Futures.attempt(() -> edgeKey(ctx))
        .compose(key -> reading(ctx).getEdge(key.from(), key.type(), key.to()))
        .map(edge -> json(ctx, rendered.edge(edge)));
  }

  /** Archives or restores an edge; the answer is the edge as it now is, and says what changed. */
  private Future<Buffer> changeState(RoutingContext ctx, boolean archive) {
    return Futures.attempt(() -> new EdgeWrite(edgeKey(ctx), null, null, null, inverseWait(ctx), EdgeCondition.NONE))
        .compose(write -> archive
            ? store.archiveEdge(write.key().from(), write.key().type(), write.key().to(), write.inverseWait())
            : store.restoreEdge(write.key().from(), write.key().type(), write.key().to(), write.inverseWait()))
        .map(result -> json(ctx, out -> ApiJson.writeEdge(out, reportInverse(ctx, result).edge())));
  }

  private Future<Void> removeEdge(RoutingContext ctx) {
    return Futures.attempt(() -> new EdgeWrite(edgeKey(ctx), null, null, null, inverseWait(ctx), EdgeCondition.NONE))
        .compose(write -> store.removeEdge(write.key().from(), write.key().type(), write.key().to(), write.inverseWait()))
        .map(result -> {
          reportInverse(ctx, result);
          return null;
        });
  }

  private Future<Buffer> countEdges(RoutingContext ctx) {
    return Futures.attempt(() -> edgeKey(ctx))
        .compose(key -> reading(ctx).countEdges(key.from(), key.type()))
        .map(count -> json(ctx, out -> {
          out.writeStartObject();
          out.writeNumberField("count", count);
          out.writeEndObject();
        }));
  }

  private record PageRequest(EdgeKey key, EdgeQuery query, boolean hydrate) {}

  /** The parameters of a page, which a multi-get ({@code ?to=}) answers no question of. */
  private static final Set<String> PAGE_PARAMETERS = Set.of("limit", "after", "offset", "order", "minSeq", "maxSeq",
      "hydrate");

  private Future<Buffer> getEdges(RoutingContext ctx) {
    return QueryParams.of(ctx).get("to") != null ? getEdgesTo(ctx) : getEdgePage(ctx);
  }

  private record MultiGet(EdgeKey key, List<NodeId> to, Set<EdgeState> states) {}

  /**
   * {@code ?to=a,b,c}: the edges of the list to any of them, newest first, as one page without a
   * cursor; {@code state} active (by default), archived or all.
   */
  private Future<Buffer> getEdgesTo(RoutingContext ctx) {
    return Futures.attempt(() -> {
          for (String parameter : PAGE_PARAMETERS) {
            if (QueryParams.of(ctx).get(parameter) != null) {
              throw GraphException.invalid("'to' asks for the edges to given targets and cannot be combined with '"
                  + parameter + "'");
            }
          }
          return new MultiGet(edgeKey(ctx), Requests.idList(ctx, "to"), Requests.states(ctx));
        })
        .compose(request -> reading(ctx).getEdgesTo(request.key().from(), request.key().type(), request.to(),
            request.states()))
        .map(edges -> json(ctx, rendered.page(new EdgePage(edges, null))));
  }

  private Future<Buffer> getEdgePage(RoutingContext ctx) {
    return Futures.attempt(() -> new PageRequest(edgeKey(ctx), Requests.edgeQuery(ctx), Requests.flag(ctx, "hydrate")))
        .compose(request -> request.hydrate()
            ? queries(ctx).hydratedEdges(request.key().from(), request.key().type(), request.query())
                .map(rendered::hydrated)
            : reading(ctx).getEdges(request.key().from(), request.key().type(), request.query()).map(rendered::page))
        .map(page -> json(ctx, page));
  }

  /**
   * {@code POST /v1/edges:batchGet}: single edges from any lists, each active or archived as a
   * getEdge answers it, and the ones without an edge as {@code missing}.
   */
  private Future<Buffer> batchGetEdges(RoutingContext ctx) {
    return Futures.attempt(() -> Requests.edgeIdArray(Requests.body(ctx, EDGE_BATCH_BODY), "edges"))
        .compose(ids -> reading(ctx).getEdgesBatch(ids))
        .map(batch -> json(ctx, rendered.batch(batch)));
  }

  /**
   * {@code POST /v1/read}: nodes and lists read atomically ({@link GraphStore#readAtomically}),
   * answered {@code {"nodes": [node or null…], "lists": [{"from", "type", "edges", "count",
   * "version"}…], "rounds"}} in request order.
   */
  private Future<Buffer> readAtomically(RoutingContext ctx) {
    return Futures.attempt(() -> Requests.multiRead(Requests.body(ctx, MULTI_READ_BODY)))
        .compose(asked -> store.readAtomically(asked.nodes(), asked.lists())
            .map(read -> json(ctx, out -> {
              out.writeStartObject();
              out.writeArrayFieldStart("nodes");
              for (Node node : read.nodes()) {
                if (node == null) {
                  out.writeNull();
                } else {
                  ApiJson.writeNode(out, node);
                }
              }
              out.writeEndArray();
              out.writeArrayFieldStart("lists");
              for (int i = 0; i < read.lists().size(); i++) {
                AtomicRead.ListRead list = asked.lists().get(i);
                EdgeListHead head = read.lists().get(i);
                out.writeStartObject();
                out.writeStringField("from", list.from().toString());
                out.writeStringField("type", list.type());
                out.writeArrayFieldStart("edges");
                for (Edge edge : head.edges()) {
                  ApiJson.writeEdge(out, edge);
                }
                out.writeEndArray();
                out.writeNumberField("count", head.count());
                out.writeNumberField("version", head.version());
                out.writeEndObject();
              }
              out.writeEndArray();
              out.writeNumberField("rounds", read.rounds());
              out.writeEndObject();
            })));
  }

  // ---- set operations ----

  private record ListQuery(TargetQuery query, boolean count, boolean hydrate) {}

  /**
   * {@code POST /v1/edges/query}: a set operation over two to eight edge lists, answered as a page
   * of target IDs in ascending order with the next page's cursor, or (with {@code count}) only
   * how many there are, or (with {@code hydrate}) with the target nodes.
   */
  private Future<Buffer> queryEdgeLists(RoutingContext ctx) {
    return Futures.attempt(() -> {
          ObjectNode body = Requests.body(ctx, QUERY_BODY);
          ListQuery request = new ListQuery(Requests.targetQuery(body), Requests.booleanMember(body, "count"),
              Requests.booleanMember(body, "hydrate"));
          if (request.count() && (request.hydrate() || body.has("limit"))) {
            throw GraphException.invalid("'count' answers only how many targets there are: it takes no 'limit' or 'hydrate'");
          }
          return request;
        })
        .compose(request -> request.count()
            ? queries(ctx).countCombined(request.query()).map(count -> json(ctx, out -> {
              out.writeStartObject();
              out.writeNumberField("count", count);
              out.writeEndObject();
            }))
            : queries(ctx).combine(request.query()).compose(page -> hydrated(reading(ctx), page, request.hydrate())
                .map(nodes -> json(ctx, out -> writeTargets(out, page, nodes)))));
  }

  /** The page's target nodes when asked for (one getNodes), else null. */
  private static Future<NodeBatch> hydrated(GraphStore reads, TargetPage page, boolean hydrate) {
    if (!hydrate) {
      return Future.succeededFuture();
    }
    return page.targets().isEmpty() ? Future.succeededFuture(NodeBatch.of(List.of(), java.util.Map.of()))
        : reads.getNodes(page.targets());
  }

  private static void writeTargets(com.fasterxml.jackson.core.JsonGenerator out, TargetPage page, NodeBatch nodes)
      throws java.io.IOException {
    out.writeStartObject();
    ApiJson.writeIds(out, "targets", page.targets());
    if (page.next() == null) {
      out.writeNullField("next");
    } else {
      out.writeStringField("next", page.next().toString());
    }
    if (nodes != null) {
      ApiJson.writeNodes(out, "nodes", nodes.nodes());
      ApiJson.writeIds(out, "missing", nodes.missing());
    }
    out.writeEndObject();
  }

  // ---- schema ----

  private Future<Buffer> getSchema(RoutingContext ctx) {
    return Futures.attempt(() -> json(ctx, SchemaJson.write(schemas.current())));
  }

  // ---- rendering ----

  /**
   * A node with its version as ETag. A read's node may be a cached one, whose bytes are kept; a
   * write's node is new and read again only from the cache, so it is rendered, not kept.
   */
  private Buffer nodeAnswer(RoutingContext ctx, Node node, boolean read) {
    ctx.response().putHeader(HttpHeaders.ETAG, "\"" + node.version() + "\"");
    return read ? json(ctx, rendered.node(node)) : json(ctx, out -> ApiJson.writeNode(out, node));
  }

  private static Buffer json(RoutingContext ctx, ApiJson.Writing writing) {
    return json(ctx, ApiJson.render(writing));
  }

  private static Buffer json(RoutingContext ctx, Buffer body) {
    ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, ApiJson.CONTENT_TYPE);
    return body;
  }

  private static Buffer json(RoutingContext ctx, com.fasterxml.jackson.databind.JsonNode json) {
    ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, ApiJson.CONTENT_TYPE);
    return ApiJson.buffer(json);
  }
}
