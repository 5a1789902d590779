package io.quiver.benchmarks.workload;

import io.quiver.dev.DevStack;
import io.quiver.store.shard.ShardMapJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * The baselines' servers in JVMs of their own ({@link ServerProcess}):
 * {@code ServerMain jdbc-http PORT MAP_FILE CONNECTIONS}, {@code ServerMain lookaside PORT MAP_FILE
 * CONNECTIONS REDIS_PORT}, {@code ServerMain bare PORT}. Serves until the process is told to stop.
 */
public final class ServerMain {
  private ServerMain() {}

  public static void main(String[] args) throws Exception {
    String kind = args[0];
    int port = Integer.parseInt(args[1]);
    AutoCloseable server = switch (kind) {
      case "bare" -> new BareServer(port);
      case "jdbc-http", "lookaside" -> new JdbcHttpServer(port,
          ShardMapJson.parse(Files.readAllBytes(Path.of(args[2]))), DevStack.exampleSchema(), Integer.parseInt(args[3]),
          kind.equals("lookaside") ? Integer.valueOf(args[4]) : null);
      default -> throw new IllegalArgumentException("unknown server " + kind);
    };
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        server.close();
      } catch (Exception e) {
        e.printStackTrace();
      }
      stopped.countDown();
    }));
    System.out.println(kind + " serving on " + port);
    stopped.await();
  }
}
