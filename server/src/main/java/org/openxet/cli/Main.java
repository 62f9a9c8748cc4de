package org.openxet.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.List;

/**
 * The {@code openxet} command line: the server and the tools users debug their uploads with, in one jar.
 * Exit codes: 0 success, 1 the input is invalid (a malformed xorb or shard, a hash mismatch) or a check found damage,
 * 2 usage errors and storage that cannot be opened or read.
 */
@Command(name = "openxet", mixinStandardHelpOptions = true, versionProvider = VersionCommand.Provider.class,
        description = "A self-hostable Xet CAS server.")
public final class Main implements Runnable {
    /** The subcommands, in the order {@code openxet --help} lists them. */
    static final List<Class<?>> COMMANDS = List.of(CommandLine.HelpCommand.class, ServeCommand.class,
            TokenCommand.class, UserCommand.class, KeysCommand.class, VersionCommand.class, HashCommand.class,
            XorbInfoCommand.class, ShardInfoCommand.class, GcCommand.class, FsckCommand.class, RepairCommand.class,
            BackupCommand.class, IndexCommand.class, TrainAotCommand.class);

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /**
     * Carrier threads for virtual threads: at least this many, not one per core. sqlite-jdbc calls SQLite through JNI,
     * and a virtual thread in native code holds its carrier for the whole call (a commit's fsync, a page fault on an
     * index larger than the page cache); with one carrier per core, two slow calls on a 2-core node stopped every
     * request; 8 carriers held the release rig's p99 at higher rates (docs/BENCHMARKS.md, "Release rig"). The JDK's
     * own property wins when it is set.
     */
    static final int MIN_CARRIERS = 8;
    static final String CARRIERS_PROPERTY = "jdk.virtualThreadScheduler.parallelism";

    public static void main(String[] args) {
        // Before any virtual thread exists: the scheduler reads the property once, when the first one starts.
        if (System.getProperty(CARRIERS_PROPERTY) == null) {
            System.setProperty(CARRIERS_PROPERTY,
                    Integer.toString(Math.max(MIN_CARRIERS, Runtime.getRuntime().availableProcessors())));
        }
        System.exit(run(args));
    }

    public static int run(String... args) {
        CommandLine cli = new CommandLine(new Main());
        for (Class<?> command : commandsFor(args)) cli.addSubcommand(command);
        addHelpOptions(cli);
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (!isUsageError(e)) throw e;
            // An operator's mistake (a missing file, an unusable value): one line, not a stack trace.
            cmd.getErr().println("openxet " + cmd.getCommandName() + ": " + describe(e));
            cmd.getErr().flush();
            return 2;
        });
        return cli.execute(args);
    }

    /**
     * The subcommands a command line needs: the one it names, else (help, a misspelt name, none) all of them. Why not
     * always all: picocli reads every command's annotations into its model when the command line is built, and its
     * own classes are Java 5 bytecode, which the AOT cache cannot hold ("Old class has been linked"), so each start
     * verifies and links them again. Each command modelled is start-up time, {@code serve}'s included
     * (docs/DESIGN.md, "Starting warm").
     */
    static List<Class<?>> commandsFor(String... args) {
        if (args.length > 0) {
            for (Class<?> command : COMMANDS) {
                if (command != CommandLine.HelpCommand.class
                        && command.getAnnotation(Command.class).name().equals(args[0])) {
                    return List.of(command);
                }
            }
        }
        return COMMANDS;
    }

    /** {@code -h}/{@code --help} on every subcommand, however deep, with the top level's own standard options. */
    private static void addHelpOptions(CommandLine cli) {
        for (CommandLine sub : cli.getSubcommands().values()) {
            if (sub.getCommandSpec().findOption("--help") == null) {
                sub.getCommandSpec().addOption(CommandLine.Model.OptionSpec.builder("-h", "--help").usageHelp(true)
                        .description("Show this help message and exit.").build());
            }
            addHelpOptions(sub);
        }
    }

    /**
     * Failures told in one line with exit 2, as each command tells its own storage errors: an operator's mistake, or
     * an index that cannot be opened or read (a backup's or a gc's escaped as a stack trace and exit 1, the code of
     * findings).
     */
    private static boolean isUsageError(Exception e) {
        return e instanceof IllegalArgumentException || e instanceof java.io.IOException
                || e instanceof java.time.DateTimeException || e instanceof org.openxet.storage.IndexException;
    }

    /** What went wrong, for a person: the file and the reason for file errors, otherwise the message. */
    static String describe(Throwable e) {
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getFile() + ": " + f.getReason();
        }
        if (e instanceof java.nio.file.NoSuchFileException f) return "no such file or directory: " + f.getFile();
        if (e instanceof java.nio.file.AccessDeniedException f) return "permission denied: " + f.getFile();
        if (e instanceof java.nio.file.FileSystemException f) return f.getFile() + ": " + e.getClass().getSimpleName();
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
