package org.openxet.http;

import org.junit.jupiter.api.Test;
import org.openxet.service.Access;
import org.openxet.testing.LogCapture;
import org.openxet.testing.SyntheticFile;
import org.openxet.testing.TestServer;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fresh node warms itself up before it takes traffic: {@code /ready} answers 503 "warming up" while {@code /health}
 * answers 200, the warm-up reads the node's own files through its real routes for the time it is given and no longer,
 * and nothing stored changes.
 */
class WarmUpTest {
    @Test
    void aWarmingNodeIsAliveButNotReadyUntilItHasReadItsOwnFilesAndNothingStoredChanged() throws Exception {
        try (TestServer s = new TestServer()) {
            String write = s.token("models/warm/a", Access.WRITE);
            for (int i = 0; i < 6; i++) SyntheticFile.of(100 + i).upload(s, write);
            Map<String, Long> before = s.storedCounts();
            List<String> objects = s.services().bucket().list("xorbs");

            s.services().readiness().warmingUp();
            HttpResponse<String> warming = s.get("/ready", null);
            assertEquals(503, warming.statusCode());
            assertEquals("{\"error\":\"not_ready\",\"message\":\"warming up: the server is reading its index into"
                    + " memory and exercising its read path before it takes traffic\"}", warming.body());
            assertEquals("1", warming.headers().firstValue("Retry-After").orElse(""));
            assertEquals(200, s.get("/health", null).statusCode());

            long t0 = System.nanoTime();
            WarmUp.Result r = WarmUp.run(s.port(), s.services(), Duration.ofMillis(800), 4);
            long tookMs = (System.nanoTime() - t0) / 1_000_000;
            s.services().readiness().warmedUp();

            assertEquals(6, r.files(), "every file of the index was among those read");
            assertTrue(r.requests() > 20, r.describe());
            assertTrue(r.freshTokens() > r.requests() / 4, "about half with a token not seen before: " + r.describe());
            assertEquals(0, r.failed(), r.describe());
            assertNull(r.firstFailure());
            assertTrue(r.rehearsalMillis() >= 0, "an upload was rehearsed in memory: " + r.describe());
            assertTrue(tookMs >= 800 && tookMs < 800 + 1500, "bounded by its duration: " + tookMs + " ms");
            assertEquals("{\"status\":\"ready\"}", s.get("/ready", null).body());
            assertEquals(before, s.storedCounts());
            assertEquals(objects, s.services().bucket().list("xorbs"));
        }
    }

    @Test
    void anEmptyIndexWarmsUpOnRefusalsAloneAndLogsNoneOfThem() throws Exception {
        try (TestServer s = new TestServer(); LogCapture log = new LogCapture()) {
            WarmUp.Result r = WarmUp.run(s.port(), s.services(), Duration.ofMillis(300), 2);
            assertEquals(0, r.files());
            assertTrue(r.requests() > 0, r.describe());
            assertEquals(0, r.failed(), r.describe());
            assertEquals(Map.of(), nonZero(s.storedCounts()));
            assertEquals(List.of(), log.messages(Errors.LOGGER), "the warm-up's own refusals are not the log's");
            // A client's refusal after the warm-up is logged as before.
            assertEquals(404, s.get("/v2/reconstructions/" + "ab".repeat(32), s.token("models/x/y", Access.READ))
                    .statusCode());
            assertEquals(1, log.messages(Errors.LOGGER).size(), log.messages(Errors.LOGGER).toString());
        }
    }

    private static Map<String, Long> nonZero(Map<String, Long> counts) {
        Map<String, Long> m = new java.util.HashMap<>(counts);
        m.values().removeIf(v -> v == 0);
        return m;
    }
}
