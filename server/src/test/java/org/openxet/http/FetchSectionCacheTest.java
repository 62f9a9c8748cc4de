package org.openxet.http;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.service.ReconstructionPlanner;
import org.openxet.service.SignedUrls;
import org.openxet.storage.FileRecord;
import org.openxet.storage.SqliteIndex;

import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Which answers may carry a kept fetch section: the same file, format, base URL and scope, URLs at most a minute older
 * than fresh ones, and a new section rendered before the kept one is too old. Each answer is compared byte for byte
 * with a sequential rendering signed with the expiry it must carry.
 */
class FetchSectionCacheTest {
    private static final String SCOPE = "s";
    private static final long E = 2_000_000_000L;

    @TempDir
    static Path dir;
    private static SqliteIndex index;
    private static ReconstructionPlanner.Plan plan;
    private static final SignedUrls URLS = new SignedUrls(new byte[32], 3600, Clock.systemUTC());

    @BeforeAll
    static void fixture() throws Exception {
        index = new SqliteIndex(dir.resolve("i.sqlite"), 2);
        FileRecord file = LargeFileFixture.register(index, SCOPE, 50, 256);
        plan = new ReconstructionPlanner(index).plan(file, null);
    }

    private static UrlSigner signer(SignedUrls urls, String scope, long expiry) {
        return new UrlSigner(urls, "http://h", scope, expiry);
    }

    private static byte[] sequentialV2(UrlSigner signer) {
        JsonBytes json = new JsonBytes(null, 1024);
        ReconstructionJson.writeV2(json, plan, signer);
        return json.toByteArray();
    }

    private static byte[] sequentialV1(UrlSigner signer) {
        JsonBytes json = new JsonBytes(null, 1024);
        ReconstructionJson.writeV1(json, plan, signer);
        return json.toByteArray();
    }

    /** A writer whose caches render in the caller, its terms already kept (a file's second answer renders them). */
    private static AnswerWriter writerWithTermsKept(FetchSectionCache sections) throws Exception {
        AnswerWriter writer = new AnswerWriter(2, new TermsCache(1L << 30, AnswerWriter.PARALLEL_MIN_TERMS, false), sections);
        for (int i = 0; i < 2; i++) {
            assertFalse(writer.writeV2(new ByteArrayOutputStream(), plan, signer(URLS, SCOPE, E)).terms());
        }
        return writer;
    }

    /** Writes the v2 answer with {@code signer}, checks it is {@code expected} and returns whether its URLs were kept. */
    private static boolean v2(AnswerWriter writer, UrlSigner signer, byte[] expected, String what) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AnswerWriter.Kept kept = writer.writeV2(out, plan, signer);
        assertArrayEquals(expected, out.toByteArray(), what);
        return kept.urls();
    }

    @Test
    void aKeptSectionServesItsFileScopeAndFormatForAMinute() throws Exception {
        FetchSectionCache sections = new FetchSectionCache(1L << 30, false);
        AnswerWriter writer = writerWithTermsKept(sections);
        byte[] atE = sequentialV2(signer(URLS, SCOPE, E));
        // The first answer with the terms kept signs its own URLs and has the section rendered; the next ones send it.
        assertFalse(v2(writer, signer(URLS, SCOPE, E), atE, "first"));
        assertEquals(1, sections.size());
        assertEquals(true, v2(writer, signer(URLS, SCOPE, E), atE, "same second"));
        // 30 s later: the URLs minted at E, which live 30 s less than fresh ones.
        assertEquals(true, v2(writer, signer(URLS, SCOPE, E + 30), atE, "30 s later"));
        // Another scope, or another base URL: never another audience's URLs.
        assertFalse(v2(writer, signer(URLS, "other", E + 30), sequentialV2(signer(URLS, "other", E + 30)), "other scope"));
        UrlSigner otherBase = new UrlSigner(URLS, "http://elsewhere", SCOPE, E + 30);
        assertFalse(v2(writer, otherBase, sequentialV2(new UrlSigner(URLS, "http://elsewhere", SCOPE, E + 30)), "other base"));
        // The v1 answer has its own section.
        ByteArrayOutputStream v1 = new ByteArrayOutputStream();
        assertFalse(writer.writeV1(v1, plan, signer(URLS, SCOPE, E + 30)).urls());
        assertArrayEquals(sequentialV1(signer(URLS, SCOPE, E + 30)), v1.toByteArray());
        v1.reset();
        assertEquals(true, writer.writeV1(v1, plan, signer(URLS, SCOPE, E + 31)).urls());
        assertArrayEquals(sequentialV1(signer(URLS, SCOPE, E + 30)), v1.toByteArray(), "v1 kept");
        // Past a minute the kept URLs are not used; the answer signs its own, and a new section is rendered for them.
        byte[] at61 = sequentialV2(signer(URLS, SCOPE, E + 61));
        assertFalse(v2(writer, signer(URLS, SCOPE, E + 61), at61, "61 s later"));
        assertEquals(true, v2(writer, signer(URLS, SCOPE, E + 62), at61, "the new section"));
        // Three quarters of a minute into a section's use, a new one is rendered while the kept one is still sent...
        assertEquals(true, v2(writer, signer(URLS, SCOPE, E + 61 + 45), at61, "45 s into the new section"));
        // ...so the next answer already has the newer URLs.
        assertEquals(true, v2(writer, signer(URLS, SCOPE, E + 61 + 46), sequentialV2(signer(URLS, SCOPE, E + 61 + 45)),
                "renewed"));
        // A clock that went back: the kept URLs would outlive the lifetime; not used.
        assertFalse(v2(writer, signer(URLS, SCOPE, E), atE, "clock back"));
    }

    @Test
    void shortLivedUrlsAreNeverKept() throws Exception {
        // A lifetime under a minute leaves no age a kept URL may have.
        SignedUrls brief = new SignedUrls(new byte[32], 59, Clock.systemUTC());
        FetchSectionCache sections = new FetchSectionCache(1L << 30, false);
        AnswerWriter writer = writerWithTermsKept(sections);
        for (int i = 0; i < 3; i++) {
            assertFalse(v2(writer, signer(brief, SCOPE, E), sequentialV2(signer(brief, SCOPE, E)), "answer " + i));
        }
        assertEquals(0, sections.size());
    }

    @Test
    void aSectionTooLargeToKeepIsTriedOnceNotOnEveryAnswer() throws Exception {
        // Through the writer: a quarter of 1 KiB holds no section; the answers are whole all the same.
        FetchSectionCache small = new FetchSectionCache(1024, false);
        AnswerWriter writer = writerWithTermsKept(small);
        for (int i = 0; i < 3; i++) {
            assertFalse(v2(writer, signer(URLS, SCOPE, E), sequentialV2(signer(URLS, SCOPE, E)), "answer " + i));
        }
        assertEquals(0, small.size());
        // The cache alone: the renderer is asked once for the file, with the bound, and never again for that record.
        FetchSectionCache cache = new FetchSectionCache(1024, false);
        AtomicInteger calls = new AtomicInteger();
        FetchSectionCache.Renderer tooLarge = max -> {
            calls.incrementAndGet();
            assertEquals(256, max);
            return null;
        };
        for (int i = 0; i < 5; i++) {
            assertNull(cache.get(plan.file(), false, signer(URLS, SCOPE, E + i), tooLarge));
        }
        assertEquals(1, calls.get());
    }

    @Test
    void aRangeNeverUsesTheWholeFilesSection() throws Exception {
        FetchSectionCache sections = new FetchSectionCache(1L << 30, false);
        AnswerWriter writer = writerWithTermsKept(sections);
        for (int i = 0; i < 2; i++) {
            v2(writer, signer(URLS, SCOPE, E), sequentialV2(signer(URLS, SCOPE, E)), "whole " + i);
        }
        FileRecord file = plan.file();
        ReconstructionPlanner.Plan ranged = new ReconstructionPlanner(index).plan(file,
                RangeHeader.single("bytes=1-" + (file.size() - 1)));
        JsonBytes expected = new JsonBytes(null, 1024);
        ReconstructionJson.writeV2(expected, ranged, signer(URLS, SCOPE, E));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AnswerWriter.Kept kept = writer.writeV2(out, ranged, signer(URLS, SCOPE, E));
        assertArrayEquals(expected.toByteArray(), out.toByteArray());
        assertEquals(new AnswerWriter.Kept(true, false), kept);
        // A range that covers every byte is the whole file: the same section.
        ReconstructionPlanner.Plan all = new ReconstructionPlanner(index).plan(file, RangeHeader.single("bytes=0-"));
        out.reset();
        assertEquals(new AnswerWriter.Kept(true, true), writer.writeV2(out, all, signer(URLS, SCOPE, E + 5)));
        assertArrayEquals(sequentialV2(signer(URLS, SCOPE, E)), out.toByteArray());
    }
}
