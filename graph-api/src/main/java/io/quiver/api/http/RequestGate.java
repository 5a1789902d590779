package io.quiver.api.http;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Every request passes here before the router sees it, and one that could be misread further on
 * is refused with a JSON error and touches nothing.
 *
 * <ul>
 *   <li><b>Paths</b> are checked raw, as sent: the router decodes and normalizes paths before it
 *       matches them, so {@code /v1/nodes/1/edges/%2e%2e/%2e%2e/2} would otherwise reach
 *       {@code DELETE /v1/nodes/2} past any proxy rule written for edge paths. A segment that is
 *       {@code .} or {@code ..} (plain or encoded), an encoded slash or backslash, an escape that
 *       is not {@code %} and two hex digits, bytes that are not UTF-8, and control characters are
 *       refused.
 *   <li><b>Query strings</b> separate parameters by {@code &} only: a raw {@code ;} is refused
 *       rather than taken for a separator (encode it as {@code %3B}). Each route's parameters are
 *       decoded, strictly and once, by {@link QueryParams}.
 *   <li><b>Host</b>: an HTTP/1.1 request must name one (RFC 9112 §3.2).
 *   <li><b>Bodies are JSON</b>: a body declared as anything else is refused with 415 before it is
 *       read, so no form or multipart decoder ever runs on it. A body without a Content-Type is
 *       read as JSON.
 * </ul>
 */
public final class RequestGate implements Handler<HttpServerRequest> {
  private final Handler<HttpServerRequest> next;

  public RequestGate(Handler<HttpServerRequest> next) {
    this.next = next;
  }

  @Override
  public void handle(HttpServerRequest request) {
    Refusal refusal = check(request);
    if (refusal == null) {
      next.handle(request);
    } else {
      ApiErrors.refuse(request, refusal.status(), refusal.code(), refusal.message());
    }
  }

  /** Why a request is refused: status, error code, and one sentence. */
  record Refusal(int status, String code, String message) {
    static Refusal invalid(String message) {
      return new Refusal(400, "invalid_request", message);
    }
  }

  static Refusal check(HttpServerRequest request) {
    if (request.version() == null) {
      return new Refusal(505, "not_implemented", "this server speaks HTTP/1.0 and HTTP/1.1");
    }
    if (request.version() == HttpVersion.HTTP_1_1 && request.headers().get(HttpHeaders.HOST) == null) {
      return Refusal.invalid("the request has no Host header");
    }
    String uri = request.uri();
    int question = uri.indexOf('?');
    String path = question < 0 ? uri : uri.substring(0, question);
    String pathProblem = pathProblem(path);
    if (pathProblem != null) {
      return Refusal.invalid("the path " + pathProblem);
    }
    if (question >= 0) {
      String queryProblem = queryProblem(uri.substring(question + 1));
      if (queryProblem != null) {
        return Refusal.invalid("the query string " + queryProblem);
      }
    }
    return bodyTypeProblem(request);
  }

  /** What is wrong with a raw path, or null. Its segments are checked where they lie, without splitting it. */
  static String pathProblem(String path) {
    if (!path.startsWith("/")) {
      return "must start with '/'";
    }
    for (int start = 1; start <= path.length(); ) {
      int end = path.indexOf('/', start);
      if (end < 0) {
        end = path.length();
      }
      String problem = segmentProblem(path, start, end);
      if (problem != null) {
        return problem;
      }
      start = end + 1;
    }
    return null;
  }

  /**
   * The ASCII characters a segment's check passes over: all but controls, {@code %} and the
   * backslash. A lookup per character, where the three tests it stands for were 3.7 % of a cached
   * read's CPU in a profile of {@code ./bench hot}.
   */
  private static final boolean[] PLAIN = new boolean[0x80];

  static {
    for (char c = 0x20; c < 0x7f; c++) {
      PLAIN[c] = c != '%' && c != '\\';
    }
  }

  /**
   * What is wrong with the segment {@code path[start, end)}, or null. Most segments are plain
   * ASCII without an escape, checked char by char in place; any other is decoded first.
   */
  private static String segmentProblem(String path, int start, int end) {
    boolean backslash = false;
    for (int i = start; i < end; i++) {
      char c = path.charAt(i);
      if (c < PLAIN.length && PLAIN[c]) {
        continue;
      }
      if (c == '%' || c >= 0x80) {
        return decodedSegmentProblem(path.substring(start, end));
      }
      if (Character.isISOControl(c)) {
        return "holds a control character";
      }
      backslash |= c == '\\';
    }
    int length = end - start;
    boolean dotSegment = (length == 1 || length == 2) && path.charAt(start) == '.' && path.charAt(end - 1) == '.';
    return dotSegment || backslash ? shapeProblem(dotSegment, path.substring(start, end)) : null;
  }

  /** What is wrong with a segment that holds an escape or a byte beyond ASCII, once decoded; or null. */
  private static String decodedSegmentProblem(String segment) {
    String decoded;
    try {
      decoded = decode(segment);
    } catch (IllegalArgumentException malformed) {
      return malformed.getMessage();
    }
    boolean dotSegment = decoded.equals(".") || decoded.equals("..");
    boolean slash = decoded.indexOf('/') >= 0 || decoded.indexOf('\\') >= 0;
    return dotSegment || slash ? shapeProblem(dotSegment, segment) : null;
  }

  /** A segment read as a dot-segment, or holding a slash or backslash: {@code raw} as it was sent. */
  private static String shapeProblem(boolean dotSegment, String raw) {
    return dotSegment ? "has a dot-segment ('" + raw + "'); send the path as it is meant"
        : "has an encoded slash in '" + raw + "'";
  }

  /** What is wrong with a raw query string, or null. */
  static String queryProblem(String query) {
    return query.indexOf(';') >= 0 ? "holds a ';', which is not a parameter separator here; encode it as %3B" : null;
  }

  private static Refusal bodyTypeProblem(HttpServerRequest request) {
    String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
    boolean hasBody = request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null
        || (length != null && !length.trim().equals("0"));
    String type = request.getHeader(HttpHeaders.CONTENT_TYPE);
    if (!hasBody || type == null || isJson(type)) {
      return null;
    }
    return new Refusal(415, "unsupported_media_type",
        "the body is declared as '" + type + "'; send it as application/json"
            + " (or application/x-ndjson to /v1/bulk)");
  }

  /**
   * {@code application/json}, {@code application/<something>+json} or {@code application/x-ndjson}
   * (JSON documents one per line, as a bulk import sends them), in UTF-8 if a charset is named.
   */
  static boolean isJson(String contentType) {
    String[] parts = contentType.toLowerCase(Locale.ROOT).split(";");
    String media = parts[0].trim();
    if (!media.equals("application/json") && !media.equals("application/x-ndjson")
        && !(media.startsWith("application/") && media.endsWith("+json"))) {
      return false;
    }
    for (int i = 1; i < parts.length; i++) {
      String parameter = parts[i].trim();
      if (parameter.startsWith("charset=") && !parameter.substring("charset=".length()).replace("\"", "").equals("utf-8")) {
        return false;
      }
    }
    return true;
  }

  /**
   * Percent-decodes strictly: every {@code %} is followed by two hex digits, the bytes are UTF-8
   * (no overlong forms, no surrogates, nothing past U+10FFFF), and no control character results.
   */
  static String decode(String text) {
    if (plainAscii(text)) {
      return text;
    }
    byte[] bytes = new byte[text.length() * 3];
    int length = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '%') {
        if (i + 2 >= text.length() || Character.digit(text.charAt(i + 1), 16) < 0
            || Character.digit(text.charAt(i + 2), 16) < 0) {
          throw new IllegalArgumentException("has a '%' that is not followed by two hex digits");
        }
        bytes[length++] = (byte) Integer.parseInt(text.substring(i + 1, i + 3), 16);
        i += 2;
      } else if (c < 0x100) {
        // The request line reaches us byte for byte (each byte one char): decode the raw bytes too.
        bytes[length++] = (byte) c;
      } else {
        byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        System.arraycopy(encoded, 0, bytes, length, encoded.length);
        length += encoded.length;
      }
    }
    String decoded;
    try {
      decoded = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes, 0, length))
          .toString();
    } catch (CharacterCodingException notUtf8) {
      throw new IllegalArgumentException("holds percent-encoded bytes that are not UTF-8");
    }
    for (int i = 0; i < decoded.length(); i++) {
      if (Character.isISOControl(decoded.charAt(i))) {
        throw new IllegalArgumentException("holds a control character");
      }
    }
    return decoded;
  }
  /** Whether decoding would give the text back: ASCII without a '%' (most paths and parameters). */
  private static boolean plainAscii(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '%' || c >= 0x80) {
        return false;
      }
    }
    return true;
  }

}
