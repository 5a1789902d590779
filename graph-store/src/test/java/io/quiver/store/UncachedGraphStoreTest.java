package io.quiver.store;

import io.quiver.store.testing.StoreFixture;

/** The contract, against the store as the backend builds it: every read goes to MySQL. */
class UncachedGraphStoreTest extends GraphStoreContractTest {
  @Override
  protected GraphStore open(StoreFixture fixture) {
    return fixture.store;
  }
}
