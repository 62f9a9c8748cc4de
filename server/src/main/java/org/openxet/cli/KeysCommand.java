package org.openxet.cli;

import org.openxet.service.KeySet;
import org.openxet.storage.IndexException;
import org.openxet.storage.StoredKey;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code openxet keys list | add | retire KID}: openxet's signing keys. A rotation is {@code keys add} (new tokens
 * and URLs are signed with the new key on every node within a second), then, once every token and URL of the old key
 * has expired (the maximum token lifetime, the URL lifetime), {@code keys retire OLD}.
 */
@Command(name = "keys", description = "Manage the keys openxet signs CAS tokens and fetch URLs with.",
        subcommands = {KeysCommand.ListKeys.class, KeysCommand.Add.class, KeysCommand.Retire.class})
public final class KeysCommand implements Runnable {
    @Override
    public void run() {
        System.err.println("usage: openxet keys list|add|retire [--data DIR] [--config FILE] ...");
    }

    private interface KeysWork {
        int run(KeySet keys) throws IndexException;
    }

    private static int withKeys(AuthOptions auth, String command, KeysWork work) throws IOException {
        try (AuthOptions.Opened opened = auth.open()) {
            return work.run(opened.keys());
        } catch (AuthOptions.Refused | IndexException | IllegalArgumentException e) {
            System.err.println("openxet keys " + command + ": " + e.getMessage());
            return 2;
        }
    }

    static Map<String, Object> describe(StoredKey k, String signing) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("kid", k.kid());
        line.put("use", k.use());
        line.put("algorithm", k.algorithm());
        line.put("created", k.createdAt() == 0 ? "imported from secrets.properties" : Instant.ofEpochMilli(k.createdAt()).toString());
        line.put("retired", k.retired() ? Instant.ofEpochMilli(k.retiredAt()).toString() : null);
        line.put("signs", k.kid().equals(signing));
        return line;
    }

    @Command(name = "list", description = "Print each key as one JSON line: id, use, algorithm, created, retired, "
            + "and whether it is the one new tokens or URLs are signed with (no key material).")
    static final class ListKeys implements Callable<Integer> {
        @Mixin
        AuthOptions auth;

        @Override
        public Integer call() throws Exception {
            return withKeys(auth, "list", keys -> {
                List<StoredKey> all = keys.list();
                String tokenSigner = keys.tokenSigner().kid();
                String urlSigner = keys.urlSigner().kid();
                for (StoredKey k : all) {
                    System.out.println(Json.line(describe(k, k.use().equals(StoredKey.TOKEN) ? tokenSigner : urlSigner)));
                }
                return 0;
            });
        }
    }

    @Command(name = "add", description = "Generate a key and sign with it from now on; the older keys still verify.")
    static final class Add implements Callable<Integer> {
        @Mixin
        AuthOptions auth;

        @Option(names = "--use", paramLabel = "token|url", description = "What the key signs: CAS tokens (default) or fetch URLs.")
        String use = StoredKey.TOKEN;

        @Option(names = "--algorithm", paramLabel = "ALG", description = "A token key's algorithm: HS256 (default), "
                + "ES256 or EdDSA; the public half of an ES256 or EdDSA key is published at /.well-known/jwks.json. "
                + "A url key is always BLAKE3.")
        String algorithm;

        @Override
        public Integer call() throws Exception {
            if (!use.equals(StoredKey.TOKEN) && !use.equals(StoredKey.URL)) {
                System.err.println("openxet keys add: --use must be token or url");
                return 2;
            }
            String alg = algorithm != null ? algorithm : use.equals(StoredKey.URL) ? KeySet.URL_ALGORITHM : "HS256";
            return withKeys(auth, "add", keys -> {
                StoredKey k = keys.add(use, alg);
                System.out.println(Json.line(describe(k, k.kid())));
                return 0;
            });
        }
    }

    @Command(name = "retire", description = "Retire a key: the tokens or URLs it signed are refused on every node "
            + "within a second. The only key of a use in use cannot be retired.")
    static final class Retire implements Callable<Integer> {
        @Mixin
        AuthOptions auth;

        @Parameters(index = "0", paramLabel = "KID")
        String kid;

        @Override
        public Integer call() throws Exception {
            return withKeys(auth, "retire", keys -> {
                StoredKey k = keys.retire(kid);
                System.out.println(Json.line(describe(k, null)));
                return 0;
            });
        }
    }
}
