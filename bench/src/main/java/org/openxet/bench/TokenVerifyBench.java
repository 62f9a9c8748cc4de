package org.openxet.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openxet.service.Access;
import org.openxet.service.AuthConfig;
import org.openxet.service.Grant;
import org.openxet.service.KeySet;
import org.openxet.service.Secrets;
import org.openxet.service.Tokens;
import org.openxet.storage.FileAuthStore;
import org.openxet.storage.StoredKey;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What checking a CAS token costs a request, by the algorithm of the key that signed it: HS256 (the default, and
 * every token minted before key ids), ES256 and EdDSA ({@code openxet keys add --algorithm}, published at
 * /.well-known/jwks.json; an external issuer's keys cost the same). {@code firstSight}: a token not seen before
 * (parse, key lookup, signature, claims), cycling through more distinct tokens than {@code Tokens} keeps verified;
 * {@code repeated}: the same token again, as a client sends it for an hour of requests. Scores are microseconds per
 * token; at 1,000 requests/s, 10 µs is 1 % of a core.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class TokenVerifyBench {
    @Param({"HS256", "ES256", "EdDSA"})
    public String algorithm;

    /** More than Tokens.VERIFIED_CAPACITY (4,096), so each comes back after it was forgotten. */
    private static final int DISTINCT = 8192;
    private Tokens tokens;
    private String token;
    private String[] distinct;
    private int next;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        Path dir = Files.createTempDirectory("openxet-bench-keys");
        KeySet keys = KeySet.open(new FileAuthStore(dir), Secrets.loadOrCreate(dir), Clock.systemUTC());
        if (!algorithm.equals("HS256")) keys.add(StoredKey.TOKEN, algorithm);
        tokens = new Tokens(keys, AuthConfig.DEFAULTS, Tokens.Revocations.NONE, Clock.systemUTC());
        token = tokens.mint("models/alice/llama", Access.READ, Duration.ofHours(1));
        distinct = new String[DISTINCT];
        for (int i = 0; i < DISTINCT; i++) distinct[i] = tokens.mint("models/alice/m" + i, Access.READ, Duration.ofHours(1));
    }

    @Benchmark
    public Grant firstSight() throws Exception {
        next = (next + 1) % DISTINCT;
        return tokens.verify(distinct[next]);
    }

    @Benchmark
    public Grant repeated() throws Exception {
        return tokens.verify(token);
    }
}
