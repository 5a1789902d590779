package io.quiver.api.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.util.Map;

/** A plain HTTP client for a Quiver server on this machine, in or out of this JVM. */
public final class ApiClient implements AutoCloseable {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final Vertx vertx = Vertx.vertx();
  private final WebClient client;

  public ApiClient(int port) {
    client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("localhost").setDefaultPort(port));
  }

  /** An HTTP answer: status, headers, and the body parsed as JSON (null when empty). */
  public record Answer(int status, MultiMap headers, JsonNode body, String text) {
    public String id() {
      return body.get("id").asText();
    }
  }

  public Answer call(HttpMethod method, String path) {
    return call(method, path, null, Map.of());
  }

  public Answer call(HttpMethod method, String path, String body) {
    return call(method, path, body, Map.of());
  }

  public Answer call(HttpMethod method, String path, String body, Map<String, String> headers) {
    return send(method, path, body == null ? null : Buffer.buffer(body), headers);
  }

  public Answer send(HttpMethod method, String path, Buffer body, Map<String, String> headers) {
    return answer(method, path, request(method, path, body, headers).await());
  }

  /** The same call without waiting for it, for load. */
  public Future<Answer> callAsync(HttpMethod method, String path, String body) {
    return request(method, path, body == null ? null : Buffer.buffer(body), Map.of())
        .map(response -> answer(method, path, response));
  }

  private Future<HttpResponse<Buffer>> request(HttpMethod method, String path, Buffer body, Map<String, String> headers) {
    HttpRequest<Buffer> request = client.request(method, path);
    if (body != null) {
      request.putHeader("Content-Type", "application/json");
    }
    headers.forEach(request::putHeader);
    return body == null ? request.send() : request.sendBuffer(body);
  }

  private static Answer answer(HttpMethod method, String path, HttpResponse<Buffer> response) {
    String text = response.bodyAsString();
    JsonNode json = null;
    boolean isJson = String.valueOf(response.getHeader("Content-Type")).startsWith("application/json");
    if (text != null && !text.isEmpty() && isJson) {
      try {
        json = MAPPER.readTree(text);
      } catch (Exception notJson) {
        throw new AssertionError(method + " " + path + " answered " + response.statusCode() + " with broken JSON: " + text);
      }
    }
    return new Answer(response.statusCode(), response.headers(), json, text);
  }

  @Override
  public void close() {
    client.close();
    vertx.close().await();
  }
}
