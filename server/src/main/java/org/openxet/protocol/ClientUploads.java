package org.openxet.protocol;

import org.openxet.protocol.shard.FileEntry;
import org.openxet.protocol.shard.FileTerm;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardHeader;
import org.openxet.protocol.shard.ShardWriter;
import org.openxet.protocol.shard.XorbBlock;
import org.openxet.protocol.shard.XorbChunkEntry;
import org.openxet.protocol.xorb.XorbBuilder;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Uploads built as a stock client builds them: xorbs of real chunks (random bytes, stored as they are, or text that
 * LZ4 compresses) and shards in the form hf_xet uploads (no footer) whose file entries, verification hashes and xorb
 * blocks are computed from those chunks, so that registration accepts them. The AOT training run, the gates and the
 * benches upload these.
 */
public final class ClientUploads {
    private ClientUploads() {
    }

    /** A xorb's upload body and what a shard needs to describe it: its chunks' raw hashes, 32 bytes each, and sizes. */
    public record Xorb(MerkleHash hash, byte[] body, byte[] chunkHashes, long[] sizes) {
        public int chunks() {
            return sizes.length;
        }

        public long unpackedBytes(int from, int to) {
            long n = 0;
            for (int k = from; k < to; k++) n += sizes[k];
            return n;
        }
    }

    /** Chunks {@code [from, to)} of {@code xorb}: one term of a file. */
    public record Term(Xorb xorb, int from, int to) {
    }

    /**
     * {@code chunks} chunks of {@code minBytes}–{@code maxBytes} bytes: {@code text} ones compress (stored LZ4), the
     * others are random and stored uncompressed.
     */
    public static Xorb xorb(SplittableRandom r, int chunks, int minBytes, int maxBytes, boolean text) {
        XorbBuilder b = new XorbBuilder(text ? XorbBuilder.Compression.LZ4 : XorbBuilder.Compression.NONE);
        byte[] raw = new byte[32 * chunks];
        long[] sizes = new long[chunks];
        for (int k = 0; k < chunks; k++) {
            byte[] chunk = new byte[minBytes + r.nextInt(maxBytes - minBytes + 1)];
            if (text) {
                byte[] words = ("{\"layer\": " + r.nextInt(100) + ", \"weights\": \"model.safetensors\"}\n")
                        .getBytes(StandardCharsets.US_ASCII);
                for (int i = 0; i < chunk.length; i++) chunk[i] = words[i % words.length];
            } else {
                r.nextBytes(chunk);
            }
            b.add(chunk, 0, chunk.length);
            XetHashes.chunkHash(chunk, 0, chunk.length, raw, 32 * k);
            sizes[k] = chunk.length;
        }
        return new Xorb(XetHashes.merkleRoot(raw, sizes, chunks), b.build(), raw, sizes);
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
            int unpacked = (int) t.xorb().unpackedBytes(t.from(), t.to());
            terms.add(new FileTerm(t.xorb().hash(), 0, unpacked, t.from(), t.to()));
            verifications.add(XetHashes.verificationHash(t.xorb().chunkHashes(), t.from(), t.to()));
        }
        return new FileEntry(XetHashes.fileHash(hashes, sizes, n), FileEntry.FLAG_WITH_VERIFICATION, terms,
                verifications, null);
    }

    /** The xorb block a client lists for a xorb it uploaded (hf_xet sends num_bytes_on_disk 0). */
    public static XorbBlock block(Xorb x) {
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

    /** A shard body as hf_xet uploads it (no footer): these files, these xorbs listed. */
    public static byte[] shard(List<FileEntry> files, List<Xorb> listed) {
        return ShardWriter.write(new Shard(ShardHeader.withoutFooter(), files,
                listed.stream().map(ClientUploads::block).toList(), null));
    }
}
