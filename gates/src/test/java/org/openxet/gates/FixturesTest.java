package org.openxet.gates;

import org.junit.jupiter.api.Test;
import org.openxet.gates.ReconstructionFixtures.Shape;
import org.openxet.gates.ReconstructionFixtures.Xorbs;
import org.openxet.protocol.ClientUploads;
import org.openxet.protocol.ClientUploads.Xorb;
import org.openxet.service.FetchDescriptors;
import org.openxet.service.ReconstructionPlanner;
import org.openxet.service.ReconstructionPlanner.Plan;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.service.ShardRegistration;
import org.openxet.storage.FileRecord;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FixturesTest {
    private static int descriptors(Plan p) {
        int n = 0;
        for (int x : p.xorbOrder()) n += FetchDescriptors.count(p.fetch()[x]);
        return n;
    }

    @Test
    void unmergedFilesHaveOneDescriptorPerTermAndMergedOnePerXorb() throws Exception {
        Xorbs xorbs = ReconstructionFixtures.xorbs(100, 1);
        SplittableRandom r = new SplittableRandom(2);
        ReconstructionPlanner planner = new ReconstructionPlanner(null);
        FileRecord unmerged = ReconstructionFixtures.file(Shape.UNMERGED, 10_000, xorbs, 0, ReconstructionFixtures.randomHash(r));
        FileRecord merged = ReconstructionFixtures.file(Shape.MERGED, 10_000, xorbs, 0, ReconstructionFixtures.randomHash(r));
        assertEquals(10_000, descriptors(planner.plan(unmerged, null)));
        assertEquals(100, descriptors(planner.plan(merged, null)));
        for (int t = 1; t < 10_000; t++) {
            assertTrue(unmerged.term(t, FileRecord.XORB) != unmerged.term(t - 1, FileRecord.XORB), "term " + t);
        }
        assertEquals(unmerged.xorbs().length, 100);
    }

    @Test
    void fixtureShardsRegisterThroughTheRealPathAndFilesAreReadable() throws Exception {
        Path dir = Files.createTempDirectory("openxet-fixtures-test");
        try (Services s = Services.open(ServerConfig.defaults(dir).withHost("127.0.0.1").withPort(0))) {
            SplittableRandom r = new SplittableRandom(3);
            List<Xorb> xs = new ArrayList<>();
            for (int i = 0; i < ShardFixtures.FILES_PER_SHARD; i++) {
                Xorb x = ShardFixtures.xorb(r, ShardFixtures.CHUNKS);
                assertTrue(s.ingest().ingest(x.hash(), x.body(), x.body().length).inserted());
                xs.add(x);
            }
            byte[] shard = ShardFixtures.gateShard(xs);
            assertTrue(s.shards().register(shard, shard.length, ShardFixtures.SCOPE, ShardRegistration.SILENT));
            var file = ShardFixtures.file(new ClientUploads.Term(xs.get(0), 0, ShardFixtures.CHUNKS));
            assertTrue(s.index().file(file.fileHash(), ShardFixtures.SCOPE).isPresent());

            // The transfer gate's file: one file over parts of several xorbs, which registration re-hashes.
            List<ClientUploads.Term> terms = List.of(new ClientUploads.Term(xs.get(1), 3, 40),
                    new ClientUploads.Term(xs.get(2), 0, ShardFixtures.CHUNKS), new ClientUploads.Term(xs.get(1), 0, 2));
            byte[] oneFile = ShardFixtures.shardOfOneFile(terms, xs.subList(1, 3));
            assertTrue(s.shards().register(oneFile, oneFile.length, ShardFixtures.SCOPE, ShardRegistration.SILENT));
            FileRecord multi = s.index().file(ClientUploads.file(terms).fileHash(), ShardFixtures.SCOPE).orElseThrow();
            assertEquals(3, multi.termCount());
            assertEquals(xs.get(1).unpackedBytes(3, 40) + xs.get(2).unpackedBytes(0, ShardFixtures.CHUNKS)
                    + xs.get(1).unpackedBytes(0, 2), multi.size());

            Xorbs xorbs = ReconstructionFixtures.xorbs(10, 4);
            FileRecord f = ReconstructionFixtures.file(Shape.UNMERGED, 1000, xorbs, 0, ReconstructionFixtures.randomHash(r));
            ReconstructionFixtures.registerXorbs(s.index(), xorbs);
            ReconstructionFixtures.registerFiles(s.index(), "a/b", List.of(f), xorbs, ReconstructionFixtures.randomHash(r));
            FileRecord read = s.index().file(f.fileHash(), "a/b").orElseThrow();
            assertEquals(f.size(), read.size());
            assertEquals(1000, descriptors(new ReconstructionPlanner(s.index()).plan(read, null)));
        } finally {
            Files2.deleteTree(dir);
        }
    }
}
