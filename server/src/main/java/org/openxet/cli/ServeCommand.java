package org.openxet.cli;

import io.helidon.logging.common.LogConfig;
import io.helidon.webserver.WebServer;
import org.openxet.http.OpenxetServer;
import org.openxet.http.WarmUp;
import org.openxet.service.DataDirLock;
import org.openxet.service.Recovery;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.storage.IndexException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sun.misc.Signal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code openxet serve}: run the CAS server (index and blobs under the data dir, or in PostgreSQL and an S3 bucket
 * that several nodes share).
 */
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
        ServerConfig cfg;
        try {
            cfg = ServerConfig.load(config);
        } catch (IllegalArgumentException e) {
            return fail(2, "bad configuration: " + e.getMessage());
        }
        if (port != null) {
            if (port < 0 || port > 65535) return fail(2, "--port must be between 0 and 65535, got " + port);
            cfg = cfg.withPort(port);
        }
        if (host != null) cfg = cfg.withHost(host);
        if (data != null) cfg = cfg.withDataDir(data);
        if (publicUrl != null) cfg = cfg.withPublicUrl(publicUrl);
        Path dataDir = cfg.dataDir().toAbsolutePath();
        cfg = cfg.withDataDir(dataDir);

        DataDirLock lock;
        Services services;
        try {
            lock = DataDirLock.acquire(dataDir);
        } catch (DataDirLock.InUse e) {
            return fail(1, e.getMessage());
        } catch (IOException e) {
            return fail(2, "cannot use data dir " + dataDir + ": " + Main.describe(e));
        }
        try {
            services = Services.open(cfg);
        } catch (IOException | IndexException e) {
            lock.close();
            // Shared storage's messages name the database or bucket and why it is unusable.
            boolean embedded = cfg.storage().bucketUrl().isEmpty() && cfg.storage().indexUrl().isEmpty();
            return fail(2, "cannot open " + (embedded ? "data dir " + dataDir : "storage")
                    + ": " + Main.describe(e));
        }
        boolean unclean = Recovery.begin(dataDir);
        if (unclean && services.bucket().shared()) {
            // Reconciling would list the whole shared bucket and then keep every unregistered object anyway (they may
            // be other nodes' uploads in flight), and a crash cannot leave a row without its object: skip the scan.
            System.out.println("openxet: the previous run did not stop cleanly; the bucket is shared, so objects of "
                    + "uploads it never acknowledged stay in it (nothing else to reconcile)");
        } else if (unclean) {
            System.out.println("openxet: the previous run did not stop cleanly; reconciling bucket and index");
            Recovery.reconcile(services.index(), services.bucket());
        }
        // A bucket from before the registration records gets them, once, while the index can say them.
        long backfilled = services.registrations().backfill(services.index());
        if (backfilled > 0) {
            System.out.println("openxet: wrote " + backfilled + " registration records to the bucket (once, for"
                    + " `openxet index rebuild`)");
        }
        // Not ready until the warm-up is done: a balancer polling /ready from the first moment waits for it.
        java.time.Duration warmup = cfg.warmupDuration();
        boolean warming = !warmup.isZero() || !cfg.indexPreload().isZero();
        if (warming) services.readiness().warmingUp();
        WebServer server = OpenxetServer.start(services);
        if (!server.isRunning()) {
            // Helidon has logged why (an address in use, an unknown host); nothing was served, so the stop is clean.
            services.close();
            Recovery.endCleanly(dataDir);
            lock.close();
            return fail(1, "cannot listen on " + cfg.host() + ":" + cfg.port() + " (see the error above; is the port in use?)");
        }
        // A listener that dies under us (out of file descriptors) exits the process for a supervisor to restart.
        OpenxetServer.exitWhenListenerStops(server, cfg.host(), services.readiness()::draining);
        final ServerConfig running = cfg;
        AtomicBoolean closed = new AtomicBoolean();
        Runnable close = () -> {
            if (!closed.compareAndSet(false, true)) return;
            server.stop();
            services.close();
            try {
                Recovery.endCleanly(running.dataDir());
                lock.close();
            } catch (java.io.IOException ignored) {
                // the next start reconciles: safe, just slower
            }
        };
        // SIGTERM and SIGINT drain, then exit 0 (a service manager's stop is a success, not "killed by a signal"):
        // /ready answers 503 from the first moment, the listener stops accepting, requests in flight get
        // shutdown.grace to finish, then storage closes. Any other exit (System.exit) still closes through the hook.
        CountDownLatch stopRequested = new CountDownLatch(1);
        for (String signal : List.of("TERM", "INT")) {
            Signal.handle(new Signal(signal), s -> stopRequested.countDown());
        }
        Runtime.getRuntime().addShutdownHook(new Thread(close, "openxet-shutdown"));

        String url = "http://" + ("0.0.0.0".equals(cfg.host()) ? "127.0.0.1" : cfg.host()) + ":" + server.port();
        System.out.println("openxet " + VersionCommand.version() + " listening on " + url);
        System.out.println("  config: " + cfg.describe());
        System.out.println("  data:   " + dataDir + " (" + (cfg.storage().indexUrl().isEmpty() ? "index.sqlite, " : "")
                + (cfg.storage().bucketUrl().isEmpty() ? "bucket/" : "blobs in " + cfg.storage().bucketUrl())
                + ", secrets.properties)");
        System.out.println("  start:  " + AotCache.describe());
        storageNote(cfg.storage()).ifPresent(note -> System.out.println("  note:   " + note));
        publicUrlWarning(cfg).ifPresent(warning -> System.out.println("  warning: " + warning));
        System.out.println("  users:  ./openxet user add --data " + dataDir + " --name NAME --repos 'models/NAME/*' --write");
        System.out.println("  token:  ./openxet token --data " + dataDir + " --repo models/NAME/REPO --write");
        System.out.flush();
        if (warming) {
            // The index's pages first: a warm-up reading them from disk would warm the JIT on slow answers.
            preloadIndex(services);
            if (!warmup.isZero()) {
                WarmUp.run(server.port(), services, warmup, Math.max(4, 2 * Runtime.getRuntime().availableProcessors()));
            }
            services.readiness().warmedUp();
        }
        stopRequested.await();
        services.readiness().drain();
        System.out.println("openxet: stopping; requests in flight have " + cfg.connections().shutdownGrace().toSeconds()
                + " s to finish");
        System.out.flush();
        close.run();
        return 0;
    }

    /** One line saying what the page-cache preload did; a failure to read is that line too, and the node still starts. */
    private static void preloadIndex(Services services) {
        try {
            services.preloadIndex().ifPresent(r -> System.out.println("openxet: the index: " + r.describe()));
        } catch (IOException | RuntimeException e) {
            System.out.println("openxet: the index was not read into the page cache (" + e.getMessage() + ")");
        }
        System.out.flush();
    }

    /**
     * A shared index over a bucket of this node's own works for one node, but a second node would plan reconstructions
     * of xorbs whose bytes only the first can serve (and its recovery would report them missing): say so at start.
     */
    /**
     * Listening beyond loopback without {@code public.url}, the URLs in every answer follow the request's Host header:
     * right for a client that reached the server directly, wrong behind a proxy that rewrites Host, and a choice left
     * to the client either way.
     */
    static java.util.Optional<String> publicUrlWarning(ServerConfig cfg) {
        if (!cfg.publicUrl().isEmpty() || loopback(cfg.host())) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of("listening on " + cfg.host() + " without public.url: casUrl and signed fetch URLs"
                + " follow each request's Host header; set public.url (--public-url) to the URL clients reach");
    }

    private static boolean loopback(String host) {
        try {
            return java.net.InetAddress.getByName(host).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    static java.util.Optional<String> storageNote(ServerConfig.Storage storage) {
        if (!storage.indexUrl().isEmpty() && storage.bucketUrl().isEmpty()) {
            return java.util.Optional.of("the index is shared (index.url) but the bucket is this node's own: other "
                    + "nodes cannot serve the bytes stored here; give every node the same bucket.url");
        }
        return java.util.Optional.empty();
    }

    private static int fail(int code, String message) {
        System.err.println("openxet serve: " + message);
        return code;
    }
}
