package org.openxet.http;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The paths-info body, read as a stream: its paths, its refusals, and what a body of millions of nodes costs. */
class BucketJsonTest {
    private static List<String> paths(String body, int max) throws HttpError {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        return BucketJson.paths(b, b.length, max);
    }

    @Test
    void thePathsAreReadAndOtherMembersSkipped() throws Exception {
        assertEquals(List.of("a", "b/c.bin", "é"),
                paths("{\"x\":{\"paths\":[1]},\"paths\":[\"a\",\"b/c.bin\",\"\\u00e9\"],\"y\":[[{}]]}", 10));
        assertEquals(List.of(), paths("{\"paths\":[]}", 10));
    }

    @Test
    void aBodyOfAnotherShapeIsABadRequest() {
        for (String body : List.of("[]", "{}", "{\"paths\":\"a\"}", "{\"paths\":[1]}", "{\"paths\":[[\"a\"]]}",
                "{\"paths\":[\"a\"]} trailing", "{\"paths\":[\"a\"]", "not json", "")) {
            HttpError e = assertThrows(HttpError.class, () -> paths(body, 10), body);
            assertEquals(400, e.status(), body);
        }
        HttpError tooMany = assertThrows(HttpError.class, () -> paths("{\"paths\":[\"a\",\"b\",\"c\"]}", 2));
        assertEquals("at most 2 paths in one paths-info call", tooMany.getMessage());
    }

    /** 16 MiB of nodes, as a tree about half a gigabyte: read as a stream, a few hundred KiB whatever the shape. */
    @Test
    void millionsOfNodesCostNoMoreThanTheCapOfPaths() throws Exception {
        byte[] manyPaths = ("{\"paths\":[" + "\"a\",".repeat(4 << 20) + "\"a\"]}").getBytes(StandardCharsets.UTF_8);
        byte[] manyObjects = ("{\"x\":[" + "{},".repeat(5 << 20) + "{}],\"paths\":[\"a\"]}")
                .getBytes(StandardCharsets.UTF_8);
        long before = allocated();
        assertThrows(HttpError.class, () -> BucketJson.paths(manyPaths, manyPaths.length, 1000));
        List<String> found = BucketJson.paths(manyObjects, manyObjects.length, 1000);
        long bytes = allocated() - before;
        assertEquals(List.of("a"), found);
        assertTrue(bytes < 8L << 20, "allocated " + bytes + " bytes");
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
