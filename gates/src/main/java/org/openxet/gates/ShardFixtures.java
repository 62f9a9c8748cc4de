package org.openxet.gates;

import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.FileEntry;
import org.openxet.protocol.shard.FileTerm;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardHeader;
import org.openxet.protocol.shard.ShardWriter;
import org.openxet.protocol.shard.XorbBlock;
import org.openxet.protocol.shard.XorbChunkEntry;
import org.openxet.protocol.xorb.XorbBuilder;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Real upload bodies for the shard commit gate and the registration bench: small xorbs built by {@link XorbBuilder}
 * from random chunks (so {@code XorbIngest} validates and stores them like any upload), and shards written by
 * {@link ShardWriter} in the form hf_xet uploads (no footer), whose files, verification hashes and xorb blocks are
 * computed from those xorbs, so {@code ShardRegistration.register} accepts them.
 *
 * <p>The gate's shard: 4 files of one term each, every file over a xorb of its own (all of its chunks), and the 4
 * xorb blocks listed, as a client lists the xorbs it uploaded with the shard. With {@value #CHUNKS} chunks a xorb,
 * the stored shard is about 63 KiB, the seed's 64 KiB.
 */
public final class ShardFixtures {
    public static final int CHUNKS = 256;
    public static final int FILES_PER_SHARD = 4;
    public static final String SCOPE = "bench/commits";

    private ShardFixtures() {
    }

    /** A xorb upload body with what a shard needs to describe it: raw chunk hashes and chunk sizes. */
    public record RealXorb(MerkleHash hash, byte[] body, byte[] chunkHashes, long[] sizes) {
        public int chunks() {
            return sizes.length;
        }

        public long unpackedBytes(int from, int to) {
            long n = 0;
            for (int k = from; k < to; k++) n += sizes[k];
            return n;
        }
    }

    /** A xorb of {@code chunks} random (incompressible, stored uncompressed) chunks of 64–192 bytes. */
    public static RealXorb xorb(SplittableRandom r, int chunks) {
        return xorb(r, chunks, 64, 192);
    }

    /** A xorb of {@code chunks} random chunks (stored uncompressed) of {@code minBytes} to {@code maxBytes} each. */
    public static RealXorb xorb(SplittableRandom r, int chunks, int minBytes, int maxBytes) {
        XorbBuilder b = new XorbBuilder(XorbBuilder.Compression.NONE);
        byte[] raw = new byte[32 * chunks];
        long[] sizes = new long[chunks];
        for (int k = 0; k < chunks; k++) {
            byte[] chunk = new byte[minBytes + r.nextInt(maxBytes - minBytes + 1)];
            r.nextBytes(chunk);
            b.add(chunk, 0, chunk.length);
            XetHashes.chunkHash(chunk, 0, chunk.length, raw, 32 * k);
            sizes[k] = chunk.length;
        }
        return new RealXorb(XetHashes.merkleRoot(raw, sizes, chunks), b.build(), raw, sizes);
    }

    /** One term: chunks {@code [from, to)} of {@code xorb}. */
    public record Term(RealXorb xorb, int from, int to) {
    }

    /** A one-term file entry with its verification hash and the file hash computed from the chunks. */
    public static FileEntry file(Term t) {
        return file(List.of(t));
    }

    /** A file entry of these terms in order, with their verification hashes and the file hash of all their chunks. */
    public static FileEntry file(List<Term> ts) {
        int n = ts.stream().mapToInt(t -> t.to() - t.from()).sum();
        byte[] hashes = new byte[32 * n];
        long[] sizes = new long[n];
        List<FileTerm> terms = new ArrayList<>(ts.size());
        List<MerkleHash> verifications = new ArrayList<>(ts.size());
        int at = 0;
        for (Term t : ts) {
            int k = t.to() - t.from();
            System.arraycopy(t.xorb().chunkHashes(), 32 * t.from(), hashes, 32 * at, 32 * k);
            System.arraycopy(t.xorb().sizes(), t.from(), sizes, at, k);
            at += k;
            terms.add(new FileTerm(t.xorb().hash(), 0, (int) t.xorb().unpackedBytes(t.from(), t.to()), t.from(), t.to()));
            verifications.add(XetHashes.verificationHash(t.xorb().chunkHashes(), t.from(), t.to()));
        }
        MerkleHash fileHash = XetHashes.fileHash(hashes, sizes, n);
        return new FileEntry(fileHash, FileEntry.FLAG_WITH_VERIFICATION, terms, verifications, null);
    }

    /** The xorb block a client lists for a xorb it uploaded (hf_xet sends num_bytes_on_disk 0). */
    public static XorbBlock block(RealXorb x) {
        List<XorbChunkEntry> entries = new ArrayList<>(x.chunks());
        long offset = 0;
        for (int k = 0; k < x.chunks(); k++) {
            MerkleHash h = MerkleHash.fromBytes(x.chunkHashes(), 32 * k);
            int flags = XetHashes.isGlobalDedupEligible(h) ? XorbChunkEntry.FLAG_GLOBAL_DEDUP : 0;
            entries.add(new XorbChunkEntry(h, (int) offset, (int) x.sizes()[k], flags));
            offset += x.sizes()[k];
        }
        return new XorbBlock(x.hash(), 0, (int) offset, 0, entries);
    }

    /** A shard body as hf_xet uploads it (no footer): one file per term, the given xorbs listed. */
    public static byte[] shard(List<Term> files, List<RealXorb> listed) {
        List<FileEntry> entries = files.stream().map(ShardFixtures::file).toList();
        List<XorbBlock> blocks = listed.stream().map(ShardFixtures::block).toList();
        return ShardWriter.write(new Shard(ShardHeader.withoutFooter(), entries, blocks, null));
    }

    /** A shard body as hf_xet uploads it (no footer): one file of {@code terms} in order, the given xorbs listed. */
    public static byte[] shardOfOneFile(List<Term> terms, List<RealXorb> listed) {
        List<XorbBlock> blocks = listed.stream().map(ShardFixtures::block).toList();
        return ShardWriter.write(new Shard(ShardHeader.withoutFooter(), List.of(file(terms)), blocks, null));
    }

    /** The gate's shard over 4 xorbs: one file per xorb covering all its chunks, all 4 xorbs listed. */
    public static byte[] gateShard(List<RealXorb> xorbs) {
        return shard(xorbs.stream().map(x -> new Term(x, 0, x.chunks())).toList(), xorbs);
    }
}
