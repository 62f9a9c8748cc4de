package org.openxet.gates;

import org.openxet.http.RawHttp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * One-at-a-time GETs of reconstruction answers, timed to the body's last byte. {@code raw} (the default) is
 * {@link RawHttp} on one keep-alive socket; {@code jdk} is {@code java.net.http} reading the body as a stream, kept to
 * show what the client itself costs.
 */
interface GetClient extends AutoCloseable {
    RawHttp.Response get(String path, String range, ByteArrayOutputStream keep) throws IOException, InterruptedException;

    @Override
    void close();

    static GetClient open(String kind, String host, int port, String token) throws IOException {
        return switch (kind) {
            case "raw" -> new Raw(host, port, token);
            case "jdk" -> new Jdk(host, port, token);
            default -> throw new IllegalArgumentException("--client is raw or jdk, not " + kind);
        };
    }

    final class Raw implements GetClient {
        private final String host;
        private final int port;
        private final String token;
        private RawHttp http;

        Raw(String host, int port, String token) throws IOException {
            this.host = host;
            this.port = port;
            this.token = token;
            this.http = new RawHttp(host, port);
        }

        @Override
        public RawHttp.Response get(String path, String range, ByteArrayOutputStream keep) throws IOException {
            if (!http.isOpen()) {
                http = new RawHttp(host, port);
            }
            return http.exchange(RawHttp.get(host, port, path, token, range), keep);
        }

        @Override
        public void close() {
            http.close();
        }
    }

    final class Jdk implements GetClient {
        private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        private final String base;
        private final String token;
        private final byte[] sink = new byte[256 * 1024];

        Jdk(String host, int port, String token) {
            this.base = "http://" + host + ":" + port;
            this.token = token;
        }

        @Override
        public RawHttp.Response get(String path, String range, ByteArrayOutputStream keep)
                throws IOException, InterruptedException {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + token)
                    .timeout(Duration.ofSeconds(60)).GET();
            if (range != null) b.header("Range", range);
            long sent = System.nanoTime();
            HttpResponse<InputStream> r = client.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            long first = System.nanoTime();
            long n = 0;
            try (InputStream in = r.body()) {
                for (int k; (k = in.read(sink)) >= 0; ) {
                    if (keep != null) keep.write(sink, 0, k);
                    n += k;
                }
            }
            return new RawHttp.Response(r.statusCode(), n, sent, first, System.nanoTime());
        }

        @Override
        public void close() {
            client.close();
        }
    }
}
