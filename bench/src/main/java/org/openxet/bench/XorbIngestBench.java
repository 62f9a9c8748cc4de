package org.openxet.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openxet.protocol.ByteGrouping4;
import org.openxet.protocol.FormatException;
import org.openxet.protocol.Lz4;
import org.openxet.protocol.Lz4FrameDecoder;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.xorb.ChunkTable;
import org.openxet.protocol.xorb.ValidatedXorb;
import org.openxet.protocol.xorb.XorbBuilder;
import org.openxet.protocol.xorb.XorbFooter;
import org.openxet.protocol.xorb.XorbFormat;
import org.openxet.protocol.xorb.XorbValidator;

import java.util.concurrent.TimeUnit;

/**
 * Ingest of the seed's bench shape: a 64 MiB xorb of 1,024 text-like 64 KiB chunks, LZ4-compressed as the clients
 * do (about 2:1). Three ways, one thread each:
 * <ul>
 *   <li>{@code singlePass}: what the server does — validate, decoding and hashing every chunk once, and build the
 *       stored footer from that pass;</li>
 *   <li>{@code doublePass}: the upstream server's shape (which the seed kept rather than write its own footer
 *       builder) — validate, then decode and hash every chunk again to build the footer;</li>
 *   <li>{@code floor}: decode and hash every chunk, nothing else (no merkle root, no bookkeeping).</li>
 * </ul>
 * Scores are milliseconds per 64 MiB xorb.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class XorbIngestBench {
    static final int CHUNKS = 1024;
    static final int CHUNK = 65_536;

    private byte[] body;
    private MerkleHash expected;
    private XorbValidator validator;
    private Lz4FrameDecoder lz4;
    private final byte[] scratch = new byte[131_072];
    private final byte[] grouped = new byte[131_072];

    @Setup
    public void setup() throws FormatException {
        XorbBuilder b = new XorbBuilder(XorbBuilder.Compression.LZ4);
        for (int i = 0; i < CHUNKS; i++) {
            byte[] chunk = Lz4DecodeBench.words(1000 + i, CHUNK);
            b.add(chunk, 0, chunk.length);
        }
        body = b.build();
        validator = new XorbValidator();
        lz4 = Lz4.newDecoder();
        expected = validator.validateUpload(body, body.length, null).hash();
    }

    @TearDown(Level.Trial)
    public void close() {
        validator.close();
        lz4.close();
    }

    @Benchmark
    public byte[] singlePass() throws FormatException {
        ValidatedXorb v = validator.validateUpload(body, body.length, expected);
        return v.footer();
    }

    @Benchmark
    public byte[] doublePass() throws FormatException {
        ValidatedXorb v = validator.validateUpload(body, body.length, expected);
        // Upstream rebuilds the footer by decoding and hashing everything again.
        byte[] hashes = new byte[32 * v.chunks().count()];
        int[] byteEnds = new int[v.chunks().count()];
        int[] unpackedEnds = new int[v.chunks().count()];
        int p = 0;
        int unpacked = 0;
        for (int k = 0; k < v.chunks().count(); k++) {
            int ulen = decodeAndHash(p, hashes, k);
            p += 8 + XorbFormat.u24(body, p + 1);
            unpacked += ulen;
            byteEnds[k] = p;
            unpackedEnds[k] = unpacked;
        }
        return XorbFooter.write(v.hash(), new ChunkTable(v.chunks().count(), hashes, byteEnds, unpackedEnds));
    }

    @Benchmark
    public byte[] floor() throws FormatException {
        byte[] hashes = new byte[32 * CHUNKS];
        int p = 0;
        for (int k = 0; p < body.length; k++) {
            decodeAndHash(p, hashes, k);
            p += 8 + XorbFormat.u24(body, p + 1);
        }
        return hashes;
    }

    private int decodeAndHash(int p, byte[] hashes, int k) throws FormatException {
        int clen = XorbFormat.u24(body, p + 1);
        int scheme = body[p + 4];
        int ulen = XorbFormat.u24(body, p + 5);
        switch (scheme) {
            case 0 -> XetHashes.chunkHash(body, p + 8, ulen, hashes, 32 * k);
            case 1 -> {
                lz4.decodeFrame(body, p + 8, clen, scratch, 0, ulen);
                XetHashes.chunkHash(scratch, 0, ulen, hashes, 32 * k);
            }
            default -> {
                lz4.decodeFrame(body, p + 8, clen, grouped, 0, ulen);
                ByteGrouping4.regroup(grouped, 0, ulen, scratch, 0);
                XetHashes.chunkHash(scratch, 0, ulen, hashes, 32 * k);
            }
        }
        return ulen;
    }

}
