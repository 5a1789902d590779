package io.quiver.api.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.http.HttpConnection;
import java.util.Map;

/**
 * What Vert.x's HTTP/1 connection would answer by itself — an empty 501 to a request line with an
 * HTTP version other than 1.0 and 1.1 — or not at all — a chunked body whose chunk size is
 * malformed closes the connection without a word — answered with the JSON error body every other
 * refusal has, then the connection closed: 505 {@code not_implemented} (as the gate answers a
 * version it cannot name) and 400 {@code invalid_request}. Nothing of such a request reaches a route, so it changes nothing.
 *
 * <p>A Netty handler placed right after the connection's HTTP decoder when the connection is
 * accepted. Vert.x has no public hook into the pipeline; this reaches it through the connection's
 * implementation ({@code io.vertx.core.net.impl.ConnectionBase#channel}), and does nothing if that
 * ever changes — {@code HostileRequestsTest} then fails rather than the server. It works because
 * the server is HTTP/1.1 only (no h2c), so the pipeline exists when the connection is accepted.
 */
public final class CodecRefusals extends ChannelInboundHandlerAdapter {
  static final String NAME = "quiver-codec-refusals";

  private boolean refused;

  /** Places the handler after the HTTP decoder of a connection just accepted. */
  public static void install(HttpConnection connection) {
    if (!(connection instanceof io.vertx.core.net.impl.ConnectionBase base)) {
      return;
    }
    ChannelPipeline pipeline = base.channel().pipeline();
    if (pipeline.get(NAME) != null) {
      return;
    }
    for (Map.Entry<String, ChannelHandler> entry : pipeline) {
      if (entry.getValue() instanceof HttpRequestDecoder || entry.getValue() instanceof HttpServerCodec) {
        pipeline.addAfter(entry.getKey(), NAME, new CodecRefusals());
        return;
      }
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object message) {
    if (refused) {
      ReferenceCountUtil.release(message);
      return;
    }
    if (message instanceof HttpRequest request && request.decoderResult().isSuccess()
        && !supported(request.protocolVersion())) {
      refuse(ctx, message, HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED, "not_implemented",
          "HTTP version " + request.protocolVersion().text() + " is not supported; this server speaks HTTP/1.0 and HTTP/1.1");
      return;
    }
    if (!(message instanceof HttpRequest) && message instanceof HttpContent content
        && content.decoderResult().isFailure()) {
      refuse(ctx, message, HttpResponseStatus.BAD_REQUEST, "invalid_request",
          "the chunked body is malformed: " + content.decoderResult().cause().getMessage());
      return;
    }
    ctx.fireChannelRead(message);
  }

  private static boolean supported(HttpVersion version) {
    return version.equals(HttpVersion.HTTP_1_1) || version.equals(HttpVersion.HTTP_1_0);
  }

  /** The error body, written from the pipeline's tail so the response encoder sees it, then close. */
  private void refuse(ChannelHandlerContext ctx, Object message, HttpResponseStatus status, String code, String reason) {
    refused = true;
    ReferenceCountUtil.release(message);
    byte[] body = ApiErrors.errorBody(code, reason, Map.of()).getBytes();
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
    response.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, ApiJson.CONTENT_TYPE)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    ctx.channel().writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
  }
}
