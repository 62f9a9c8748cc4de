package org.openxet.cli;

import org.openxet.service.Access;
import org.openxet.service.ServerConfig;
import org.openxet.service.Tokens;
import org.openxet.storage.IndexException;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code openxet token}: mint a CAS bearer token for one repository scope, signed with the server's newest key. */
@Command(name = "token", description = "Print a signed CAS access token for a repository scope.")
public final class TokenCommand implements Callable<Integer> {
    @Mixin
    AuthOptions auth;

    @Option(names = "--repo", required = true, paramLabel = "NAME", description = "Repository scope, as the token routes name it: e.g. models/alice/llama.")
    String repo;

    @ArgGroup(multiplicity = "1")
    Level level;

    static final class Level {
        @Option(names = "--read", required = true, description = "Read access.")
        boolean read;

        @Option(names = "--write", required = true, description = "Write access (implies read).")
        boolean write;
    }

    @Option(names = "--ttl", paramLabel = "DURATION", description = "Lifetime, e.g. 1h, 30m, 7d (default 1h, at most "
            + "openxet.auth.max-lifetime, 24h unless configured).")
    String ttl = "1h";

    @Override
    public Integer call() throws Exception {
        Duration lifetime = DurationOption.parse("--ttl", ttl, "90s, 30m, 1h, 7d");
        if (lifetime.isNegative() || lifetime.isZero()) throw new IllegalArgumentException("--ttl must be longer than zero");
        try (AuthOptions.Opened opened = auth.open()) {
            ServerConfig cfg = opened.config();
            if (lifetime.compareTo(cfg.auth().maxLifetime()) > 0) {
                throw new IllegalArgumentException("--ttl must be at most " + ServerConfig.describe(cfg.auth().maxLifetime())
                        + " (openxet.auth.max-lifetime)");
            }
            // A token for no user: only retiring the key that signed it, or its expiry, ends it.
            Tokens tokens = new Tokens(opened.keys(), cfg.auth(), Tokens.Revocations.NONE, Clock.systemUTC());
            System.out.println(tokens.mint(repo, level.write ? Access.WRITE : Access.READ, lifetime));
            return 0;
        } catch (AuthOptions.Refused | IndexException e) {
            System.err.println("openxet token: " + e.getMessage());
            return 2;
        }
    }
}
