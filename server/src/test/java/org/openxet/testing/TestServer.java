package org.openxet.testing;

import io.helidon.webserver.WebServer;
import org.openxet.http.OpenxetServer;
import org.openxet.service.Access;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * A real server on a loopback port over a fresh data directory (real SQLite file, real local bucket), started through
 * the same {@link OpenxetServer} routing as {@code openxet serve}, plus a plain JDK HTTP client.
 */
public final class TestServer implements AutoCloseable {
    private final Path dataDir;
    private final Services services;
    private final WebServer server;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    public TestServer() throws Exception {
        this(c -> c);
    }

    public TestServer(UnaryOperator<ServerConfig> tweak) throws Exception {
        this(tweak, (Path) null);
    }

    /** A node holding the keys of {@code keysOf} (another node of a shared index), as an operator sets one up. */
    public TestServer(UnaryOperator<ServerConfig> tweak, TestServer keysOf) throws Exception {
        this(tweak, keysOf.dataDir());
    }

    /** A node holding the keys in the data dir {@code keysFrom} (none: fresh keys). */
    public TestServer(UnaryOperator<ServerConfig> tweak, Path keysFrom) throws Exception {
        dataDir = Files.createTempDirectory("openxet-test");
        if (keysFrom != null) {
            Files.copy(keysFrom.resolve(org.openxet.service.Secrets.FILE), dataDir.resolve(org.openxet.service.Secrets.FILE));
        }
        ServerConfig cfg = tweak.apply(ServerConfig.defaults(dataDir).withHost("127.0.0.1").withPort(0));
        services = Services.open(cfg);
        server = OpenxetServer.start(services);
    }

    public Services services() {
        return services;
    }

    public Path dataDir() {
        return dataDir;
    }

    public int port() {
        return server.port();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    public String token(String scope, Access access) {
        return services.tokens().mint(scope, access, Duration.ofHours(1));
    }

    public String writeToken() {
        return token("user/repo", Access.WRITE);
    }

    public HttpRequest.Builder request(String path, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(60));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    public HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<byte[]> sendBytes(HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }

    public HttpResponse<String> post(String path, String token, byte[] body) throws IOException, InterruptedException {
        return send(request(path, token).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build());
    }

    public HttpResponse<String> get(String path, String token) throws IOException, InterruptedException {
        return send(request(path, token).GET().build());
    }

    /** Everything stored: bucket objects and index rows, to prove a rejected request changed nothing. */
    /** Uploads a captured client scenario's xorbs, then its shards, through the real routes; each must be a 200. */
    public void uploadScenario(String scenario, String token) throws Exception {
        com.fasterxml.jackson.databind.JsonNode capture = Vectors.capture(scenario);
        for (com.fasterxml.jackson.databind.JsonNode x : capture.get("xorbs")) {
            HttpResponse<String> r = post("/v1/xorbs/default/" + x.get("xorb_hash").asText(), token,
                    Vectors.bytes(x.get("file").asText()));
            if (r.statusCode() != 200) throw new AssertionError(scenario + ": xorb answered " + r.statusCode() + " " + r.body());
        }
        for (com.fasterxml.jackson.databind.JsonNode sh : capture.get("shards")) {
            HttpResponse<String> r = post("/v1/shards", token, Vectors.bytes(sh.get("file").asText()));
            if (r.statusCode() != 200 || !r.body().matches("\\{\"result\":[01]}")) {
                throw new AssertionError(scenario + ": shard answered " + r.statusCode() + " " + r.body());
            }
        }
    }

    public Map<String, Long> storedCounts() throws Exception {
        Map<String, Long> counts = new HashMap<>(services.index().scans().rowCounts());
        counts.put("bucket.xorbs", (long) services.bucket().list("xorbs").size());
        counts.put("bucket.shards", (long) services.bucket().list("shards").size());
        return counts;
    }

    @Override
    public void close() throws IOException {
        server.stop();
        services.close();
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
