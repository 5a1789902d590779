package io.quiver.api.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * The command line's way to a running server: JSON in, JSON out, the admin token as a bearer
 * token, blocking (a command does one thing at a time). Every answer that is not a 2xx becomes a
 * {@link CommandFailure} carrying the server's own one-sentence message; a refused token exits 2,
 * as a usage error does, so scripts tell "fix your call" from "the fleet failed".
 */
final class AdminHttp implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

  private final URI server;
  private final String token;
  private final HttpClient http;

  AdminHttp(URI server, String token) {
    String text = server.toString();
    this.server = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
    this.token = token;
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).version(HttpClient.Version.HTTP_1_1)
        .build();
  }

  JsonNode get(String path) {
    return call("GET", path, null, null);
  }

  JsonNode post(String path, JsonNode body) {
    return post(path, body, null);
  }

  /** A POST made only against version {@code ifVersion} of what it changes ({@code If-Match}); null for any. */
  JsonNode post(String path, JsonNode body, Long ifVersion) {
    return call("POST", path, body, ifVersion);
  }

  JsonNode put(String path, JsonNode body) {
    return call("PUT", path, body, null);
  }

  /** A call whose answer is NDJSON, one line handed on as it arrives (a repair's progress); answers the last. */
  JsonNode stream(String method, String path, Consumer<JsonNode> line) {
    return stream(method, path, null, line);
  }

  /** As {@link #stream(String, String, Consumer)}, sending {@code body}. */
  JsonNode stream(String method, String path, JsonNode body, Consumer<JsonNode> line) {
    HttpResponse<InputStream> response =
        send(request(method, path, body, null).build(), HttpResponse.BodyHandlers.ofInputStream());
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
      if (response.statusCode() / 100 != 2) {
        throw refusal(response.statusCode(), readTree(lines.lines().reduce("", String::concat)));
      }
      JsonNode last = null;
      for (String text = lines.readLine(); text != null; text = lines.readLine()) {
        if (!text.isBlank()) {
          last = readTree(text);
          line.accept(last);
        }
      }
      return last;
    } catch (IOException e) {
      throw new CommandFailure(1, "the answer from " + server + " broke off: " + e.getMessage());
    }
  }

  private JsonNode call(String method, String path, JsonNode body, Long ifVersion) {
    HttpResponse<String> response =
        send(request(method, path, body, ifVersion).build(), HttpResponse.BodyHandlers.ofString());
    JsonNode answer = response.body().isEmpty() ? JSON.createObjectNode() : readTree(response.body());
    if (response.statusCode() / 100 != 2) {
      throw refusal(response.statusCode(), answer);
    }
    return answer;
  }

  private HttpRequest.Builder request(String method, String path, JsonNode body, Long ifVersion) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(server + path)).timeout(CALL_TIMEOUT);
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
      throw new CommandFailure(1, "cannot reach a server at " + server + " (is it running? --server URL)");
    } catch (HttpTimeoutException late) {
      throw new CommandFailure(1, server + " did not answer within " + CALL_TIMEOUT.toSeconds() + " s");
    } catch (IOException e) {
      throw new CommandFailure(1, "calling " + server + " failed: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CommandFailure(1, "interrupted");
    }
  }

  private CommandFailure refusal(int status, JsonNode answer) {
    String message = answer.path("error").path("message").asText("");
    if (message.isEmpty()) {
      message = "the server answered " + status;
    }
    if (status == 401 || status == 403) {
      return new CommandFailure(2, message + " (give --token or set QUIVER_TOKEN)");
    }
    String rule = answer.path("error").path("details").path("rule").asText("");
    return new CommandFailure(1, (rule.isEmpty() ? "" : "rule " + rule + ": ") + message + " (" + status + " "
        + answer.path("error").path("code").asText("error") + ")");
  }

  private JsonNode readTree(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new CommandFailure(1, server + " answered something that is not JSON: "
          + text.substring(0, Math.min(120, text.length())));
    }
  }

  @Override
  public void close() {
    // java.net.http.HttpClient closes with Java 21; on 17 its threads are daemons and end with it.
  }
}
