package mosaic;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;

/**
 * A throw-away Neo4j for the integration tests (tests/support/services/neo4j.ts starts it).
 *
 * <p>Usage: {@code TestNeo4j <bolt port> <work dir> <plugins dir>}; with NEO4J_TEST_PASSWORD set,
 * authentication is on and user neo4j has that password, so tests can also see refused credentials.
 * Prints {@code READY bolt://127.0.0.1:<port>} once Bolt accepts connections, and stops when stdin
 * closes (the parent died or let go) or on SIGTERM.
 */
public final class TestNeo4j {
  private TestNeo4j() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: TestNeo4j <bolt port> <work dir> <plugins dir>");
      System.exit(2);
    }
    int port = Integer.parseInt(args[0]);
    Path workDir = Path.of(args[1]);
    Path pluginDir = Path.of(args[2]);
    String password = System.getenv("NEO4J_TEST_PASSWORD");
    boolean auth = password != null && !password.isEmpty();

    Neo4j neo4j =
        Neo4jBuilders.newInProcessBuilder(workDir)
            // Bolt only: the tests talk to Neo4j the way the application does.
            .withDisabledServer()
            .withConfig(BoltConnector.enabled, true)
            .withConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
            .withConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
            .withConfig(GraphDatabaseSettings.auth_enabled, auth)
            .withConfig(GraphDatabaseSettings.plugin_dir, pluginDir.toAbsolutePath())
            // Bounded memory, as a deployment should be (README, deploy/): a transaction past its share is
            // stopped with Neo.TransientError.General.MemoryPoolOutOfMemoryError instead of exhausting the
            // heap and ending the server (the JVM exits on OutOfMemoryError). Heap 512 MB (neo4j.ts).
            .withConfig(GraphDatabaseSettings.memory_transaction_max_size, megabytes("NEO4J_TEST_TX_MEMORY_MB", 128))
            .withConfig(GraphDatabaseSettings.memory_transaction_global_max_size, megabytes("NEO4J_TEST_TX_TOTAL_MEMORY_MB", 256))
            // Small graphs only: keep the page cache and transaction logs small.
            .withConfig(GraphDatabaseSettings.pagecache_memory, 64L * 1024 * 1024)
            .withConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
            // The data is thrown away on stop: do not wait ~10 s for Bolt's threads to wind down.
            .withConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofMillis(200))
            .withConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofMillis(200))
            .build();

    if (auth) {
      // Embedded access to the system database is not subject to authentication.
      neo4j
          .databaseManagementService()
          .database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME)
          .executeTransactionally(
              "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", Map.of("password", password));
    }

    AtomicBoolean closed = new AtomicBoolean(false);
    Runnable close =
        () -> {
          if (closed.compareAndSet(false, true)) neo4j.close();
        };
    Runtime.getRuntime().addShutdownHook(new Thread(close, "neo4j-shutdown"));

    System.out.println("READY " + neo4j.boltURI());
    System.out.flush();

    waitForEndOfInput(System.in);
    close.run();
    System.exit(0);
  }

  private static long megabytes(String variable, long fallback) {
    String value = System.getenv(variable);
    long mb = value == null || value.isEmpty() ? fallback : Long.parseLong(value);
    return mb * 1024L * 1024L;
  }

  private static void waitForEndOfInput(InputStream in) {
    byte[] buffer = new byte[256];
    try {
      while (in.read(buffer) >= 0) {
        // Discard: only the end of the stream matters.
      }
    } catch (IOException e) {
      // A broken pipe means the parent is gone: stop as well.
    }
  }
}
