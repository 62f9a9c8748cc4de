package org.openxet.testing;

import org.openxet.protocol.MerkleBuilder;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import org.openxet.protocol.shard.FileEntry;
import org.openxet.protocol.shard.FileTerm;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardHeader;
import org.openxet.protocol.shard.ShardWriter;
import org.openxet.protocol.shard.XorbBlock;

import java.io.ByteArrayOutputStream;
import java.util.List;

/**
 * A file of one {@link SyntheticXorb} (four 2 KiB chunks drawn from {@code seed}) as a client uploads it: the xorb,
 * then a shard registering the file with one term over the whole xorb and listing the xorb's chunks.
 */
public record SyntheticFile(SyntheticXorb xorb, byte[] shard, MerkleHash file, byte[] content) {
    public static SyntheticFile of(long seed) {
        SyntheticXorb x = SyntheticXorb.of(4, 2048, seed);
        MerkleBuilder chunks = new MerkleBuilder();
        for (int i = 0; i < 4; i++) chunks.add(x.chunkHashes(), 32 * i, x.chunkSize());
        MerkleHash file = XetHashes.fileHash(chunks);
        Shard shard = new Shard(ShardHeader.withoutFooter(), List.of(new FileEntry(file,
                FileEntry.FLAG_WITH_VERIFICATION, List.of(new FileTerm(x.hash(), 0, 4 * x.chunkSize(), 0, 4)),
                List.of(XetHashes.verificationHash(x.chunkHashes(), 0, 4)), null)),
                List.of(new XorbBlock(x.hash(), 0, 4 * x.chunkSize(), 0, x.entries())), null);
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        for (byte[] c : x.chunks()) content.writeBytes(c);
        return new SyntheticFile(x, ShardWriter.write(shard), file, content.toByteArray());
    }

    /** Uploads the xorb, then the shard, to {@code server} under {@code token}'s scope; fails on anything but 200. */
    public void upload(TestServer server, String token) throws Exception {
        var x = server.post("/v1/xorbs/default/" + xorb.hash().hex(), token, xorb.body());
        if (x.statusCode() != 200) throw new AssertionError("xorb upload: " + x.statusCode() + " " + x.body());
        var s = server.post("/v1/shards", token, shard);
        if (s.statusCode() != 200) throw new AssertionError("shard upload: " + s.statusCode() + " " + s.body());
    }
}
