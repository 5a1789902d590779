package io.quiver.api.remote;

import io.quiver.api.testing.ApiFixture;
import io.quiver.fleet.AdminService;

/** The admin contract, held by the service inside a server: what its admin routes and {@code --config} tools call. */
class InProcessAdminServiceTest extends AdminServiceContractTest {
  @Override
  AdminService admin(ApiFixture fleet) {
    return fleet.server.admin();
  }

  @Override
  int firstShard() {
    return 40;
  }
}
