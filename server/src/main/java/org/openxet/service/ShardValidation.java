package org.openxet.service;

import org.openxet.protocol.FormatException;
import org.openxet.protocol.MerkleBuilder;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.FileEntry;
import org.openxet.protocol.shard.FileTerm;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.XorbBlock;
import org.openxet.protocol.shard.XorbChunkEntry;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.storage.FileRecord;
import org.openxet.storage.ShardCommit;
import org.openxet.storage.XorbLayout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The semantic checks of §6 on a parsed shard, against the stored chunk tables of every xorb it names, and the
 * {@link ShardCommit} that registers it. Pure: the caller loads the layouts and applies the commit.
 */
public final class ShardValidation {
    private ShardValidation() {
    }

    /** Every xorb a shard names: its terms' xorbs and its xorb blocks. */
    public static Set<MerkleHash> referencedXorbs(Shard shard) {
        Set<MerkleHash> out = new LinkedHashSet<>();
        for (FileEntry f : shard.files()) {
            for (FileTerm t : f.terms()) {
                out.add(t.xorbHash());
            }
        }
        for (XorbBlock x : shard.xorbs()) {
            out.add(x.xorbHash());
        }
        return out;
    }

    /** Progress callback: files checked so far out of the total. */
    public interface Progress {
        void verified(long done, long total);

        /**
         * Called every {@link #CHUNKS_PER_TICK} chunks hashed within a file (a few milliseconds of work), so that a
         * listener can stop a validation whose client left even inside one file of millions of chunks.
         */
        default void working() {
        }
    }

    static final int CHUNKS_PER_TICK = 1 << 16;

    /**
     * Checks the shard and builds its commit. {@code layouts} must hold every referenced xorb that is stored; a missing
     * one rejects the shard.
     */
    public static ShardCommit validate(Shard shard, Map<MerkleHash, XorbLayout> layouts, MerkleHash shardHash, String scope,
                                       long storedBytes, Progress progress) throws FormatException {
        for (MerkleHash x : referencedXorbs(shard)) {
            if (!layouts.containsKey(x)) {
                throw new FormatException("shard references xorb " + x + ", which is not stored here; upload it first");
            }
        }
        checkChunkReferences(shard, layouts);
        List<ShardCommit.DedupChunk> dedup = new ArrayList<>();
        for (XorbBlock block : shard.xorbs()) {
            checkXorbBlock(block, layouts.get(block.xorbHash()), dedup);
        }
        // A file hash may appear twice; the last entry wins, as a later registration would.
        Map<MerkleHash, FileRecord> files = new LinkedHashMap<>();
        Map<TermRange, MerkleHash> verified = new HashMap<>();
        long done = 0;
        for (FileEntry f : shard.files()) {
            FileRecord r = checkFile(f, layouts, verified, progress);
            files.remove(f.fileHash());
            files.put(f.fileHash(), r);
            if (!f.terms().isEmpty()) {
                // §1.8 rule 2: the first chunk of every file is eligible for global dedup.
                FileTerm first = f.terms().get(0);
                dedup.add(new ShardCommit.DedupChunk(layouts.get(first.xorbHash()).chunks().hash(first.chunkStart()),
                        first.xorbHash()));
            }
            progress.verified(++done, shard.files().size());
        }
        List<MerkleHash> listed = shard.xorbs().stream().map(XorbBlock::xorbHash).distinct().toList();
        return new ShardCommit(shardHash, scope, storedBytes, new ArrayList<>(files.values()), listed, dedup);
    }

    /**
     * Chunks one shard's terms may name in all: 2^25, a 2 TiB file's worth at the clients' 64 KiB average chunk (a
     * 1 TB file names about 16 million). Every named chunk is hashed into its file's hash (about 0.22 µs each here), so
     * this bounds a shard's validation at about 7 s of a core, and the commit permits bound how many run at once; a
     * 64 MiB shard of 700,000 terms each naming a whole 8,192-chunk xorb asked for 5.7 × 10^9, tens of minutes.
     */
    public static final long MAX_CHUNK_REFERENCES = 1L << 25;

    private static void checkChunkReferences(Shard shard, Map<MerkleHash, XorbLayout> layouts) throws FormatException {
        long named = 0;
        for (FileEntry f : shard.files()) {
            for (FileTerm t : f.terms()) {
                // A range outside its xorb (or reversed) is refused, with its own message, in checkFile.
                if (t.chunkEndUnsigned() > layouts.get(t.xorbHash()).chunks().count()) continue;
                named += Math.max(0, t.chunkEndUnsigned() - t.chunkStartUnsigned());
                if (named > MAX_CHUNK_REFERENCES) {
                    throw new FormatException("the shard's terms name more than " + MAX_CHUNK_REFERENCES
                            + " chunks in all; split the upload into several shards");
                }
            }
        }
    }

    /** A term's chunk range in one xorb: a shard repeating the same term has its verification hash computed once. */
    private record TermRange(MerkleHash xorb, int start, int end) {
    }

    /** §6.4: a xorb block must describe the stored xorb exactly. */
    private static void checkXorbBlock(XorbBlock block, XorbLayout layout, List<ShardCommit.DedupChunk> dedup)
            throws FormatException {
        ChunkTable t = layout.chunks();
        String x = "xorb block " + block.xorbHash();
        if (block.chunks().size() != t.count()) {
            throw new FormatException(x + " lists " + block.chunks().size() + " chunks; the stored xorb has " + t.count());
        }
        if (block.numBytesInXorbUnsigned() != t.unpackedBytes()) {
            throw new FormatException(x + " claims " + block.numBytesInXorbUnsigned() + " bytes; the stored xorb has "
                    + t.unpackedBytes());
        }
        for (int k = 0; k < t.count(); k++) {
            XorbChunkEntry e = block.chunks().get(k);
            if (!e.chunkHash().equals(t.hash(k)) || e.byteRangeStartUnsigned() != t.unpackedStart(k)
                    || e.unpackedBytesUnsigned() != t.unpackedLength(k)) {
                throw new FormatException(x + " chunk " + k + " does not match the stored xorb");
            }
            if (XetHashes.isGlobalDedupEligible(e.chunkHash()) || e.globalDedupEligible()) {
                dedup.add(new ShardCommit.DedupChunk(e.chunkHash(), block.xorbHash()));
            }
        }
    }

    /** §6.2–6.3: every term in bounds with the right size and verification hash; the file hash recomputed. */
    private static FileRecord checkFile(FileEntry f, Map<MerkleHash, XorbLayout> layouts,
                                        Map<TermRange, MerkleHash> verified, Progress progress)
            throws FormatException {
        String file = "file " + f.fileHash();
        List<FileTerm> terms = f.terms();
        if (!terms.isEmpty() && !f.hasVerification()) {
            throw new FormatException(file + " has no verification entries (both stock clients always send them)");
        }
        Map<MerkleHash, Integer> xorbIndex = new HashMap<>();
        List<MerkleHash> xorbs = new ArrayList<>();
        int[] packed = new int[terms.size() * FileRecord.TERM_INTS];
        // The file hash is built chunk by chunk: a shard's few bytes per term can name millions of chunks (a huge
        // file, or a hostile shard repeating whole xorbs), so nothing here is sized by the chunk count.
        MerkleBuilder chunks = new MerkleBuilder();
        int sinceTick = 0;
        long size = 0;
        for (int i = 0; i < terms.size(); i++) {
            FileTerm t = terms.get(i);
            ChunkTable c = layouts.get(t.xorbHash()).chunks();
            long start = t.chunkStartUnsigned();
            long end = t.chunkEndUnsigned();
            if (start >= end || end > c.count()) {
                throw new FormatException(file + " term " + i + ": chunks [" + start + ", " + end + ") outside xorb "
                        + t.xorbHash() + " of " + c.count() + " chunks");
            }
            int a = (int) start;
            int b = (int) end;
            long unpacked = c.unpackedLength(a, b);
            if (t.unpackedBytesUnsigned() != unpacked) {
                throw new FormatException(file + " term " + i + ": unpacked_segment_bytes " + t.unpackedBytesUnsigned()
                        + ", the chunks hold " + unpacked);
            }
            MerkleHash expected = verified.computeIfAbsent(new TermRange(t.xorbHash(), a, b),
                    r -> XetHashes.verificationHash(c.hashes(), a, b));
            if (!f.verificationHashes().get(i).equals(expected)) {
                throw new FormatException(file + " term " + i + ": verification hash does not match the stored chunks");
            }
            for (int k = a; k < b; k++) {
                chunks.add(c.hashes(), 32 * k, c.unpackedLength(k));
                if (++sinceTick == CHUNKS_PER_TICK) {
                    sinceTick = 0;
                    progress.working();
                }
            }
            size += unpacked;
            int xi = xorbIndex.computeIfAbsent(t.xorbHash(), h -> {
                xorbs.add(h);
                return xorbs.size() - 1;
            });
            int o = i * FileRecord.TERM_INTS;
            packed[o + FileRecord.XORB] = xi;
            packed[o + FileRecord.CHUNK_START] = a;
            packed[o + FileRecord.CHUNK_END] = b;
            packed[o + FileRecord.UNPACKED] = (int) unpacked;
            packed[o + FileRecord.BYTE_START] = c.byteStart(a);
            packed[o + FileRecord.BYTE_END] = c.byteEnds()[b - 1];
        }
        MerkleHash computed = XetHashes.fileHash(chunks);
        if (!computed.equals(f.fileHash())) {
            throw new FormatException(file + ": the file hash of its chunks is " + computed);
        }
        return new FileRecord(f.fileHash(), size, xorbs.toArray(MerkleHash[]::new), Arrays.copyOf(packed, packed.length),
                f.sha256());
    }
}
