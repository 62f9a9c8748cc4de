package org.openxet.gates;

import org.junit.jupiter.api.Test;
import org.openxet.http.RawHttp;

import java.io.ByteArrayOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class BytesFloorTest {
    @Test
    void answersAnySizeUpToItsLargestWithThatManyBytesOnKeptConnections() throws Exception {
        long big = 3L * 1024 * 1024 + 7; // past the first write, so the rest goes to the connection's channel
        try (BytesFloor floor = new BytesFloor(4L << 20)) {
            for (int round = 0; round < 2; round++) {
                assertEquals(big, floor.transfer(big).bodyBytes());
                assertEquals(5, floor.transfer(5).bodyBytes());
            }
            try (RawHttp http = new RawHttp("127.0.0.1", floor.port())) {
                ByteArrayOutputStream body = new ByteArrayOutputStream();
                RawHttp.Response r = http.exchange(floor.request(big), body);
                assertEquals(200, r.status());
                assertEquals("x".repeat((int) big), body.toString());
            }
        }
    }

    @Test
    void refusesASizePastItsLargest() throws Exception {
        try (BytesFloor floor = new BytesFloor(1024)) {
            assertThrows(IllegalArgumentException.class, () -> floor.transfer(1025));
        }
    }
}
