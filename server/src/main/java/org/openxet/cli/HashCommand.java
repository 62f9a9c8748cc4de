package org.openxet.cli;

import org.openxet.protocol.Chunker;
import org.openxet.protocol.MerkleBuilder;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code openxet hash FILE}: the Xet file hash (the file id) with xet-core's chunking. */
@Command(name = "hash", description = "Chunk a file like xet-core and print its Xet file hash (one JSON line).")
public final class HashCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE")
    Path file;

    record Result(String fileHash, long size, long chunks) {
    }

    @Override
    public Integer call() throws IOException {
        long[] size = {0};
        MerkleBuilder chunks = new MerkleBuilder();
        byte[] hash = new byte[32];
        try (InputStream in = Files.newInputStream(file)) {
            Chunker.chunkStream(in, Chunker.Rule.XET_CORE, (buf, off, len) -> {
                XetHashes.chunkHash(buf, off, len, hash, 0);
                chunks.add(hash, 0, len);
                size[0] += len;
            });
        }
        long count = chunks.leaves();
        MerkleHash fileHash = XetHashes.fileHash(chunks);
        System.out.println(Json.line(new Result(fileHash.hex(), size[0], count)));
        return 0;
    }
}
