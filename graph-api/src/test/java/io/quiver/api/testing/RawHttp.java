package io.quiver.api.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Sends bytes to the server exactly as given — no client library in between to fix them up — and
 * reads what comes back until the server closes the connection or a quiet second passes.
 */
public final class RawHttp {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private RawHttp() {}

  /** An answer as received: its status, its raw head, and its body (parsed when it is JSON). */
  public record Answer(int status, String head, String body) {
    public JsonNode json() {
      try {
        return MAPPER.readTree(body);
      } catch (IOException notJson) {
        throw new AssertionError("the body is not JSON: " + body, notJson);
      }
    }

    public boolean isJsonError() {
      return head.toLowerCase(Locale.ROOT).contains("content-type: application/json") && json().has("error");
    }

    public String code() {
      return json().get("error").get("code").asText();
    }

    public String message() {
      return json().get("error").get("message").asText();
    }
  }

  public static Answer send(int port, String request) {
    return send(port, request.getBytes(StandardCharsets.ISO_8859_1));
  }

  public static Answer send(int port, byte[] request) {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(1000);
      OutputStream out = socket.getOutputStream();
      out.write(request);
      out.flush();
      return read(socket.getInputStream());
    } catch (IOException e) {
      throw new AssertionError("could not talk to the server", e);
    }
  }

  /** A request with a JSON-ish body and the headers every request needs. */
  public static byte[] request(String method, String path, String contentType, byte[] body) {
    StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: localhost\r\n");
    if (contentType != null) {
      head.append("Content-Type: ").append(contentType).append("\r\n");
    }
    head.append("Content-Length: ").append(body.length).append("\r\nConnection: close\r\n\r\n");
    byte[] headBytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
    byte[] all = new byte[headBytes.length + body.length];
    System.arraycopy(headBytes, 0, all, 0, headBytes.length);
    System.arraycopy(body, 0, all, headBytes.length, body.length);
    return all;
  }

  private static Answer read(InputStream in) throws IOException {
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    try {
      for (int n; (n = in.read(buffer)) >= 0; ) {
        received.write(buffer, 0, n);
        if (complete(received.toString(StandardCharsets.UTF_8))) {
          break;
        }
      }
    } catch (SocketTimeoutException quiet) {
      // what arrived is the answer
    }
    String text = received.toString(StandardCharsets.UTF_8);
    int split = text.indexOf("\r\n\r\n");
    if (split < 0) {
      return new Answer(0, text, "");
    }
    String head = text.substring(0, split);
    int status = Integer.parseInt(head.substring(9, 12));
    return new Answer(status, head, text.substring(split + 4));
  }

  /** Whether a response with a Content-Length has all of its body. */
  private static boolean complete(String text) {
    int split = text.indexOf("\r\n\r\n");
    if (split < 0) {
      return false;
    }
    String head = text.substring(0, split).toLowerCase(Locale.ROOT);
    int at = head.indexOf("content-length:");
    if (at < 0) {
      return false;
    }
    int end = head.indexOf("\r\n", at);
    int length = Integer.parseInt(head.substring(at + "content-length:".length(), end < 0 ? head.length() : end).trim());
    return text.length() - split - 4 >= length;
  }
}
