package org.openxet.http;

import org.junit.jupiter.api.Test;
import org.openxet.service.Access;
import org.openxet.testing.TestServer;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A browser page's calls, as its browser makes them: the preflight, then the call with its Origin header. */
class CorsTest {
    private static final String PAGE = "https://app.example.org";

    private static HttpResponse<String> preflight(TestServer s, String path, String method) throws Exception {
        return s.send(s.request(path, null).method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                .header("Origin", PAGE).header("Access-Control-Request-Method", method)
                .header("Access-Control-Request-Headers", "authorization, x-xet-session-id").build());
    }

    private static HttpResponse<String> fromPage(TestServer s, String path, String token) throws Exception {
        return s.send(s.request(path, token).header("Origin", PAGE).GET().build());
    }

    @Test
    void byDefaultAnyPageMayCallWithItsToken() throws Exception {
        try (TestServer s = new TestServer()) {
            HttpResponse<String> pre = preflight(s, "/v1/xorbs/default/" + "0".repeat(64), "POST");
            assertEquals(204, pre.statusCode());
            assertEquals("*", pre.headers().firstValue("access-control-allow-origin").orElseThrow());
            assertTrue(pre.headers().firstValue("access-control-allow-methods").orElseThrow().contains("POST"));
            assertEquals("authorization, x-xet-session-id",
                    pre.headers().firstValue("access-control-allow-headers").orElseThrow());
            assertEquals("", pre.body());

            HttpResponse<String> missing = fromPage(s, "/v2/reconstructions/" + "0".repeat(64),
                    s.token("user/repo", Access.READ));
            assertEquals(404, missing.statusCode());
            assertEquals("*", missing.headers().firstValue("access-control-allow-origin").orElseThrow());
            String exposed = missing.headers().firstValue("access-control-expose-headers").orElseThrow();
            for (String h : List.of("Content-Range", "X-Error-Message", "X-Xet-Hash", "X-Linked-Size", "Link")) {
                assertTrue(exposed.contains(h), exposed);
            }
            // No Origin, no CORS headers: a non-browser client sees the answers it always saw.
            assertFalse(s.get("/health", null).headers().firstValue("access-control-allow-origin").isPresent());
            // An OPTIONS that is no preflight is still a JSON 404 (the clients' v2-to-v1 fallback reads 404s).
            HttpResponse<String> options = s.send(s.request("/v2/shards", null)
                    .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).build());
            assertEquals(404, options.statusCode());
        }
    }

    @Test
    void aListAllowsItsOriginsOnlyAndAnEmptyOneNone() throws Exception {
        try (TestServer s = new TestServer(c -> c.withCorsOrigins(List.of("https://other.example.org", PAGE)))) {
            HttpResponse<String> pre = preflight(s, "/v2/reconstructions/" + "0".repeat(64), "GET");
            assertEquals(204, pre.statusCode());
            assertEquals(PAGE, pre.headers().firstValue("access-control-allow-origin").orElseThrow());
            assertEquals("Origin", pre.headers().firstValue("vary").orElseThrow());
            HttpResponse<String> stranger = s.send(s.request("/health", null).header("Origin", "https://evil.example")
                    .GET().build());
            assertEquals(200, stranger.statusCode());
            assertFalse(stranger.headers().firstValue("access-control-allow-origin").isPresent());
            HttpResponse<String> strangerPre = s.send(s.request("/health", null)
                    .method("OPTIONS", HttpRequest.BodyPublishers.noBody()).header("Origin", "https://evil.example")
                    .header("Access-Control-Request-Method", "GET").build());
            assertEquals(404, strangerPre.statusCode());
        }
        try (TestServer s = new TestServer(c -> c.withCorsOrigins(List.of()))) {
            assertEquals(404, preflight(s, "/health", "GET").statusCode());
            assertFalse(fromPage(s, "/health", null).headers().firstValue("access-control-allow-origin").isPresent());
        }
    }
}
