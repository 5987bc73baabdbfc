package mosaic;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.common.settings.Settings;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.painless.PainlessPlugin;
import org.opensearch.index.reindex.ReindexPlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.transport.Netty4Plugin;

/**
 * A throw-away OpenSearch node for the integration tests (tests/support/services/opensearch.ts starts it).
 *
 * <p>Usage: {@code TestOpenSearch <http port> <transport port> <work dir>}. Prints {@code READY
 * http://127.0.0.1:<port>} once the node has started (the caller then waits for the cluster to be
 * usable over HTTP), and stops when stdin closes (the parent died or let go) or on SIGTERM.
 *
 * <p>A packaged OpenSearch loads plugins from its plugins folder; here they are classes on the class
 * path, which only {@link Node}'s protected constructor accepts, hence the subclass.
 */
public final class TestOpenSearch {
  private TestOpenSearch() {}

  private static final class ClasspathPluginsNode extends Node {
    ClasspathPluginsNode(Settings settings, Collection<Class<? extends Plugin>> plugins) {
      super(InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> "mosaic-test"), plugins, true);
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: TestOpenSearch <http port> <transport port> <work dir>");
      System.exit(2);
    }
    int httpPort = Integer.parseInt(args[0]);
    int transportPort = Integer.parseInt(args[1]);
    Path workDir = Path.of(args[2]).toAbsolutePath();

    Settings settings =
        Settings.builder()
            .put("cluster.name", "mosaic-test")
            .put("node.name", "mosaic-test")
            .put("path.home", workDir.toString())
            .put("path.data", workDir.resolve("data").toString())
            .put("path.logs", workDir.resolve("logs").toString())
            // One node, loopback only: no cluster formation, nothing reachable from outside.
            .put("discovery.type", "single-node")
            .put("network.host", "127.0.0.1")
            .put("http.port", httpPort)
            .put("transport.port", transportPort)
            // A nearly full test disk must not turn the indexes read-only mid-test.
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .build();

    // k-NN is not a Maven dependency (Central has it only as a plugin zip, unpacked into target/knn
    // at package time), so it is on the run-time class path only and is named here.
    Class<? extends Plugin> knn = Class.forName("org.opensearch.knn.plugin.KNNPlugin").asSubclass(Plugin.class);
    List<Class<? extends Plugin>> plugins = List.of(Netty4Plugin.class, CommonAnalysisPlugin.class, ReindexPlugin.class, PainlessPlugin.class, knn);
    Node node = new ClasspathPluginsNode(settings, plugins);

    AtomicBoolean closed = new AtomicBoolean(false);
    Runnable close =
        () -> {
          if (!closed.compareAndSet(false, true)) return;
          try {
            node.close();
            node.awaitClose(20, TimeUnit.SECONDS);
          } catch (IOException | InterruptedException e) {
            // Stopping anyway: the data directory is thrown away.
          }
        };
    Runtime.getRuntime().addShutdownHook(new Thread(close, "opensearch-shutdown"));

    node.start();
    System.out.println("READY http://127.0.0.1:" + httpPort);
    System.out.flush();

    waitForEndOfInput(System.in);
    close.run();
    System.exit(0);
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
