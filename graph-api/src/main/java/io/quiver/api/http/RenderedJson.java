package io.quiver.api.http;

import com.fasterxml.jackson.core.JsonGenerator;
import io.quiver.store.Cursor;
import io.quiver.store.Edge;
import io.quiver.store.EdgeBatch;
import io.quiver.store.EdgePage;
import io.quiver.store.HydratedPage;
import io.quiver.store.Node;
import io.quiver.store.NodeBatch;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;

/**
 * The API's JSON for nodes, edges, pages and batches, each answer written in one pass of the
 * streaming generator ({@link ApiJson#writeNode}, {@link ApiJson#writeEdge}) straight into its
 * buffer, every time.
 *
 * <p>It used to keep each rendered value's bytes beside the value (a Caffeine cache with weak
 * keys on the value object), so a cache hit only copied bytes. Under churn that cost more than it
 * saved: a weakly keyed entry keeps its bytes until a collection clears its key, so the bytes of
 * every value the cache let go lived into the next young collection and were copied there. With
 * the cache at a tenth of TAO's data, each young collection copied 9.2 MB instead of 3.3 MB and
 * paused 26 ms on average instead of 9 — all of Quiver's p99.9 tail — and the server spent more
 * CPU per operation, not less (benchmarks/README.md, "The tail was the collector's"). Keeping
 * bytes only from a value's second rendering copied nearly as much (8.5 MB): under churn most
 * cached values are read again before they go. A cached window still keeps the page it answered
 * ({@code EdgeWindow}), so a repeated page is not built again; on its second answer the page
 * object keeps its buffer itself ({@link EdgePage#attachment}), so its bytes live and go with the
 * window that holds the page, and a repeated page is answered with the buffer it was, not written.
 *
 * <p>Stateless; one instance serves every event loop.
 */
public final class RenderedJson {

  public Buffer node(Node node) {
    return ApiJson.render(256, out -> ApiJson.writeNode(out, node));
  }

  public Buffer edge(Edge edge) {
    return ApiJson.render(256, out -> ApiJson.writeEdge(out, edge));
  }

  /** What a page object rendered once carries, so that its second rendering keeps its bytes. */
  private static final Object RENDERED_ONCE = new Object();

  /**
   * {@code {"edges": [...], "next": cursor}}. A page object answered a second time (a cached
   * window answers its last page again, as the same object) keeps its rendered buffer attached
   * ({@link EdgePage#attachment}) and answers with that very buffer after; a page answered once
   * keeps none. Sharing one buffer between answers is safe: nothing writes to it after it is
   * rendered, and Vert.x sends a buffer through a slice of its bytes, never releasing or moving
   * them — the bare Vert.x server of {@code ./bench hot} answers every request with one buffer
   * too. Copying 7 KB per answer had cost a cached 50-edge page 4 % of its time.
   */
  public Buffer page(EdgePage page) {
    Object attached = page.attachment();
    if (attached instanceof Buffer kept) {
      return kept;
    }
    Buffer rendered = renderPage(page);
    page.attach(attached == RENDERED_ONCE ? rendered : RENDERED_ONCE);
    return rendered;
  }

  private static Buffer renderPage(EdgePage page) {
    return ApiJson.render(64 + page.edges().size() * 160, out -> {
      out.writeStartObject();
      out.writeArrayFieldStart("edges");
      for (Edge edge : page.edges()) {
        ApiJson.writeEdge(out, edge);
      }
      out.writeEndArray();
      next(out, page.next());
      out.writeEndObject();
    });
  }

  /** Each edge with its target as {@code node}, and the targets gone as {@code missing}. */
  public Buffer hydrated(HydratedPage page) {
    return ApiJson.render(64 + page.edges().size() * 360, out -> {
      out.writeStartObject();
      out.writeArrayFieldStart("edges");
      for (HydratedPage.Entry entry : page.edges()) {
        out.writeStartObject();
        ApiJson.writeEdgeFields(out, entry.edge());
        out.writeFieldName("node");
        ApiJson.writeNode(out, entry.node());
        out.writeEndObject();
      }
      out.writeEndArray();
      next(out, page.next());
      ApiJson.writeIds(out, "missing", page.missing());
      out.writeEndObject();
    });
  }

  /** {@code {"nodes": [...], "missing": [ids]}}. */
  public Buffer batch(NodeBatch batch) {
    return ApiJson.render(64 + batch.nodes().size() * 200, out -> {
      out.writeStartObject();
      ApiJson.writeNodes(out, "nodes", batch.nodes());
      ApiJson.writeIds(out, "missing", batch.missing());
      out.writeEndObject();
    });
  }

  /** {@code {"edges": [...], "missing": [{"from", "type", "to"}, ...]}}, each in request order. */
  public Buffer batch(EdgeBatch batch) {
    return ApiJson.render(64 + batch.edges().size() * 160, out -> {
      out.writeStartObject();
      out.writeArrayFieldStart("edges");
      for (Edge edge : batch.edges()) {
        ApiJson.writeEdge(out, edge);
      }
      out.writeEndArray();
      out.writeArrayFieldStart("missing");
      for (var id : batch.missing()) {
        out.writeStartObject();
        out.writeStringField("from", id.from().toString());
        out.writeStringField("type", id.type());
        out.writeStringField("to", id.to().toString());
        out.writeEndObject();
      }
      out.writeEndArray();
      out.writeEndObject();
    });
  }

  /** {@code "next": cursor or null}. */
  private static void next(JsonGenerator out, Cursor next) throws IOException {
    if (next == null) {
      out.writeNullField("next");
    } else {
      out.writeStringField("next", next.encode());
    }
  }
}
