package org.openxet.cli;

import org.openxet.protocol.Chunker;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.XetHashes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;

/** {@code openxet hash FILE}: the Xet file hash (the file id) with xet-core's chunking. */
@Command(name = "hash", description = "Chunk a file like xet-core and print its Xet file hash (one JSON line).")
public final class HashCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE")
    Path file;

    record Result(String fileHash, long size, int chunks) {
    }

    @Override
    public Integer call() throws IOException {
        long[] size = {0};
        int[] n = {0};
        byte[][] raw = {new byte[32 * 1024]};
        long[][] sizes = {new long[1024]};
        try (InputStream in = Files.newInputStream(file)) {
            Chunker.chunkStream(in, Chunker.Rule.XET_CORE, (buf, off, len) -> {
                if (n[0] == sizes[0].length) {
                    sizes[0] = Arrays.copyOf(sizes[0], n[0] * 2);
                    raw[0] = Arrays.copyOf(raw[0], 32 * n[0] * 2);
                }
                XetHashes.chunkHash(buf, off, len, raw[0], 32 * n[0]);
                sizes[0][n[0]] = len;
                n[0]++;
                size[0] += len;
            });
        }
        MerkleHash fileHash = XetHashes.fileHash(raw[0], sizes[0], n[0]);
        System.out.println(Json.line(new Result(fileHash.hex(), size[0], n[0])));
        return 0;
    }
}
