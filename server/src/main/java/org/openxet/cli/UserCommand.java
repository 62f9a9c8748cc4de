package org.openxet.cli;

import org.openxet.service.Access;
import org.openxet.service.ServerConfig;
import org.openxet.service.Users;
import org.openxet.storage.IndexException;
import org.openxet.storage.PostgresIndex;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;

/** {@code openxet user add}: issue a user token for the Hub-style token routes. */
@Command(name = "user", description = "Manage user tokens for the /api/.../xet-*-token routes.",
        subcommands = {UserCommand.Add.class})
public final class UserCommand implements Runnable {
    @Override
    public void run() {
        System.err.println("usage: openxet user add --data DIR --name NAME --repos PATTERNS [--write]");
    }

    @Command(name = "add", description = "Add (or replace) a user and print its new token once.")
    static final class Add implements Callable<Integer> {
        @Option(names = "--data", paramLabel = "DIR", description = "Data directory of the server (default ./data).")
        Path data;

        @Option(names = "--config", paramLabel = "FILE", description = "The server's YAML configuration file, if it has "
                + "one. With an index.url (there or in OPENXET_INDEX_URL) the user goes into that shared index.")
        Path config;

        @Option(names = "--name", required = true, description = "User name.")
        String name;

        @Option(names = "--repos", required = true, paramLabel = "PATTERNS",
                description = "Comma-separated repository scopes, '*' as wildcard, e.g. 'models/alice/*,datasets/alice/*'.")
        String repos;

        @Option(names = "--write", description = "Allow write tokens (default: read only).")
        boolean write;

        @Override
        public Integer call() throws Exception {
            ServerConfig cfg = ServerConfig.load(config);
            Path dir = DataDirs.existing(data != null ? data : cfg.dataDir());
            var patterns = Arrays.stream(repos.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
            Access access = write ? Access.WRITE : Access.READ;
            String indexUrl = cfg.storage().indexUrl();
            if (indexUrl.isEmpty()) {
                if (Files.exists(dir.resolve(Users.SHARED_MARKER))) {
                    System.err.println("openxet user add: the server of " + dir + " keeps its users in its shared index,"
                            + " not in " + Users.FILE + ": pass its --config, or set OPENXET_INDEX_URL as it has it");
                    return 2;
                }
                System.out.println(new Users(dir).add(name, patterns, access));
                return 0;
            }
            // Nodes sharing an index share its users: every node knows this one within a second.
            try (PostgresIndex index = new PostgresIndex(indexUrl, 1)) {
                System.out.println(new Users(dir, index).add(name, patterns, access));
            } catch (IndexException e) {
                System.err.println("openxet user add: " + e.getMessage());
                return 2;
            }
            System.err.println("openxet user add: stored in the shared index; every node sharing it knows the user");
            return 0;
        }
    }
}
