package org.openxet.service;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openxet.protocol.MerkleBuilder;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.FileEntry;
import org.openxet.protocol.shard.FileTerm;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardHeader;
import org.openxet.protocol.shard.ShardWriter;
import org.openxet.protocol.shard.XorbBlock;
import org.openxet.storage.FileRecord;
import org.openxet.testing.SyntheticXorb;
import org.openxet.testing.Vectors;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code openxet gc}'s collector on a real SQLite index and local bucket, fed with the JS client's captured uploads:
 * only xorbs that no shard lists, no dedup entry names and no file uses go, and only past the grace period.
 */
class XorbCollectorTest {
    static final Duration GRACE = Duration.ofDays(7);
    /** Past every xorb's grace: what a run a week and a day from now sees. */
    static final Instant LATER = Instant.now().plus(GRACE).plus(Duration.ofDays(1));

    @TempDir
    Path dir;
    Services services;

    @BeforeEach
    void open() throws Exception {
        services = Services.open(ServerConfig.defaults(dir).withStorage(storage()));
    }

    /** The storage under test: the data dir's own here, shared storage in {@link SharedXorbCollectorTest}. */
    ServerConfig.Storage storage() throws Exception {
        return ServerConfig.Storage.EMBEDDED;
    }

    /** One run of the collector as {@code openxet gc} makes it on this storage. */
    XorbCollector.Report collect(Instant now, boolean dryRun) throws Exception {
        return XorbCollector.collect(services.index(), services.bucket(), now, GRACE, dryRun, Progress.NONE);
    }

    @AfterEach
    void close() {
        services.close();
    }

    /** Uploads a scenario's xorbs and, when asked, its shards, through the services the routes call. */
    Set<MerkleHash> upload(String scenario, boolean shards) throws Exception {
        JsonNode capture = Vectors.capture(scenario);
        for (JsonNode x : capture.get("xorbs")) {
            byte[] body = Vectors.bytes(x.get("file").asText());
            services.ingest().ingest(MerkleHash.parse(x.get("xorb_hash").asText()), body, body.length);
        }
        if (shards) {
            for (JsonNode s : capture.get("shards")) {
                byte[] body = Vectors.bytes(s.get("file").asText());
                services.shards().register(body, body.length, "user/repo", ShardRegistration.SILENT);
            }
        }
        return capture.get("xorbs").findValuesAsText("xorb_hash").stream().map(XorbCollectorTest::hash)
                .collect(Collectors.toSet());
    }

    private static MerkleHash hash(String hex) {
        try {
            return MerkleHash.parse(hex);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private boolean stored(MerkleHash xorb) throws Exception {
        boolean row = services.index().hasXorb(xorb);
        boolean object = services.bucket().size(XorbIngest.key(xorb)).isPresent();
        assertEquals(row, object, "row and object of " + xorb + " disagree");
        return row;
    }

    @Test
    void onlyXorbsNothingUsesGoAndOnlyPastTheGrace() throws Exception {
        Set<MerkleHash> registered = upload("single-r1m", true);
        Set<MerkleHash> abandoned = upload("single-words-512k", false);
        long abandonedBytes = 0; // as stored: the upload plus the footer the server appends
        for (MerkleHash x : abandoned) abandonedBytes += services.bucket().size(XorbIngest.key(x)).orElseThrow();

        // Young: nothing is collected, whatever is unused.
        XorbCollector.Report young = collect(Instant.now(), false);
        assertEquals(new XorbCollector.Report(0, 0, 0, false), young);

        Map<String, Long> before = services.index().scans().rowCounts();
        XorbCollector.Report dry = collect(LATER, true);
        assertEquals(new XorbCollector.Report(1, 0, 0, true), dry);
        assertEquals(before, services.index().scans().rowCounts());
        for (MerkleHash x : abandoned) assertTrue(stored(x), "a dry run removes nothing");

        XorbCollector.Report run = collect(LATER, false);
        assertEquals(new XorbCollector.Report(1, 1, abandonedBytes, false), run);
        for (MerkleHash x : abandoned) assertFalse(stored(x), "the abandoned upload's xorb is gone, row and object");
        for (MerkleHash x : registered) assertTrue(stored(x), "a registered file's xorb stays");
        String file = Vectors.capture("single-r1m").get("files").get(0).get("client_xet_hash").asText();
        FileRecord record = services.index().file(MerkleHash.parse(file), "user/repo").orElseThrow();
        assertEquals(Vectors.inputBytes("r1m").length, record.size());

        // A second run finds nothing more; a client coming back re-uploads the xorb as new.
        assertEquals(new XorbCollector.Report(0, 0, 0, false),
                collect(LATER, false));
        upload("single-words-512k", true);
        for (MerkleHash x : abandoned) assertTrue(stored(x));
    }

    /**
     * A file whose second term uses chunks of a xorb that its shard does not list, and that no dedup entry names (only
     * the first chunk of a file and eligible chunks of listed xorbs get one): only the file's terms say it is in use.
     * Registration accepts it, since the xorb is registered; a stock client does this when it reuses a xorb of an
     * earlier upload.
     */
    @Test
    void aXorbUsedOnlyByAFilesTermsStays() throws Exception {
        SyntheticXorb listed = SyntheticXorb.of(4, 1024, 1);
        SyntheticXorb unlisted = SyntheticXorb.of(4, 1024, 2);
        for (SyntheticXorb x : List.of(listed, unlisted)) {
            services.ingest().ingest(x.hash(), x.body(), x.body().length);
        }
        MerkleBuilder fileChunks = new MerkleBuilder();
        List<FileTerm> terms = new ArrayList<>();
        List<MerkleHash> verification = new ArrayList<>();
        for (SyntheticXorb x : List.of(listed, unlisted)) {
            terms.add(new FileTerm(x.hash(), 0, 2 * x.chunkSize(), 0, 2));
            verification.add(XetHashes.verificationHash(x.chunkHashes(), 0, 2));
            for (int i = 0; i < 2; i++) fileChunks.add(x.chunkHashes(), 32 * i, x.chunkSize());
        }
        Shard shard = new Shard(ShardHeader.withoutFooter(), List.of(new FileEntry(XetHashes.fileHash(fileChunks),
                FileEntry.FLAG_WITH_VERIFICATION, terms, verification, null)),
                List.of(new XorbBlock(listed.hash(), 0, 4 * listed.chunkSize(), 0, listed.entries())), null);
        byte[] body = ShardWriter.write(shard);
        assertTrue(services.shards().register(body, body.length, "user/repo", ShardRegistration.SILENT));

        XorbCollector.Report run = collect(LATER, false);
        assertEquals(new XorbCollector.Report(0, 0, 0, false), run);
        assertTrue(stored(listed.hash()));
        assertTrue(stored(unlisted.hash()), "the unlisted xorb is used by the file's second term");
    }
}
