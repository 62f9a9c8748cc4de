package org.openxet.gates;

import org.junit.jupiter.api.Test;
import org.openxet.http.RawHttp;

import java.io.ByteArrayOutputStream;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class OffHeapBodyServerTest {
    @Test
    void answersEachPathWithItsBodyOnOneKeptAliveConnection() throws Exception {
        Map<String, Long> sizes = new LinkedHashMap<>();
        sizes.put("big", 3L * 1024 * 1024 + 7);
        sizes.put("small", 5L);
        try (OffHeapBodyServer server = new OffHeapBodyServer(sizes);
             RawHttp http = new RawHttp("127.0.0.1", server.port())) {
            for (int round = 0; round < 2; round++) {
                for (var e : sizes.entrySet()) {
                    ByteArrayOutputStream body = new ByteArrayOutputStream();
                    RawHttp.Response r = http.exchange(
                            RawHttp.get("127.0.0.1", server.port(), "/floor/" + e.getKey(), "-", null), body);
                    assertEquals(200, r.status());
                    assertEquals((long) e.getValue(), r.bodyBytes());
                    assertEquals("x".repeat((int) (long) e.getValue()), body.toString());
                }
            }
        }
    }
}
