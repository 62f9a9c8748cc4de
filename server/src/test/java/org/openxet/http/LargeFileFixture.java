package org.openxet.http;

import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.storage.FileRecord;
import org.openxet.storage.Index;
import org.openxet.storage.ShardCommit;

import java.util.List;
import java.util.Random;

/**
 * A file of 40,000 random terms over {@code xorbs} xorbs of {@code chunks} chunks, registered in an index through the
 * API shard registration uses: runs that revisit, skip and repeat chunks, so the planner's merging is exercised too.
 */
final class LargeFileFixture {
    static final int TERMS = 40_000;

    private LargeFileFixture() {
    }

    static FileRecord register(Index index, String scope, int xorbs, int chunks) throws Exception {
        Random r = new Random(3);
        MerkleHash[] hashes = new MerkleHash[xorbs];
        ChunkTable[] tables = new ChunkTable[xorbs];
        for (int x = 0; x < xorbs; x++) {
            byte[] h = new byte[32 * chunks];
            r.nextBytes(h);
            int[] be = new int[chunks];
            int[] ue = new int[chunks];
            for (int k = 0, b = 0, u = 0; k < chunks; k++) {
                be[k] = b += 8 + 1000 + r.nextInt(1000);
                ue[k] = u += 2000 + r.nextInt(1000);
            }
            hashes[x] = MerkleHash.ofWords(r.nextLong(), r.nextLong(), r.nextLong(), x);
            tables[x] = new ChunkTable(chunks, h, be, ue);
            index.putXorb(hashes[x], tables[x], be[chunks - 1]);
        }
        int[] packed = new int[FileRecord.TERM_INTS * TERMS];
        long size = 0;
        for (int t = 0; t < TERMS; t++) {
            int x = r.nextInt(xorbs);
            int cs = r.nextInt(chunks - 4);
            int ce = cs + 1 + r.nextInt(3);
            ChunkTable c = tables[x];
            packed[6 * t] = x;
            packed[6 * t + 1] = cs;
            packed[6 * t + 2] = ce;
            packed[6 * t + 3] = (int) c.unpackedLength(cs, ce);
            packed[6 * t + 4] = c.byteStart(cs);
            packed[6 * t + 5] = c.byteEnds()[ce - 1];
            size += packed[6 * t + 3];
        }
        FileRecord file = new FileRecord(MerkleHash.ofWords(1, 2, 3, 4), size, hashes, packed, null);
        index.registerShard(new ShardCommit(MerkleHash.ofWords(5, 6, 7, 8), scope, 1, List.of(file), List.of(), List.of()));
        return file;
    }
}
