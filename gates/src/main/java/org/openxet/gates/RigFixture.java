package org.openxet.gates;

import org.openxet.gates.ReconstructionFixtures.Shape;
import org.openxet.gates.ReconstructionFixtures.Xorbs;
import org.openxet.protocol.ClientUploads;
import org.openxet.protocol.ClientUploads.Term;
import org.openxet.protocol.ClientUploads.Xorb;
import org.openxet.protocol.FormatException;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardParser;
import org.openxet.protocol.shard.ShardWriter;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.protocol.xorb.ValidatedXorb;
import org.openxet.protocol.xorb.XorbFormat;
import org.openxet.protocol.xorb.XorbValidator;
import org.openxet.service.ShardValidation;
import org.openxet.storage.FileRecord;
import org.openxet.storage.ShardCommit;
import org.openxet.storage.XorbLayout;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The release rig's index, generated from {@code (files, seed)} alone, so any file's hash, scope, size and class can be
 * recomputed by the load generator without reading the index back.
 *
 * <p><b>Files.</b> {@code files} files (the workload draws popularity ranks, and {@link #fileOfRank} spreads ranks over
 * the index), in shards of {@value #FILES_PER_SHARD} with {@value #SCOPES} repository scopes. Each
 * file's class comes from a hash of its index: a 100,000-term file with probability 10^-5, a 10,000-term one 10^-4, a
 * 1,000-term one 10^-3 (each tail class about the same index bytes: 10^7 files hold 100, 1,000 and 10,000 of them),
 * every other file 1–16 terms over small xorbs (the configs, tokenizers and small weights that make most of a hub's
 * files). Large files alternate the two seed shapes (one descriptor per term, or one per xorb).
 *
 * <p><b>Xorbs.</b> As many small xorbs as files, of {@value #SMALL_CHUNKS} chunks of 1–8 KiB (term {@code t} of small
 * file {@code i} names small xorb {@code (i + t) mod files}), plus {@value #BIG_XORBS} xorbs of 1,024 chunks for the
 * large files ({@link ReconstructionFixtures}). Small xorbs are small so that the index of 10^7 of them fits this
 * machine's disk (a real 64 MiB xorb's chunk list is 32 KiB of hashes); a full reconstruction reads only its file's
 * row, a ranged one the layouts of its first and last xorb.
 *
 * <p><b>Real and synthetic.</b> Shard 0 is real: its {@value #FILES_PER_SHARD} files over small xorbs
 * {@code [0, 1016)} whose objects are real xorbs in the bucket, file and chunk hashes computed from real bytes, and
 * its commit computed by {@link ShardValidation} from the shard body a client would upload (so a test can upload it
 * through {@code POST /v1/shards} and compare rows, and the rig can time fetches of real bytes). Everything else is
 * synthetic: random hashes (in index order, so the loader appends to every unique index instead of inserting at random
 * places), chunk tables of the same shape, no xorb or shard objects. The cold set, {@code 2 × cold} 100,000-term files
 * (half of each shape) that the workload never asks for, is the last shard.
 */
final class RigFixture {
    static final int FILES_PER_SHARD = 1000;
    static final int SCOPES = 1000;
    static final int SMALL_CHUNKS = 16;
    static final int BIG_XORBS = 1000;
    static final String COLD_SCOPE = "rig/cold";

    enum FileClass {
        SMALL(0), K1(1_000), K10(10_000), K100(100_000);

        final int terms;

        FileClass(int terms) {
            this.terms = terms;
        }
    }

    final long files;
    final long seed;
    final int coldPerShape;
    private final Xorbs big;
    /** Xorb ids of the big xorbs and shard 0's real ones by hash; synthetic small ones are found by their prefix. */
    private final Map<MerkleHash, Long> listedIds = new HashMap<>();
    private final long multiplier;
    /** Shard 0's real xorbs ({@code [0, FILES_PER_SHARD + SMALL_CHUNKS)}), their layouts, and shard 0 itself. */
    private final List<Xorb> real;
    private final List<XorbLayout> realLayouts;
    private final RealShard realShard;

    RigFixture(long files, long seed, int coldPerShape) {
        if (files < 2L * FILES_PER_SHARD) {
            throw new IllegalArgumentException("the rig needs at least " + 2 * FILES_PER_SHARD + " files");
        }
        this.files = files;
        this.seed = seed;
        this.coldPerShape = coldPerShape;
        this.big = ReconstructionFixtures.xorbs(BIG_XORBS, seed ^ 0xB16L);
        long a = Long.remainderUnsigned(0x9E3779B97F4A7C15L, files);
        while (gcd(a, files) != 1) a++;
        this.multiplier = a;
        for (int b = 0; b < BIG_XORBS; b++) listedIds.put(big.hashes()[b], bigXorbId(b));
        // Built at once (a second or two): every rig run and build needs them, and they are read from many threads.
        this.real = buildRealXorbs();
        this.realLayouts = new ArrayList<>();
        for (int j = 0; j < real.size(); j++) {
            ValidatedXorb v = validated(real.get(j));
            realLayouts.add(new XorbLayout(real.get(j).hash(), v.chunks(), v.storedSize()));
            listedIds.put(real.get(j).hash(), smallXorbId(j));
        }
        this.realShard = buildRealShard();
    }

    long shards() {
        return (files + FILES_PER_SHARD - 1) / FILES_PER_SHARD + 1; // the cold set's shard last
    }

    long xorbs() {
        return files + BIG_XORBS;
    }

    // ---- identities: everything from the index and the seed ----

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** A random-looking hash whose first 8 bytes (the BLOB's sort order) grow with {@code i} out of {@code n}. */
    private MerkleHash ordered(long kind, long i, long n) {
        long prefix = Long.divideUnsigned(-1L, n) * i;
        return MerkleHash.ofWords(Long.reverseBytes(prefix), mix(seed ^ kind ^ mix(i)), mix(seed + kind + i), mix(i ^ kind));
    }

    FileClass fileClass(long i) {
        if (i < FILES_PER_SHARD) return FileClass.SMALL; // shard 0 is real: small files only
        if (i >= files) return FileClass.K100; // the cold set
        long h = Long.remainderUnsigned(mix(seed ^ 0xC1A55L ^ mix(i)), 1_000_000);
        if (h < 10) return FileClass.K100;
        if (h < 110) return FileClass.K10;
        if (h < 1110) return FileClass.K1;
        return FileClass.SMALL;
    }

    /** The population's files of 10,000 or 100,000 terms (not the cold set), in index order. */
    long[] largeFiles() {
        java.util.stream.LongStream.Builder out = java.util.stream.LongStream.builder();
        for (long i = FILES_PER_SHARD; i < files; i++) {
            FileClass c = fileClass(i);
            if (c == FileClass.K10 || c == FileClass.K100) out.add(i);
        }
        return out.build().toArray();
    }

    /**
     * A large file's shape: the population's at random, the cold set's by its place in the set, so that
     * {@link #coldFile}'s half of each shape holds that shape (until layout 2 it was random there too, and the cold
     * stage's two shapes were each a mix of both).
     */
    Shape shape(long i) {
        if (i >= files) return ((i - files) & 1) == 0 ? Shape.UNMERGED : Shape.MERGED;
        return (mix(i) & 1) == 0 ? Shape.UNMERGED : Shape.MERGED;
    }

    long shardOf(long i) {
        return i >= files ? shards() - 1 : i / FILES_PER_SHARD;
    }

    String scopeOf(long i) {
        return i >= files ? COLD_SCOPE : "rig/repo-" + (shardOf(i) % SCOPES);
    }

    /** The cold set's files, half of each shape: indexes {@code files, files + 1, ...}. */
    long coldFile(Shape shape, int k) {
        return files + 2L * k + (shape == Shape.UNMERGED ? 0 : 1);
    }

    /** Popularity rank {@code r} (0 = most asked) to a file index: a bijection that scatters ranks over the index. */
    long fileOfRank(long r) {
        // An affine map mod files with a multiplier coprime to it: neighbours in rank are far apart in the index.
        // a < files and r < files stay below 2^63 for any index this machine can hold (files < 3 × 10^9).
        return Math.floorMod(multiplier * r + seed, files);
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    MerkleHash fileHash(long i) {
        if (i < FILES_PER_SHARD) return realShard().commit().files().get((int) i).fileHash();
        return ordered(0xF11EL, i, files + 2L * coldPerShape);
    }

    // ---- small xorbs ----

    private int[] smallChunkSizes(long j) {
        SplittableRandom r = new SplittableRandom(seed ^ mix(j));
        int[] sizes = new int[SMALL_CHUNKS];
        for (int k = 0; k < SMALL_CHUNKS; k++) sizes[k] = 1024 + r.nextInt(7 * 1024 + 1);
        return sizes;
    }

    /** Small xorb {@code j}'s hash, chunk table and stored size (real for shard 0's xorbs). */
    XorbLayout smallXorb(long j) {
        if (j < realXorbCount()) {
            return realLayouts.get((int) j);
        }
        int[] sizes = smallChunkSizes(j);
        byte[] hashes = new byte[32 * SMALL_CHUNKS];
        int[] byteEnds = new int[SMALL_CHUNKS];
        int[] unpackedEnds = new int[SMALL_CHUNKS];
        int b = 0;
        int u = 0;
        for (int k = 0; k < SMALL_CHUNKS; k++) {
            ordered(0xC4C4L, j * SMALL_CHUNKS + k, files * SMALL_CHUNKS).writeTo(hashes, 32 * k);
            b += XorbFormat.CHUNK_HEADER_SIZE + sizes[k];
            u += sizes[k];
            byteEnds[k] = b;
            unpackedEnds[k] = u;
        }
        return new XorbLayout(ordered(0x8012BL, j, files), new ChunkTable(SMALL_CHUNKS, hashes, byteEnds, unpackedEnds),
                b + XorbFormat.footerSize(SMALL_CHUNKS));
    }

    long smallXorbId(long j) {
        return j + 1;
    }

    Xorbs bigXorbs() {
        return big;
    }

    long bigXorbId(int b) {
        return files + 1 + b;
    }

    int realXorbCount() {
        return FILES_PER_SHARD + SMALL_CHUNKS;
    }

    /** Shard 0's xorbs as upload bodies: chunks of the same 1–8 KiB sizes, random bytes, stored uncompressed. */
    List<Xorb> realXorbs() {
        return real;
    }

    private List<Xorb> buildRealXorbs() {
        List<Xorb> xs = new ArrayList<>();
        for (int j = 0; j < realXorbCount(); j++) {
            xs.add(ShardFixtures.xorb(new SplittableRandom(seed ^ 0x5EA1L ^ mix(j)), SMALL_CHUNKS, 1024, 8 * 1024));
        }
        return xs;
    }

    static ValidatedXorb validated(Xorb x) {
        try (XorbValidator v = new XorbValidator()) {
            return v.validateUpload(x.body(), x.body().length, x.hash());
        } catch (FormatException e) {
            throw new IllegalStateException("a rig xorb does not validate", e);
        }
    }

    /** The object XorbIngest stores for a real xorb: its chunk records, then the server's own footer. */
    static byte[] storedObject(Xorb x) {
        ValidatedXorb v = validated(x);
        byte[] footer = v.footer();
        int records = v.chunks().recordBytes();
        byte[] out = new byte[records + footer.length];
        System.arraycopy(x.body(), 0, out, 0, records);
        System.arraycopy(footer, 0, out, records, footer.length);
        return out;
    }

    // ---- small files ----

    private record SmallTerm(long xorb, int from, int to) {
    }

    private List<SmallTerm> smallTerms(long i) {
        SplittableRandom r = new SplittableRandom(seed ^ 0x7E12L ^ mix(i));
        int n = 1 + r.nextInt(16);
        List<SmallTerm> ts = new ArrayList<>(n);
        for (int t = 0; t < n; t++) {
            int from = r.nextInt(SMALL_CHUNKS - 1);
            int to = from + 1 + r.nextInt(Math.min(4, SMALL_CHUNKS - from));
            ts.add(new SmallTerm(Math.floorMod(i + t, files), from, to));
        }
        return ts;
    }

    /** The record a synthetic small file registers as (what ShardValidation.checkFile would build for it). */
    private FileRecord smallFile(long i) {
        List<SmallTerm> ts = smallTerms(i);
        MerkleHash[] xorbs = new MerkleHash[ts.size()];
        int[] packed = new int[ts.size() * FileRecord.TERM_INTS];
        long size = 0;
        for (int t = 0; t < ts.size(); t++) {
            SmallTerm st = ts.get(t);
            XorbLayout x = smallXorb(st.xorb());
            xorbs[t] = x.hash(); // a file's terms name distinct xorbs here: 16 consecutive of 10^5 or more
            ChunkTable c = x.chunks();
            int o = t * FileRecord.TERM_INTS;
            packed[o + FileRecord.XORB] = t;
            packed[o + FileRecord.CHUNK_START] = st.from();
            packed[o + FileRecord.CHUNK_END] = st.to();
            packed[o + FileRecord.UNPACKED] = (int) c.unpackedLength(st.from(), st.to());
            packed[o + FileRecord.BYTE_START] = c.byteStart(st.from());
            packed[o + FileRecord.BYTE_END] = c.byteEnds()[st.to() - 1];
            size += packed[o + FileRecord.UNPACKED];
        }
        return new FileRecord(fileHash(i), size, xorbs, packed, null);
    }

    private FileRecord largeFile(long i, FileClass c) {
        int first = (int) Math.floorMod(mix(seed ^ i), (long) BIG_XORBS);
        return ReconstructionFixtures.file(shape(i), c.terms, big, first, fileHash(i));
    }

    FileRecord file(long i) {
        FileClass c = fileClass(i);
        return c == FileClass.SMALL ? smallFile(i) : largeFile(i, c);
    }

    // ---- shards ----

    /** A shard's upload body (real shard 0 only) and the commit registration computes for it. */
    record RealShard(byte[] body, ShardCommit commit, byte[] stored) {
    }

    /** Shard 0 as a client uploads it, and the commit {@link ShardValidation} makes of it against its real xorbs. */
    RealShard realShard() {
        return realShard;
    }

    private RealShard buildRealShard() {
        List<Xorb> xs = real;
        List<List<Term>> fileTerms = new ArrayList<>();
        for (long i = 0; i < FILES_PER_SHARD; i++) {
            List<Term> terms = new ArrayList<>();
            for (SmallTerm t : smallTerms(i)) terms.add(new Term(xs.get((int) t.xorb()), t.from(), t.to()));
            fileTerms.add(terms);
        }
        byte[] body = ClientUploads.shard(fileTerms.stream().map(ClientUploads::file).toList(),
                xs.subList(0, FILES_PER_SHARD));
        try {
            Shard shard = ShardParser.parse(body, 0, body.length);
            Map<MerkleHash, XorbLayout> layouts = new HashMap<>();
            for (XorbLayout l : realLayouts) layouts.put(l.hash(), l);
            byte[] stored = ShardWriter.writeStored(shard, System.currentTimeMillis() / 1000, -1L);
            ShardCommit commit = ShardValidation.validate(shard, layouts, XetHashes.chunkHash(body, 0, body.length),
                    scopeOf(0), stored.length, (d, n) -> { });
            return new RealShard(body, commit, stored);
        } catch (FormatException e) {
            throw new IllegalStateException("the rig's real shard does not validate", e);
        }
    }

    /** Shard {@code s}'s commit: real for shard 0, else built as ShardValidation builds one. */
    ShardCommit shard(long s) {
        if (s == 0) return realShard().commit();
        boolean cold = s == shards() - 1;
        long from = cold ? files : s * FILES_PER_SHARD;
        long to = cold ? files + 2L * coldPerShape : Math.min(files, from + FILES_PER_SHARD);
        List<FileRecord> fs = new ArrayList<>((int) (to - from));
        List<ShardCommit.DedupChunk> dedup = new ArrayList<>();
        List<MerkleHash> listed = new ArrayList<>();
        long terms = 0;
        if (cold) {
            for (int b = 0; b < BIG_XORBS; b++) listed.add(big.hashes()[b]);
        } else {
            for (long j = from; j < to; j++) {
                XorbLayout x = smallXorb(j);
                listed.add(x.hash());
                for (int k = 0; k < SMALL_CHUNKS; k++) {
                    if (XetHashes.isGlobalDedupEligible(x.chunks().hash(k))) {
                        dedup.add(new ShardCommit.DedupChunk(x.chunks().hash(k), x.hash()));
                    }
                }
            }
        }
        for (long i = from; i < to; i++) {
            FileRecord f = file(i);
            fs.add(f);
            terms += f.termCount();
            // §1.8 rule 2: the first chunk of every file is eligible for global dedup.
            MerkleHash firstXorb = f.xorbs()[f.term(0, FileRecord.XORB)];
            dedup.add(new ShardCommit.DedupChunk(firstChunk(i, f), firstXorb));
        }
        // About what ShardWriter.writeStored makes of such a shard: a header, 48 bytes per term and per file.
        long stored = 200 + 48 * (terms + 2L * fs.size());
        return new ShardCommit(ordered(0x54A2DL, s, shards()), cold ? COLD_SCOPE : scopeOf(from), stored, fs, listed, dedup);
    }

    /** The hash of file {@code i}'s first chunk (its first term's first chunk). */
    private MerkleHash firstChunk(long i, FileRecord f) {
        int chunk = f.term(0, FileRecord.CHUNK_START);
        if (fileClass(i) == FileClass.SMALL) {
            return smallXorb(i).chunks().hash(chunk); // term 0 of small file i names small xorb i
        }
        int first = (int) Math.floorMod(mix(seed ^ i), (long) BIG_XORBS);
        return big.tables()[(first + f.term(0, FileRecord.XORB)) % BIG_XORBS].hash(chunk);
    }

    /** Xorb ids by hash for the loader: small xorbs by their ordered prefix, big ones by lookup. */
    long xorbId(MerkleHash h) {
        Long known = listedIds.get(h);
        if (known != null) return known;
        long prefix = Long.reverseBytes(h.word0());
        return smallXorbId(Long.divideUnsigned(prefix, Long.divideUnsigned(-1L, files)));
    }
}
