package io.quiver.api.http;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.quiver.store.Cursor;
import io.quiver.store.Edge;
import io.quiver.store.EdgeBatch;
import io.quiver.store.EdgePage;
import io.quiver.store.HydratedPage;
import io.quiver.store.Node;
import io.quiver.store.NodeBatch;
import io.quiver.store.NodeId;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The API's JSON for nodes, edges and pages, with the bytes of each node and edge kept beside the
 * value while a cache holds it. A cached node or edge is one immutable object read again and
 * again; rendering it once and keeping its bytes, keyed by that very object (weak keys, so an
 * entry goes when the cache drops the value), turns a hit's rendering into copying bytes. A page
 * is its edges' bytes joined, and a page a cached window answers again (the same object: the
 * window keeps its last page) is kept whole once seen twice. Without a cache (every read a new
 * object) nothing is kept.
 *
 * <p>One instance per server, shared by its event loops.
 */
public final class RenderedJson {
  private static final byte[] PAGE_START = "{\"edges\":[".getBytes(StandardCharsets.UTF_8);
  private static final byte[] NODES_START = "{\"nodes\":[".getBytes(StandardCharsets.UTF_8);
  private static final byte[] NEXT = "],\"next\":".getBytes(StandardCharsets.UTF_8);
  private static final byte[] MISSING = ",\"missing\":[".getBytes(StandardCharsets.UTF_8);
  private static final byte[] WITH_NODE = ",\"node\":".getBytes(StandardCharsets.UTF_8);
  private static final byte[] END_ARRAY_AND_OBJECT = "]}".getBytes(StandardCharsets.UTF_8);
  private static final byte[] NULL = "null".getBytes(StandardCharsets.UTF_8);

  /** Null when nothing is kept. */
  private final Cache<Object, byte[]> kept;
  /**
   * The pages seen once, by identity: a page is kept whole only when the same object comes back
   * (a cached window answers a repeated query with the page it answered before), so a page read
   * once — a deep page, an uncached answer — never pushes kept nodes and edges out.
   */
  private final Cache<Object, Boolean> pagesSeen;

  private RenderedJson(Cache<Object, byte[]> kept, Cache<Object, Boolean> pagesSeen) {
    this.kept = kept;
    this.pagesSeen = pagesSeen;
  }

  /** Keeps the bytes of up to about {@code maxBytes} of nodes, edges and pages (for a server with a cache). */
  public static RenderedJson keeping(long maxBytes) {
    return new RenderedJson(Caffeine.newBuilder().weakKeys().maximumWeight(maxBytes)
        .<Object, byte[]>weigher((value, bytes) -> bytes.length + 64).build(),
        Caffeine.newBuilder().weakKeys().maximumSize(PAGES_SEEN).build());
  }

  /** How many pages seen once are remembered, to be kept when seen again. */
  private static final int PAGES_SEEN = 4096;

  /** Renders every time (for a server without a cache). */
  public static RenderedJson direct() {
    return new RenderedJson(null, null);
  }

  public byte[] node(Node node) {
    return kept == null ? renderNode(node) : kept.get(node, RenderedJson::renderNode);
  }

  public byte[] edge(Edge edge) {
    return kept == null ? renderEdge(edge) : kept.get(edge, RenderedJson::renderEdge);
  }

  /**
   * {@code {"edges": [...], "next": cursor}}: a page seen before, as the same object, is copied
   * whole from the bytes kept for it; any other page is its edges' bytes joined.
   */
  public Buffer page(EdgePage page) {
    if (kept == null) {
      return renderPage(page);
    }
    byte[] whole = kept.getIfPresent(page);
    if (whole != null) {
      return Buffer.buffer(whole);
    }
    Buffer rendered = renderPage(page);
    if (pagesSeen.asMap().remove(page) != null) {
      kept.put(page, rendered.getBytes());
    } else {
      pagesSeen.put(page, Boolean.TRUE);
    }
    return rendered;
  }

  private Buffer renderPage(EdgePage page) {
    Buffer out = Buffer.buffer(64 + page.edges().size() * 160).appendBytes(PAGE_START);
    joined(out, page.edges(), (into, edge) -> into.appendBytes(edge(edge)));
    return next(out, page.next()).appendByte((byte) '}');
  }

  /** Each edge with its target as {@code node}, and the targets gone as {@code missing}. */
  public Buffer hydrated(HydratedPage page) {
    Buffer out = Buffer.buffer(64 + page.edges().size() * 360).appendBytes(PAGE_START);
    joined(out, page.edges(), (into, entry) -> {
      byte[] edge = edge(entry.edge());
      into.appendBytes(edge, 0, edge.length - 1).appendBytes(WITH_NODE).appendBytes(node(entry.node()))
          .appendByte((byte) '}');
    });
    return ids(next(out, page.next()).appendBytes(MISSING), page.missing()).appendByte((byte) '}');
  }

  /** {@code {"nodes": [...], "missing": [ids]}}. */
  public Buffer batch(NodeBatch batch) {
    Buffer out = Buffer.buffer(64 + batch.nodes().size() * 200).appendBytes(NODES_START);
    joined(out, batch.nodes(), (into, node) -> into.appendBytes(node(node)));
    return ids(out.appendByte((byte) ']').appendBytes(MISSING), batch.missing()).appendByte((byte) '}');
  }

  /** {@code {"edges": [...], "missing": [{"from", "type", "to"}, ...]}}, each in request order. */
  public Buffer batch(EdgeBatch batch) {
    Buffer out = Buffer.buffer(64 + batch.edges().size() * 160).appendBytes(PAGE_START);
    joined(out, batch.edges(), (into, edge) -> into.appendBytes(edge(edge)));
    out.appendByte((byte) ']').appendBytes(MISSING);
    joined(out, batch.missing(), (into, id) -> into.appendBuffer(ApiJson.render(json -> {
      json.writeStartObject();
      json.writeStringField("from", id.from().toString());
      json.writeStringField("type", id.type());
      json.writeStringField("to", id.to().toString());
      json.writeEndObject();
    })));
    return out.appendBytes(END_ARRAY_AND_OBJECT);
  }

  /** Each item written by {@code write}, separated by commas. */
  private static <T> void joined(Buffer out, List<T> items, BiConsumer<Buffer, T> write) {
    for (int i = 0; i < items.size(); i++) {
      if (i > 0) {
        out.appendByte((byte) ',');
      }
      write.accept(out, items.get(i));
    }
  }

  private static Buffer next(Buffer out, Cursor next) {
    out.appendBytes(NEXT);
    return next == null ? out.appendBytes(NULL) : out.appendByte((byte) '"').appendString(next.encode())
        .appendByte((byte) '"');
  }

  private static Buffer ids(Buffer out, List<NodeId> ids) {
    joined(out, ids, (into, id) -> into.appendByte((byte) '"').appendString(id.toString()).appendByte((byte) '"'));
    return out.appendByte((byte) ']');
  }

  private static byte[] renderNode(Object node) {
    return ApiJson.render(out -> ApiJson.writeNode(out, (Node) node)).getBytes();
  }

  private static byte[] renderEdge(Object edge) {
    return ApiJson.render(out -> ApiJson.writeEdge(out, (Edge) edge)).getBytes();
  }
}
