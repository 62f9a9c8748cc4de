package org.openxet.cli;

import org.openxet.protocol.FormatException;
import org.openxet.protocol.shard.Shard;
import org.openxet.protocol.shard.ShardJson;
import org.openxet.protocol.shard.ShardParser;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code openxet shard-info FILE}: parse a shard (as uploaded, or as stored) and print it as JSON. */
@Command(name = "shard-info", description = "Parse a shard (upload or stored) and print it as JSON (one line).")
public final class ShardInfoCommand implements Callable<Integer> {
    /** Shards larger than this are not something a client uploads (§4.6: 64 MiB target). */
    private static final long MAX_SHARD_BYTES = 1L << 30;

    @Parameters(index = "0", paramLabel = "FILE")
    Path file;

    @Override
    public Integer call() throws IOException {
        if (Files.size(file) > MAX_SHARD_BYTES) {
            System.err.println("openxet: " + file + ": too large to be a shard");
            return 1;
        }
        try {
            Shard shard = ShardParser.parse(Files.readAllBytes(file));
            System.out.println(ShardJson.toJson(shard));
            return 0;
        } catch (FormatException e) {
            System.err.println("openxet: " + file + ": invalid shard: " + e.getMessage());
            return 1;
        }
    }
}
