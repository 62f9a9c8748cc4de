package org.openxet.testing;

import org.openxet.service.ServerConfig;
import org.openxet.storage.S3Bucket;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real S3-compatible server on loopback: s3proxy over a temp directory, run as a child JVM so that its bundled Jetty
 * and libraries stay off our test classpath, and that ends with this JVM ({@link S3ProxyMain}). Maven copies its jar into {@code target/s3proxy} (see the server pom);
 * the port is whatever the system gave it, read from its log. {@link #shared()} is the one of this test JVM;
 * {@link #start()} gives a private one a test may stop (a store outage).
 *
 * <p>Credentials reach {@link S3Bucket} the way they reach any S3 user, through the SDK's default chain: here its
 * {@code aws.accessKeyId}/{@code aws.secretAccessKey} system properties.
 */
public final class S3Server implements AutoCloseable {
    public static final String ACCESS_KEY = "openxet-test";
    public static final String SECRET_KEY = "openxet-test-secret";
    public static final String REGION = "us-east-1";
    private static final Pattern STARTED = Pattern.compile("Started .*ServerConnector.*\\{127\\.0\\.0\\.1:(\\d+)}");
    private static final AtomicInteger BUCKETS = new AtomicInteger();
    private static S3Server shared;

    private final Process process;
    private final Path dir;
    private final String endpoint;
    private final S3Client client;

    private S3Server(Process process, Path dir, String endpoint) {
        this.process = process;
        this.dir = dir;
        this.endpoint = endpoint;
        this.client = S3Client.builder().httpClient(UrlConnectionHttpClient.create()).region(Region.of(REGION))
                .endpointOverride(URI.create(endpoint)).forcePathStyle(true).build();
    }

    /** The s3proxy of this test JVM, started on first use and stopped when the JVM exits. */
    public static synchronized S3Server shared() throws IOException {
        if (shared == null) {
            S3Server s = start();
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "s3proxy-stop"));
            shared = s;
        }
        return shared;
    }

    /** A new s3proxy of its own; the caller closes it. */
    public static S3Server start() throws IOException {
        System.setProperty("aws.accessKeyId", ACCESS_KEY);
        System.setProperty("aws.secretAccessKey", SECRET_KEY);
        String jarProperty = System.getProperty("openxet.s3proxy.jar", "");
        Path jar = Path.of(jarProperty.isEmpty() ? "target/s3proxy/s3proxy.jar" : jarProperty);
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("s3proxy jar not found at " + jar.toAbsolutePath() + ": run the tests through"
                    + " Maven (./run-tests or mvn -pl server verify), whose process-test-resources phase copies"
                    + " org.gaul:s3proxy (jar-with-dependencies) there");
        }
        Path dir = Files.createTempDirectory("openxet-s3proxy");
        Path data = Files.createDirectories(dir.resolve("data"));
        Path log = dir.resolve("s3proxy.log");
        Files.writeString(dir.resolve("s3proxy.conf"), String.join("\n",
                "s3proxy.endpoint=http://127.0.0.1:0",
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + ACCESS_KEY,
                "s3proxy.credential=" + SECRET_KEY,
                "jclouds.provider=filesystem-nio2",
                "jclouds.identity=" + ACCESS_KEY,
                "jclouds.credential=" + SECRET_KEY,
                "jclouds.filesystem.basedir=" + data) + "\n");
        String classpath = jar.toAbsolutePath() + java.io.File.pathSeparator
                + Path.of(URI.create(S3ProxyMain.class.getProtectionDomain().getCodeSource().getLocation().toString()));
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-XX:+UseSerialGC", "-cp", classpath, S3ProxyMain.class.getName(),
                "--properties", dir.resolve("s3proxy.conf").toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            Matcher m = STARTED.matcher(text);
            if (m.find()) {
                return new S3Server(p, dir, "http://127.0.0.1:" + m.group(1));
            }
            if (!p.isAlive()) {
                throw new IllegalStateException("s3proxy exited with " + p.exitValue() + " before listening:\n" + tail(text));
            }
            sleep(Duration.ofMillis(50));
        }
        p.destroyForcibly();
        throw new IllegalStateException("s3proxy did not listen within 60 s:\n" + tail(Files.readString(log)));
    }

    private static String tail(String text) {
        List<String> lines = text.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public String endpoint() {
        return endpoint;
    }

    /** A raw client on this server, to look at objects behind the bucket under test. */
    public S3Client client() {
        return client;
    }

    /** Creates a bucket no other test uses and returns its name. */
    public String createBucket() {
        String name = "openxet-test-" + ProcessHandle.current().pid() + "-" + BUCKETS.incrementAndGet();
        client.createBucket(b -> b.bucket(name));
        return name;
    }

    /** Storage settings for a server on {@code bucketUrl} here (no PostgreSQL: the index stays SQLite). */
    public ServerConfig.Storage storage(String bucketUrl) {
        return new ServerConfig.Storage("", bucketUrl, endpoint, REGION);
    }

    /** Opens a fresh bucket here through the production path. */
    public S3Bucket openFreshBucket() throws IOException {
        return S3Bucket.open("s3://" + createBucket(), endpoint, REGION);
    }

    /** Stops the server (as an outage would) and removes its files. */
    @Override
    public void close() {
        client.close();
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            process.destroy();
        }
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a temp dir left behind is harmless
        }
    }
}
