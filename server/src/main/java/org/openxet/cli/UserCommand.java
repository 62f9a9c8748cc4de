package org.openxet.cli;

import org.openxet.service.Access;
import org.openxet.service.Users;
import org.openxet.storage.IndexException;
import org.openxet.storage.StoredUser;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code openxet user}: the user tokens of the Hub-style token routes. */
@Command(name = "user", description = "Manage user tokens for the /api/.../xet-*-token routes.",
        subcommands = {UserCommand.Add.class, UserCommand.Revoke.class, UserCommand.Reissue.class, UserCommand.ListUsers.class})
public final class UserCommand implements Runnable {
    @Override
    public void run() {
        System.err.println("usage: openxet user add|revoke|reissue|list [--data DIR] [--config FILE] ...");
    }

    /** Runs {@code work} on the users the server reads; a refusal or a store failure is exit code 2. */
    private static int withUsers(AuthOptions auth, String command, UsersWork work) throws IOException {
        try (AuthOptions.Opened opened = auth.open()) {
            int code = work.run(opened.users());
            if (code == 0 && opened.store().shared()) {
                System.err.println("openxet user " + command + ": stored in the shared index; every node sharing it "
                        + "knows within " + Users.REFRESH.toSeconds() + " s");
            }
            return code;
        } catch (AuthOptions.Refused | IndexException e) {
            System.err.println("openxet user " + command + ": " + e.getMessage());
            return 2;
        }
    }

    private interface UsersWork {
        int run(Users users) throws IndexException;
    }

    @Command(name = "add", description = "Add (or replace) a user and print its new token once.")
    static final class Add implements Callable<Integer> {
        @Mixin
        AuthOptions auth;

        @Option(names = "--name", required = true, description = "User name.")
        String name;

        @Option(names = "--repos", required = true, paramLabel = "PATTERNS",
                description = "Comma-separated repository scopes, '*' as wildcard, e.g. 'models/alice/*,datasets/alice/*'.")
        String repos;

        @Option(names = "--write", description = "Allow write tokens (default: read only).")
        boolean write;

        @Override
        public Integer call() throws Exception {
            var patterns = Arrays.stream(repos.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
            return withUsers(auth, "add", users -> {
                System.out.println(users.add(name, patterns, write ? Access.WRITE : Access.READ));
                return 0;
            });
        }
    }

    @Command(name = "revoke", description = "Revoke a user: its token mints no CAS token from now on, and the CAS "
            + "tokens minted for it are refused by every node within a second.")
    static final class Revoke implements Callable<Integer> {
        @Mixin
        AuthOptions auth;

        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Override
        public Integer call() throws Exception {
            return withUsers(auth, "revoke", users -> {
                if (!users.revoke(name)) {
                    System.err.println("openxet user revoke: no user " + name);
                    return 2;
                }
                System.err.println("openxet user revoke: " + name + " revoked; `openxet user reissue " + name
                        + "` gives it a new token");
                return 0;
            });
        }
    }

    @Command(name = "reissue", description = "Give a user a new token (printed once); its old token and the CAS tokens "
            + "minted with it stay refused.")
    static final class Reissue implements Callable<Integer> {
        @Mixin
        AuthOptions auth;

        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Override
        public Integer call() throws Exception {
            return withUsers(auth, "reissue", users -> {
                String token = users.reissue(name);
                if (token == null) {
                    System.err.println("openxet user reissue: no user " + name);
                    return 2;
                }
                System.out.println(token);
                return 0;
            });
        }
    }

    @Command(name = "list", description = "Print each user as one JSON line (no token: only its hash is stored).")
    static final class ListUsers implements Callable<Integer> {
        @Mixin
        AuthOptions auth;

        @Override
        public Integer call() throws Exception {
            return withUsers(auth, "list", users -> {
                for (StoredUser u : users.list()) {
                    Map<String, Object> line = new LinkedHashMap<>();
                    line.put("name", u.name());
                    line.put("repos", u.repos());
                    line.put("access", u.access());
                    line.put("revoked", u.revoked());
                    line.put("generation", u.generation());
                    System.out.println(Json.line(line));
                }
                return 0;
            });
        }
    }
}
