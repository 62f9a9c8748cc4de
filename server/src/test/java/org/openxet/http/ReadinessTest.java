package org.openxet.http;

import org.junit.jupiter.api.Test;
import org.openxet.service.ServerConfig;
import org.openxet.testing.PostgresServer;
import org.openxet.testing.S3Server;
import org.openxet.testing.TestServer;

import java.net.http.HttpResponse;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code GET /ready} tells a load balancer whether to send this node traffic: 200 while its index and bucket answer,
 * 503 with a JSON reason within seconds of either going away (PostgreSQL really stopped, s3proxy really killed), and
 * 200 again once it is back. {@code /health} stays a liveness check.
 */
class ReadinessTest {
    /** Polls {@code /ready} until it answers {@code status}, for at most {@code within}; returns that answer. */
    private static HttpResponse<String> awaitReady(TestServer s, int status, Duration within) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        HttpResponse<String> r;
        do {
            r = s.get("/ready", null);
            if (r.statusCode() == status) return r;
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("/ready still answers " + r.statusCode() + " " + r.body() + " after " + within);
    }

    @Test
    void aNodeWhosePostgresIsStoppedIsNotReadyUntilItIsBack() throws Exception {
        PostgresServer pg = PostgresServer.get();
        String url = pg.createDatabase("readiness");
        try (TestServer s = new TestServer(c -> c.withStorage(new ServerConfig.Storage(url, "", "", "us-east-1")))) {
            HttpResponse<String> ready = s.get("/ready", null);
            assertEquals(200, ready.statusCode(), ready.body());
            assertEquals("{\"status\":\"ready\"}", ready.body());
            try (PostgresServer.Outage outage = pg.outage(PostgresServer.databaseOf(url))) {
                long t0 = System.nanoTime();
                HttpResponse<String> down = awaitReady(s, 503, Duration.ofSeconds(10));
                assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos(), "noticed within seconds");
                // Refused at once, or still trying to connect when the answer's 2 s are up.
                assertTrue(down.body().equals("{\"error\":\"not_ready\",\"message\":\"the index does not answer\"}")
                        || down.body().equals("{\"error\":\"not_ready\",\"message\":\"the index did not answer within"
                        + " 2 s\"}"), down.body());
                assertEquals("1", down.headers().firstValue("Retry-After").orElse(""));
                // Many polls while it is down: each waits at most the probe's deadline, none piles up.
                for (int i = 0; i < 20; i++) {
                    long t = System.nanoTime();
                    assertEquals(503, s.get("/ready", null).statusCode());
                    assertTrue(System.nanoTime() - t < Duration.ofSeconds(3).toNanos(), "a poll is bounded");
                }
            }
            assertEquals("{\"status\":\"ready\"}", awaitReady(s, 200, Duration.ofSeconds(30)).body());
        }
    }

    @Test
    void aDrainingNodeIsNotReadyButStillAlive() throws Exception {
        try (TestServer s = new TestServer()) {
            assertEquals(200, s.get("/ready", null).statusCode());
            s.services().readiness().drain();
            HttpResponse<String> r = s.get("/ready", null);
            assertEquals(503, r.statusCode());
            assertEquals("{\"error\":\"not_ready\",\"message\":\"draining: the server is stopping\"}", r.body());
            assertEquals(200, s.get("/health", null).statusCode());
        }
    }

    @Test
    void aNodeWhoseObjectStoreIsGoneIsNotReady() throws Exception {
        S3Server s3 = S3Server.start();
        boolean closed = false;
        try (TestServer s = new TestServer(c -> c.withStorage(s3.storage("s3://" + s3.createBucket())))) {
            assertEquals(200, s.get("/ready", null).statusCode());
            s3.close();
            closed = true;
            HttpResponse<String> down = awaitReady(s, 503, Duration.ofSeconds(10));
            assertTrue(down.body().equals("{\"error\":\"not_ready\",\"message\":\"the bucket does not answer\"}")
                    || down.body().equals("{\"error\":\"not_ready\",\"message\":\"the bucket did not answer within"
                    + " 2 s\"}"), down.body());
            assertEquals(200, s.get("/health", null).statusCode(), "still alive: only not ready");
        } finally {
            if (!closed) s3.close();
        }
    }
}
