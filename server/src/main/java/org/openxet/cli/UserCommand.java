package org.openxet.cli;

import org.openxet.service.Access;
import org.openxet.service.Users;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

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
        Path data = Path.of("data");

        @Option(names = "--name", required = true, description = "User name.")
        String name;

        @Option(names = "--repos", required = true, paramLabel = "PATTERNS",
                description = "Comma-separated repository scopes, '*' as wildcard, e.g. 'models/alice/*,datasets/alice/*'.")
        String repos;

        @Option(names = "--write", description = "Allow write tokens (default: read only).")
        boolean write;

        @Override
        public Integer call() throws Exception {
            String token = new Users(DataDirs.existing(data)).add(name, Arrays.stream(repos.split(",")).map(String::trim)
                    .filter(s -> !s.isEmpty()).toList(), write ? Access.WRITE : Access.READ);
            System.out.println(token);
            return 0;
        }
    }
}
