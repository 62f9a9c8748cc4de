package org.openxet.http;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.service.ReconstructionPlanner;
import org.openxet.service.ReconstructionPlanner.Plan;
import org.openxet.service.SignedUrls;
import org.openxet.storage.FileRecord;
import org.openxet.storage.SqliteIndex;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How an answer is cut into segments, checked without threads or sockets. */
class AnswerLayoutTest {
    private static final SignedUrls URLS = new SignedUrls(new byte[32], 3600, Clock.systemUTC());
    /** One expiry for every signer, so the URLs of two renderings are the same bytes. */
    private static final long EXPIRY = URLS.expiry();

    private static UrlSigner signer() {
        return new UrlSigner(URLS, "http://h", "s", EXPIRY);
    }

    @Test
    void aLargeAnswerIsRunsOfTermsThenRunsOfXorbsCoveringEachOnceInOrder(@TempDir Path dir) throws Exception {
        try (SqliteIndex index = new SqliteIndex(dir.resolve("i.sqlite"), 2)) {
            FileRecord file = LargeFileFixture.register(index, "s", 3 * AnswerLayout.XORBS_PER_SEGMENT, 16);
            Plan plan = new ReconstructionPlanner(index).plan(file, null);
            for (AnswerFormat format : AnswerFormat.values()) {
                List<AnswerLayout.Segment> segments = AnswerLayout.of(format, plan, signer()).segments();
                int term = plan.firstTerm();
                int xorb = 0;
                for (int i = 0; i < segments.size(); i++) {
                    AnswerLayout.Segment s = segments.get(i);
                    assertEquals(term, s.termsFrom(), format + " segment " + i);
                    assertEquals(s.termsFrom() == s.termsTo() ? xorb : 0, s.xorbsFrom(), format + " segment " + i);
                    assertTrue(s.termsTo() == s.termsFrom() || s.xorbsTo() == s.xorbsFrom(),
                            "a large answer's segment holds terms or xorbs, not both");
                    assertEquals(i == 0, s.opens());
                    assertEquals(i == segments.size() - 1, s.closes());
                    assertEquals(s.termsFrom() == plan.endTerm() && s.xorbsFrom() == 0, s.opensFetch());
                    assertTrue(s.capacity() <= AnswerLayout.SEGMENT_BYTES, "every segment fits a pooled buffer");
                    term = s.termsTo();
                    if (s.termsFrom() == plan.endTerm()) xorb = s.xorbsTo();
                }
                assertEquals(plan.endTerm(), term);
                assertEquals(plan.xorbOrder().length, xorb);
                assertTrue(segments.size() > LargeFileFixture.TERMS / AnswerLayout.TERMS_PER_SEGMENT + 2,
                        "more than one xorb run: " + segments.size());
            }
        }
    }

    @Test
    void segmentsRenderedInOrderAreTheSequentialAnswerAndStayWithinTheirCapacity(@TempDir Path dir) throws Exception {
        try (SqliteIndex index = new SqliteIndex(dir.resolve("i.sqlite"), 2)) {
            FileRecord file = LargeFileFixture.register(index, "s", 50, 256);
            ReconstructionPlanner planner = new ReconstructionPlanner(index);
            for (String range : new String[]{null, "bytes=12345-" + (file.size() - 54321), "bytes=777-300000"}) {
                Plan plan = planner.plan(file, RangeHeader.single(range));
                for (AnswerFormat format : AnswerFormat.values()) {
                    AnswerLayout layout = AnswerLayout.of(format, plan, signer());
                    ByteArrayOutputStream joined = new ByteArrayOutputStream();
                    for (AnswerLayout.Segment s : layout.segments()) {
                        byte[] buffer = new byte[s.capacity()];
                        JsonBytes out = new JsonBytes(buffer);
                        layout.render(s, out, signer());
                        assertSame(buffer, out.array(), "rendered within its estimate, never grown");
                        joined.write(out.array(), 0, out.length());
                    }
                    JsonBytes sequential = new JsonBytes(null, 1024);
                    if (format == AnswerFormat.V2) {
                        ReconstructionJson.writeV2(sequential, plan, signer());
                    } else {
                        ReconstructionJson.writeV1(sequential, plan, signer());
                    }
                    assertArrayEquals(sequential.toByteArray(), joined.toByteArray(), format + ", range " + range);
                    assertEquals(AnswerLayout.large(plan), layout.segments().size() > 1, format + ", range " + range);
                }
            }
        }
    }

    @Test
    void aBufferPoolMakesAtMostItsBoundAndHandsBackWhatItWasGiven() {
        BufferPool<byte[]> pool = new BufferPool<>(2, () -> new byte[8]);
        byte[] a = pool.take();
        byte[] b = pool.take();
        assertNotNull(a);
        assertNotNull(b);
        assertNull(pool.take(), "both buffers in use: the caller makes its own");
        pool.give(a);
        assertSame(a, pool.take());
        assertEquals(2, pool.made());
    }
}
