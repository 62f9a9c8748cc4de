package org.openxet.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code openxet shard-info FILE}: parse a shard and print it as JSON. */
@Command(name = "shard-info", description = "Parse a shard (upload or stored) and print it as JSON.")
public final class ShardInfoCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE")
    Path file;

    @Override
    public Integer call() {
        System.err.println("openxet: shard-info is not wired yet");
        return 2;
    }
}
