package org.openxet.cli;

import io.helidon.logging.common.LogConfig;
import io.helidon.webserver.WebServer;
import org.openxet.http.OpenxetServer;
import org.openxet.service.Recovery;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Callable;

/** {@code openxet serve}: run the CAS server on the embedded defaults (SQLite + local bucket under the data dir). */
@Command(name = "serve", description = "Run the Xet CAS server.")
public final class ServeCommand implements Callable<Integer> {
    @Option(names = "--port", description = "TCP port (default 8080; 0 = any free port).")
    Integer port;

    @Option(names = "--host", description = "Interface to listen on (default 0.0.0.0).")
    String host;

    @Option(names = "--data", paramLabel = "DIR", description = "Data directory (default ./data).")
    Path data;

    @Option(names = "--config", paramLabel = "FILE", description = "YAML configuration file (keys under 'openxet').")
    Path config;

    @Option(names = "--public-url", paramLabel = "URL", description = "Base URL clients reach this server at.")
    String publicUrl;

    @Override
    public Integer call() throws Exception {
        LogConfig.configureRuntime();
        ServerConfig cfg = ServerConfig.load(config);
        if (port != null) cfg = cfg.withPort(port);
        if (host != null) cfg = cfg.withHost(host);
        if (data != null) cfg = cfg.withDataDir(data);
        if (publicUrl != null) cfg = cfg.withPublicUrl(publicUrl);
        Path dataDir = cfg.dataDir().toAbsolutePath();
        cfg = cfg.withDataDir(dataDir);

        Services services = Services.open(cfg);
        if (Recovery.begin(dataDir)) {
            System.out.println("openxet: the previous run did not stop cleanly; reconciling bucket and index");
            Recovery.reconcile(services.index(), services.bucket());
        }
        WebServer server = OpenxetServer.start(services);
        CountDownLatch stopped = new CountDownLatch(1);
        final ServerConfig running = cfg;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // SIGTERM: stop accepting, let in-flight requests finish (grace period), then close storage.
            server.stop();
            services.close();
            try {
                Recovery.endCleanly(running.dataDir());
            } catch (java.io.IOException ignored) {
                // the next start reconciles: safe, just slower
            }
            stopped.countDown();
        }, "openxet-shutdown"));

        String url = "http://" + ("0.0.0.0".equals(cfg.host()) ? "127.0.0.1" : cfg.host()) + ":" + server.port();
        System.out.println("openxet " + VersionCommand.version() + " listening on " + url);
        System.out.println("  config: " + cfg.describe());
        System.out.println("  data:   " + dataDir + " (index.sqlite, bucket/, secrets.properties)");
        System.out.println("  token:  ./openxet token --data " + dataDir + " --repo NAME --write");
        System.out.flush();
        stopped.await();
        return 0;
    }
}
