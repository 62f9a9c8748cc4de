package org.openxet.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code openxet} command line: the server and the tools users debug their uploads with, in one jar.
 * Exit codes: 0 success, 1 the input is invalid (a malformed xorb or shard, a hash mismatch), 2 usage errors.
 */
@Command(name = "openxet", mixinStandardHelpOptions = true, versionProvider = VersionCommand.Provider.class,
        description = "A self-hostable Xet CAS server.",
        subcommands = {ServeCommand.class, TokenCommand.class, UserCommand.class, VersionCommand.class, HashCommand.class,
                XorbInfoCommand.class, ShardInfoCommand.class})
public final class Main implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    public static int run(String... args) {
        return new CommandLine(new Main()).execute(args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
