package org.openxet.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.service.ReconstructionPlanner;
import org.openxet.service.SignedUrls;
import org.openxet.storage.FileRecord;
import org.openxet.storage.SqliteIndex;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Clock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The multi-threaded v2 writer produces exactly the bytes of the sequential one. */
class AnswerWriterTest {
    @Test
    void parallelAnswersEqualSequentialOnesByteForByte(@TempDir Path dir) throws Exception {
        // Many ranges per xorb: ranges segments end on RANGES_PER_SEGMENT.
        check(dir, 50, 256);
    }

    @Test
    void answersOverManyXorbsEqualSequentialOnes(@TempDir Path dir) throws Exception {
        // Few ranges per xorb over more xorbs than XORBS_PER_SEGMENT: ranges segments end on the xorb count.
        check(dir, 6 * AnswerLayout.XORBS_PER_SEGMENT, 16);
    }

    private static void check(Path dir, int xorbs, int chunks) throws Exception {
        try (SqliteIndex index = new SqliteIndex(dir.resolve("i.sqlite"), 2)) {
            FileRecord file = LargeFileFixture.register(index, "s", xorbs, chunks);
            long size = file.size();
            ReconstructionPlanner planner = new ReconstructionPlanner(index);
            SignedUrls urls = new SignedUrls(new byte[32], 3600, Clock.systemUTC());
            long expiry = urls.expiry();
            // One writer for every answer, three times each: its pooled buffers come back holding an earlier answer's
            // bytes.
            AnswerWriter writer = new AnswerWriter(4);
            // The full file and a range trimming terms at both ends are large answers (streamed by several threads);
            // the short ranges are rendered whole.
            String bothEndsTrimmed = "bytes=12345-" + (size - 54321);
            for (String range : new String[]{null, bothEndsTrimmed, "bytes=12345-9000000", "bytes=-5000000", "bytes=0-0",
                    "bytes=777-300000"}) {
                ReconstructionPlanner.Plan plan = planner.plan(index.file(file.fileHash(), "s").orElseThrow(),
                        RangeHeader.single(range));
                JsonBytes sequential = new JsonBytes(null, 1024);
                ReconstructionJson.writeV2(sequential, plan, new UrlSigner(urls, "http://h", "s", expiry));
                ByteArrayOutputStream parallel = new ByteArrayOutputStream();
                for (int pass = 0; pass < 3; pass++) {
                    parallel.reset();
                    writer.write(AnswerFormat.V2, AnswerWriter.Body.of(parallel), plan, new UrlSigner(urls, "http://h", "s", expiry));
                    assertArrayEquals(sequential.toByteArray(), parallel.toByteArray(), "range " + range + ", pass " + pass);
                }
                assertEquals(range == null || range.equals(bothEndsTrimmed), AnswerLayout.large(plan), "range " + range);
                // The Content-Length is measured without rendering: it must be exact, for v2 and v1.
                assertEquals(sequential.length(), ReconstructionJson.measureV2(plan, new UrlSigner(urls, "http://h", "s", expiry)),
                        "measured length, range " + range);
                JsonBytes v1 = new JsonBytes(null, 1024);
                ReconstructionJson.writeV1(v1, plan, new UrlSigner(urls, "http://h", "s", expiry));
                assertEquals(v1.length(), ReconstructionJson.measureV1(plan, new UrlSigner(urls, "http://h", "s", expiry)),
                        "measured v1 length, range " + range);
                // The v1 answer through the same writer: the same bytes, in the same order, from its segments.
                for (int pass = 0; pass < 3; pass++) {
                    parallel.reset();
                    writer.write(AnswerFormat.V1, AnswerWriter.Body.of(parallel), plan, new UrlSigner(urls, "http://h", "s", expiry));
                    assertArrayEquals(v1.toByteArray(), parallel.toByteArray(), "v1, range " + range + ", pass " + pass);
                }
                JsonNode json = new ObjectMapper().readTree(parallel.toByteArray());
                assertEquals(plan.termCount(), json.get("terms").size());
            }
            // A client that goes away mid-answer: the write fails, the helpers stop, every permit comes back, and the
            // next answer is still exact.
            ReconstructionPlanner.Plan full = planner.plan(index.file(file.fileHash(), "s").orElseThrow(), null);
            OutputStream dropped = new OutputStream() {
                long n;

                @Override
                public void write(int b) throws IOException {
                    write(new byte[]{(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    n += len;
                    if (n > 300_000) throw new IOException("connection reset");
                }
            };
            assertThrows(IOException.class, () -> writer.write(AnswerFormat.V2, AnswerWriter.Body.of(dropped), full, new UrlSigner(urls, "http://h", "s", expiry)));
            assertEquals(4, writer.availableWriterPermits());
            JsonBytes sequential = new JsonBytes(null, 1024);
            ReconstructionJson.writeV2(sequential, full, new UrlSigner(urls, "http://h", "s", expiry));
            ByteArrayOutputStream again = new ByteArrayOutputStream();
            writer.write(AnswerFormat.V2, AnswerWriter.Body.of(again), full, new UrlSigner(urls, "http://h", "s", expiry));
            assertArrayEquals(sequential.toByteArray(), again.toByteArray(), "after a failed answer");
        }
    }
}
