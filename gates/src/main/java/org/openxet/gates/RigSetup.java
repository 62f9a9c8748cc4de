package org.openxet.gates;

import org.openxet.service.Access;
import org.openxet.service.Secrets;
import org.openxet.service.Tokens;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the release rig and the restart gate stand on, from the flags they share: the fixture ({@code --files},
 * {@code --seed}, {@code --cold}), where it lives ({@code --keep DIR}, else a directory removed at the end;
 * {@code --index-url} for PostgreSQL), the request mix ({@link RigLoad.Workload}), and the load generator's tokens,
 * minted with the data directory's key as a node's own token route would mint them.
 */
final class RigSetup {
    /** The options it reads ({@code gates/run} refuses any other): its own and those of what it calls. */
    static final Set<String> OPTIONS = Args.union(Set.of(
            "files", "keep", "index-url", "cold", "max-in-flight", "seed"),
            RigLoad.OPTIONS);

    private static final Duration TOKEN_LIFETIME = Duration.ofHours(12);

    final RigFixture fixture;
    final RigLoad.Workload workload;
    /** The PostgreSQL index, or "" for SQLite in the data directory. */
    final String indexUrl;
    final Path data;
    private final boolean kept;
    private Tokens tokens;
    private String writeToken;
    private final Map<String, String> readTokens = new ConcurrentHashMap<>();

    private RigSetup(RigFixture fixture, RigLoad.Workload workload, String indexUrl, Path data, boolean kept) {
        this.fixture = fixture;
        this.workload = workload;
        this.indexUrl = indexUrl;
        this.data = data;
        this.kept = kept;
    }

    /** The setup the flags name; {@code tempPrefix} names the directory made when there is no {@code --keep}. */
    static RigSetup of(Args args, String tempPrefix) throws java.io.IOException {
        RigFixture fixture = new RigFixture(Long.parseLong(args.string("files", "100000")),
                Long.parseLong(args.string("seed", "1")), args.integer("cold", 50));
        String keep = args.string("keep", "");
        Path data = keep.isEmpty() ? Files.createTempDirectory(tempPrefix).resolve("data") : Path.of(keep);
        return new RigSetup(fixture, RigLoad.Workload.of(args), args.string("index-url", ""), data, !keep.isEmpty());
    }

    long files() {
        return fixture.files;
    }

    String backend() {
        return indexUrl.isEmpty() ? "sqlite" : "postgres";
    }

    /** The PostgreSQL index for {@link ServerProcess#start}, or null for SQLite. */
    String indexUrlOrNull() {
        return indexUrl.isEmpty() ? null : indexUrl;
    }

    /** The fixture as kept in {@link #data}, or built there now (RigBuild). */
    RigBuild.Built build() throws Exception {
        return RigBuild.existingOrBuild(fixture, data, indexUrlOrNull(), kept);
    }

    /** A load generator on the server at {@code port}: a read token per scope, one write token for the writes. */
    synchronized RigLoad load(int port, Args args) throws java.io.IOException {
        if (tokens == null) {
            tokens = new Tokens(Secrets.loadOrCreate(data).tokenKey());
            writeToken = tokens.mint("rig/writes", Access.WRITE, TOKEN_LIFETIME);
        }
        return new RigLoad(fixture, port, scope -> readTokens.computeIfAbsent(scope,
                s -> tokens.mint(s, Access.READ, TOKEN_LIFETIME)), writeToken, workload,
                args.integer("max-in-flight", 1024));
    }

    /** Removes the data directory unless it was given with {@code --keep}. */
    void removeIfTemporary() throws java.io.IOException {
        if (!kept) Files2.deleteTree(data.getParent());
    }
}
