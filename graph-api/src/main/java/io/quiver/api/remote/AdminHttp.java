package io.quiver.api.remote;

import com.fasterxml.jackson.databind.JsonNode;
import io.quiver.api.http.AdminJson;
import io.quiver.api.http.ApiJson;
import io.quiver.core.GraphException;
import io.quiver.core.GraphException.Code;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * One server's admin API as blocking calls: JSON in, JSON out, the admin token as a bearer token.
 * An answer that is not a 2xx is the {@link GraphException} the server refused with (read back by
 * {@link AdminJson#refusal}); a call that got no answer at all is UNAVAILABLE and carries its I/O
 * failure as its cause, so a caller can tell "the server said no" from "no server answered".
 */
final class AdminHttp {
  private final URI server;
  private final String token;
  private final Duration callTimeout;
  private final HttpClient http;

  AdminHttp(URI server, String token, Duration callTimeout) {
    String text = server.toString();
    this.server = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
    this.token = token;
    this.callTimeout = callTimeout;
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).version(HttpClient.Version.HTTP_1_1)
        .build();
  }

  /** A call answered with one document; {@code ifVersion} ({@code If-Match}) null for any version. */
  JsonNode call(String method, String path, JsonNode body, Long ifVersion) {
    HttpResponse<String> response =
        send(request(method, path, body, ifVersion).timeout(callTimeout).build(), HttpResponse.BodyHandlers.ofString());
    JsonNode answer = response.body().isEmpty() ? ApiJson.object() : readTree(response.body());
    if (response.statusCode() / 100 != 2) {
      throw AdminJson.refusal(response.statusCode(), answer);
    }
    return answer;
  }

  /**
   * A call answered with NDJSON for as long as its work takes (a repair, a shard move): each line
   * handed on as it arrives; answers the last, which is the summary — or throws the refusal a
   * failed stream ends with. No call timeout: the work ends the answer.
   */
  JsonNode stream(String path, JsonNode body, Consumer<JsonNode> line) {
    HttpResponse<InputStream> response =
        send(request("POST", path, body, null).build(), HttpResponse.BodyHandlers.ofInputStream());
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
      if (response.statusCode() / 100 != 2) {
        throw AdminJson.refusal(response.statusCode(), readTree(lines.lines().reduce("", String::concat)));
      }
      JsonNode last = null;
      for (String text = lines.readLine(); text != null; text = lines.readLine()) {
        if (!text.isBlank()) {
          last = readTree(text);
          if (last.has("error")) {
            throw AdminJson.refusal(response.statusCode(), last);
          }
          if (!last.has("summary")) {
            line.accept(last);
          }
        }
      }
      if (last == null || !last.has("summary")) {
        throw GraphException.unavailable("the answer from " + server + " ended before its summary");
      }
      return last.get("summary");
    } catch (IOException e) {
      throw GraphException.of(Code.UNAVAILABLE, "the answer from " + server + " broke off: " + e.getMessage(), e);
    }
  }

  private HttpRequest.Builder request(String method, String path, JsonNode body, Long ifVersion) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server + path));
    if (ifVersion != null) {
      request.header("If-Match", "\"" + ifVersion + "\"");
    }
    if (token != null && !token.isBlank()) {
      request.header("Authorization", "Bearer " + token);
    }
    if (body == null) {
      return request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    return request.header("Content-Type", "application/json")
        .method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
  }

  private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    try {
      return http.send(request, handler);
    } catch (ConnectException refused) {
      throw GraphException.of(Code.UNAVAILABLE, "cannot reach a server at " + server + " (is it running? --server URL)",
          refused);
    } catch (HttpTimeoutException late) {
      throw GraphException.of(Code.UNAVAILABLE, server + " did not answer within " + callTimeout.toSeconds() + " s",
          late);
    } catch (IOException e) {
      throw GraphException.of(Code.UNAVAILABLE, "calling " + server + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw GraphException.of(Code.UNAVAILABLE, "interrupted while calling " + server, e);
    }
  }

  private JsonNode readTree(String text) {
    try {
      return ApiJson.MAPPER.readTree(text);
    } catch (IOException e) {
      throw GraphException.of(Code.INTERNAL, server + " answered something that is not JSON: "
          + text.substring(0, Math.min(120, text.length())), e);
    }
  }
}
