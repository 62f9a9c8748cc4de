package org.openxet.service;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ServerConfigTest {
    /** {@code yaml} as a configuration file. */
    static ServerConfig loadYaml(String yaml) throws Exception {
        Path file = Files.createTempFile("openxet", ".yaml");
        try {
            Files.writeString(file, yaml);
            return ServerConfig.load(file);
        } finally {
            Files.delete(file);
        }
    }

    @Test
    void theAuthSectionListsTrustedIssuersWithTheirDefaults() throws Exception {
        ServerConfig c = loadYaml("""
                openxet:
                  auth:
                    max-lifetime: 2h
                    clock-skew: 0s
                    issuers:
                      - issuer: https://login.example.org
                        audience: openxet
                        jwks: https://login.example.org/.well-known/jwks.json
                      - issuer: hub
                        audience: cas
                        jwks: file:/etc/openxet/hub-jwks.json
                        algorithms: [EdDSA]
                        scope-claim: repository
                        access-claim: scope
                        jwks-refresh: 1m
                        jwks-min-interval: 2s
                """);
        assertEquals(Duration.ofHours(2), c.auth().maxLifetime());
        assertEquals(Duration.ZERO, c.auth().clockSkew());
        assertEquals(new AuthConfig.Issuer("https://login.example.org", "openxet",
                "https://login.example.org/.well-known/jwks.json"), c.auth().issuers().get(0));
        assertEquals(new AuthConfig.Issuer("hub", "cas", "file:/etc/openxet/hub-jwks.json", java.util.List.of("EdDSA"),
                "repository", "scope", Duration.ofMinutes(1), Duration.ofSeconds(2)), c.auth().issuers().get(1));
        assertEquals(AuthConfig.DEFAULTS, ServerConfig.load(null).auth());
        assertEquals(Duration.ofHours(24), AuthConfig.DEFAULTS.maxLifetime());
    }

    @Test
    void anIssuerWithoutItsClaimsOrWithKeysInClearTextOverTheNetworkIsRefused() {
        String entry = """
                openxet:
                  auth:
                    issuers:
                      - issuer: https://idp
                        audience: a
                        jwks: %s
                """;
        ServerConfig.BadValue plain = assertThrows(ServerConfig.BadValue.class,
                () -> loadYaml(entry.formatted("http://idp.example.org/jwks.json")));
        assertEquals("openxet.auth.issuers.0.jwks (OPENXET_AUTH_ISSUERS_0_JWKS) = 'http://idp.example.org/jwks.json': must be "
                + "file:/path, https://host/..., or http:// to a loopback host", plain.getMessage());
        assertTrue(assertThrows(ServerConfig.BadValue.class, () -> loadYaml("""
                openxet:
                  auth:
                    issuers:
                      - issuer: https://idp
                        jwks: https://idp/jwks.json
                """)).getMessage().contains("auth.issuers.0.audience"));
        assertTrue(assertThrows(ServerConfig.BadValue.class, () -> loadYaml(entry.formatted("https://idp/j") + """
                      - issuer: https://idp
                        audience: b
                        jwks: https://idp/k
                """)).getMessage().endsWith("listed twice"));
    }
    @Test
    void yamlFileOverridesTheDefaults(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("openxet.yaml");
        Files.writeString(yaml, """
                openxet:
                  port: 9090
                  host: 127.0.0.1
                  data: /srv/openxet
                  public:
                    url: https://cas.example.org
                  upload:
                    floor: 1024
                    window: PT45S
                    memory: 268435456
                  urls:
                    ttl: PT2H
                  dedup:
                    isolate: true
                  commit:
                    permits: 3
                  answer:
                    writers: 1
                  metrics: false
                  head:
                    timeout: 5s
                  idle:
                    timeout: 2m
                  address:
                    connections: 64
                  shutdown:
                    grace: 5s
                """);
        ServerConfig c = ServerConfig.load(yaml);
        assertEquals(9090, c.port());
        assertEquals("127.0.0.1", c.host());
        assertEquals(Path.of("/srv/openxet"), c.dataDir());
        assertEquals("https://cas.example.org", c.publicUrl());
        assertEquals(1024, c.uploadFloor());
        assertEquals(Duration.ofSeconds(45), c.uploadWindow());
        assertEquals(256L << 20, c.uploadMemory());
        assertEquals(Duration.ofHours(2), c.urlsTtl());
        assertEquals(true, c.dedupIsolate());
        assertEquals(3, c.commitPermits());
        assertEquals(1, c.answerWriters());
        assertEquals(false, c.metrics());
        assertEquals(new ServerConfig.Connections(Duration.ofSeconds(5), Duration.ofMinutes(2), 64, Duration.ofSeconds(5)),
                c.connections());
    }

    @Test
    void withoutAFileTheDefaultsHold() {
        ServerConfig c = ServerConfig.load(null);
        assertEquals(8080, c.port());
        assertEquals(4096, c.uploadFloor());
        assertEquals(Duration.ofHours(1), c.urlsTtl());
        assertEquals(4 * Runtime.getRuntime().availableProcessors(), c.commitPermits());
        assertEquals(Runtime.getRuntime().availableProcessors(), c.answerWriters());
        assertEquals(ServerConfig.Connections.DEFAULTS, c.connections());
        assertEquals(true, c.metrics());
    }

    @Test
    void sharedStorageIsReadAndItsPasswordStaysOutOfTheDescription(@TempDir Path dir) throws Exception {
        assertEquals(ServerConfig.Storage.EMBEDDED, ServerConfig.load(null).storage());
        Path yaml = dir.resolve("o.yaml");
        Files.writeString(yaml, """
                openxet:
                  index:
                    url: jdbc:postgresql://db.internal:5432/openxet?user=cas&password=hunter2
                  bucket:
                    url: s3://xet-blobs/node-pool
                  s3:
                    endpoint: http://127.0.0.1:9000
                    region: eu-west-1
                """);
        ServerConfig c = ServerConfig.load(yaml);
        assertEquals(new ServerConfig.Storage("jdbc:postgresql://db.internal:5432/openxet?user=cas&password=hunter2",
                "s3://xet-blobs/node-pool", "http://127.0.0.1:9000", "eu-west-1"), c.storage());
        String described = c.describe();
        assertTrue(described.contains("index.url=jdbc:postgresql://db.internal:5432/openxet?…"), described);
        assertTrue(described.contains("bucket.url=s3://xet-blobs/node-pool s3.endpoint=http://127.0.0.1:9000 s3.region=eu-west-1"), described);
        assertFalse(described.contains("hunter2"), described);
    }

    /** A password in the URL's query or before its host never reaches a message, a mistyped URL's refusal included. */
    @Test
    void aPasswordInTheIndexUrlIsNeverShown() {
        assertEquals("jdbc:postgresql://db:5432/cas?…",
                ServerConfig.Storage.indexUrlForLogs("jdbc:postgresql://cas:hunter2@db:5432/cas?sslmode=require"));
        assertEquals("jdbc:postgresql://db/cas", ServerConfig.Storage.indexUrlForLogs("jdbc:postgresql://u:p@ss@db/cas"));
        assertEquals("jdbc:postgresql://db/cas", ServerConfig.Storage.indexUrlForLogs("jdbc:postgresql://db/cas"));
        ServerConfig.BadValue typo = assertThrows(ServerConfig.BadValue.class, () -> new ServerConfig.Storage(
                "postgresql://cas:hunter2@db/x?user=u&password=hunter2", "", "", "us-east-1"));
        assertFalse(typo.getMessage().contains("hunter2"), typo.getMessage());
        assertEquals("openxet.index.url (OPENXET_INDEX_URL) = 'postgresql://db/x?…': must start with jdbc:postgresql:// "
                + "(or be empty for SQLite in the data dir)", typo.getMessage());
    }

    @Test
    void durationsTakeTheShortFormsAndIso(@TempDir Path dir) throws Exception {
        assertEquals(Duration.ofSeconds(20), ServerConfig.parseDuration("20s"));
        assertEquals(Duration.ofHours(1), ServerConfig.parseDuration("1h"));
        assertEquals(Duration.ofDays(7), ServerConfig.parseDuration("7d"));
        assertEquals(Duration.ofMinutes(90), ServerConfig.parseDuration("PT90M"));
        Path yaml = dir.resolve("o.yaml");
        Files.writeString(yaml, "openxet:\n  urls:\n    ttl: 2h\n  upload:\n    window: 45s\n");
        ServerConfig c = ServerConfig.load(yaml);
        assertEquals(Duration.ofHours(2), c.urlsTtl());
        assertEquals(Duration.ofSeconds(45), c.uploadWindow());
    }

    @Test
    void corsOriginsAreAnyByDefaultAListWhenGivenAndNoneWhenEmpty(@TempDir Path dir) throws Exception {
        assertEquals(java.util.List.of("*"), ServerConfig.load(null).corsOrigins());
        Path yaml = dir.resolve("cors.yaml");
        Files.writeString(yaml, "openxet:\n  cors:\n    origins: \"https://a.example, http://[::1]:8080\"\n");
        assertEquals(java.util.List.of("https://a.example", "http://[::1]:8080"), ServerConfig.load(yaml).corsOrigins());
        Files.writeString(yaml, "openxet:\n  cors:\n    origins: \"\"\n");
        assertEquals(java.util.List.of(), ServerConfig.load(yaml).corsOrigins());
    }

    @Test
    void unusableValuesAreRefusedWithTheKeyAndVariableNamed(@TempDir Path dir) throws Exception {
        String[][] cases = {
                {"port: abc", "openxet.port (OPENXET_PORT) = 'abc': not a whole number"},
                {"port: 70000", "openxet.port (OPENXET_PORT) = '70000': must be between 0 and 65535"},
                {"urls:\n    ttl: 1w", "openxet.urls.ttl (OPENXET_URLS_TTL) = '1w': not a duration (e.g. 500ms, 90s, 20m, 1h, 7d, or ISO-8601 PT1H)"},
                {"upload:\n    window: 0s", "openxet.upload.window (OPENXET_UPLOAD_WINDOW) = '0s': must be longer than zero"},
                {"upload:\n    floor: -5", "openxet.upload.floor (OPENXET_UPLOAD_FLOOR) = '-5': must be between 0 and 9223372036854775807"},
                {"dedup:\n    isolate: banana", "openxet.dedup.isolate (OPENXET_DEDUP_ISOLATE) = 'banana': must be true or false"},
                {"metrics: sometimes", "openxet.metrics (OPENXET_METRICS) = 'sometimes': must be true or false"},
                {"index:\n    readers: 0", "openxet.index.readers (OPENXET_INDEX_READERS) = '0': must be between 1 and 1024"},
                {"commit:\n    permits: -1", "openxet.commit.permits (OPENXET_COMMIT_PERMITS) = '-1': must be between 0 and 2147483647"},
                {"index:\n    url: mysql://db/x", "openxet.index.url (OPENXET_INDEX_URL) = 'mysql://db/x': must start with jdbc:postgresql:// (or be empty for SQLite in the data dir)"},
                {"bucket:\n    url: s3://Bad_Bucket", "openxet.bucket.url (OPENXET_BUCKET_URL) = 's3://Bad_Bucket': must be s3://bucket or s3://bucket/prefix (or empty for the local bucket in the data dir)"},
                {"s3:\n    endpoint: localhost:9000", "openxet.s3.endpoint (OPENXET_S3_ENDPOINT) = 'localhost:9000': must be http(s)://host[:port]"},
                {"cors:\n    origins: \"https://a.example, app.example\"", "openxet.cors.origins (OPENXET_CORS_ORIGINS) = 'https://a.example, app.example': each entry must be * or scheme://host[:port]"},
        };
        for (String[] c : cases) {
            Path yaml = dir.resolve("bad.yaml");
            Files.writeString(yaml, "openxet:\n  " + c[0] + "\n");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ServerConfig.load(yaml), c[0]);
            assertEquals(c[1], e.getMessage());
        }
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> ServerConfig.load(dir.resolve("absent.yaml")));
        assertTrue(missing.getMessage().contains("does not exist or is not readable"), missing.getMessage());
    }
}
