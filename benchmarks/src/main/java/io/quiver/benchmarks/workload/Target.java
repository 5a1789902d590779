package io.quiver.benchmarks.workload;

import io.vertx.core.Future;

/** Something the driver sends operations to; answers the outcome's status (HTTP-like). */
interface Target extends AutoCloseable {
  String name();

  Future<Integer> execute(Call call);

  @Override
  default void close() {}
}
