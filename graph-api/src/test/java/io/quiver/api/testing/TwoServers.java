package io.quiver.api.testing;

import io.quiver.client.QuiverClient;
import java.net.URI;

/**
 * Two servers over the same fleet and a Java client of each: for what one server writes or decides
 * and the other must see — its cache, its consumers, its reads.
 */
public final class TwoServers implements AutoCloseable {
  public final ApiFixture first;
  public final ApiFixture second;
  /** A client of {@link #first}. */
  public final QuiverClient one;
  /** A client of {@link #second}. */
  public final QuiverClient two;

  public TwoServers() throws Exception {
    first = new ApiFixture();
    second = new ApiFixture();
    one = QuiverClient.create(URI.create("http://localhost:" + first.port()));
    two = QuiverClient.create(URI.create("http://localhost:" + second.port()));
  }

  @Override
  public void close() {
    one.close();
    two.close();
    first.close();
    second.close();
  }
}
