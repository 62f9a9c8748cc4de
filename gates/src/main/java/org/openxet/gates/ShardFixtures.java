package org.openxet.gates;

import org.openxet.protocol.ClientUploads;
import org.openxet.protocol.ClientUploads.Term;
import org.openxet.protocol.ClientUploads.Xorb;
import org.openxet.protocol.shard.FileEntry;

import java.util.List;
import java.util.SplittableRandom;

/**
 * Real upload bodies for the shard commit gate and the registration bench, built by {@link ClientUploads} as a
 * client builds them (so {@code XorbIngest} and {@code ShardRegistration.register} accept them): small xorbs of
 * random chunks, and shards of one file per term.
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

    /** A xorb of {@code chunks} random (incompressible, stored uncompressed) chunks of 64–192 bytes. */
    public static Xorb xorb(SplittableRandom r, int chunks) {
        return xorb(r, chunks, 64, 192);
    }

    /** A xorb of {@code chunks} random chunks (stored uncompressed) of {@code minBytes} to {@code maxBytes} each. */
    public static Xorb xorb(SplittableRandom r, int chunks, int minBytes, int maxBytes) {
        return ClientUploads.xorb(r, chunks, minBytes, maxBytes, false);
    }

    /** A one-term file entry with its verification hash and the file hash computed from the chunks. */
    public static FileEntry file(Term t) {
        return ClientUploads.file(List.of(t));
    }

    /** A shard body as hf_xet uploads it (no footer): one file per term, the given xorbs listed. */
    public static byte[] shard(List<Term> files, List<Xorb> listed) {
        return ClientUploads.shard(files.stream().map(ShardFixtures::file).toList(), listed);
    }

    /** A shard body as hf_xet uploads it (no footer): one file of {@code terms} in order, the given xorbs listed. */
    public static byte[] shardOfOneFile(List<Term> terms, List<Xorb> listed) {
        return ClientUploads.shard(List.of(ClientUploads.file(terms)), listed);
    }

    /** The gate's shard over 4 xorbs: one file per xorb covering all its chunks, all 4 xorbs listed. */
    public static byte[] gateShard(List<Xorb> xorbs) {
        return shard(xorbs.stream().map(x -> new Term(x, 0, x.chunks())).toList(), xorbs);
    }
}
