package io.quiver.api.testing;

import io.quiver.client.QuiverClient;
import java.net.URI;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Two servers over the same fleet and a Java client of each, for what one server writes or decides
 * and the other must see — its cache, its consumers, its reads. Registered on a test class
 * ({@code @RegisterExtension static final TwoServers servers = new TwoServers();}), they start
 * before its first test and stop after its last.
 */
public final class TwoServers implements BeforeAllCallback, AfterAllCallback {
  public ApiFixture first;
  public ApiFixture second;
  /** A client of {@link #first}. */
  public QuiverClient one;
  /** A client of {@link #second}. */
  public QuiverClient two;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    first = new ApiFixture();
    second = new ApiFixture();
    one = QuiverClient.create(URI.create("http://localhost:" + first.port()));
    two = QuiverClient.create(URI.create("http://localhost:" + second.port()));
  }

  @Override
  public void afterAll(ExtensionContext context) {
    one.close();
    two.close();
    first.close();
    second.close();
  }
}
