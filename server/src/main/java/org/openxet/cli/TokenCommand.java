package org.openxet.cli;

import org.openxet.service.Access;
import org.openxet.service.Secrets;
import org.openxet.service.Tokens;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code openxet token}: mint a CAS bearer token for one repository scope, signed with the data dir's key. */
@Command(name = "token", description = "Print a signed CAS access token for a repository scope.")
public final class TokenCommand implements Callable<Integer> {
    @Option(names = "--data", paramLabel = "DIR", description = "Data directory of the server (default ./data).")
    Path data = Path.of("data");

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

    @Option(names = "--ttl", paramLabel = "DURATION", description = "Lifetime, e.g. 1h, 30m, 7d (default 1h, at most 30d).")
    String ttl = "1h";

    @Override
    public Integer call() throws Exception {
        Duration lifetime = DurationOption.parse("--ttl", ttl, "90s, 30m, 1h, 7d");
        if (lifetime.isNegative() || lifetime.isZero()) throw new IllegalArgumentException("--ttl must be longer than zero");
        if (lifetime.compareTo(Tokens.MAX_TTL) > 0) {
            throw new IllegalArgumentException("--ttl must be at most " + Tokens.MAX_TTL.toDays() + "d");
        }
        Secrets secrets = Secrets.loadOrCreate(DataDirs.existing(data));
        System.out.println(new Tokens(secrets.tokenKey()).mint(repo, level.write ? Access.WRITE : Access.READ, lifetime));
        return 0;
    }
}
