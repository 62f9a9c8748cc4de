package org.openxet.cli;

import org.openxet.service.KeySet;
import org.openxet.service.Secrets;
import org.openxet.service.ServerConfig;
import org.openxet.service.Services;
import org.openxet.service.Users;
import org.openxet.storage.AuthStore;
import org.openxet.storage.FileAuthStore;
import org.openxet.storage.IndexException;
import org.openxet.storage.PostgresIndex;
import picocli.CommandLine.Mixin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where {@code openxet user}, {@code keys} and {@code token} find the users and keys a server reads: the data dir's
 * files, or with an index URL (in the {@code --config} file or {@code OPENXET_INDEX_URL}) the shared index, which
 * every node re-reads within a second.
 */
final class AuthOptions {
    @Mixin
    StorageOptions storage;

    /** The store and what it needs, open until closed. */
    record Opened(ServerConfig config, Path dataDir, AuthStore store, PostgresIndex index) implements AutoCloseable {
        Users users() {
            return new Users(dataDir, store);
        }

        /** The key set, the data dir's secrets.properties keys imported first if the store has none yet. */
        KeySet keys() throws IOException, IndexException {
            Secrets secrets = Secrets.loadOrCreate(dataDir);
            // The keys the store would import must be the ones the nodes hold (as a node checks at its start).
            if (index != null) Services.requireSharedKeys(index, secrets, dataDir);
            return KeySet.open(store, secrets, java.time.Clock.systemUTC());
        }

        @Override
        public void close() {
            if (index != null) index.close();
        }
    }

    /** A usage error the command reports on stderr with exit code 2. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    Opened open() throws IOException, IndexException, Refused {
        ServerConfig cfg = storage.load();
        Path dir = DataDirs.existing(cfg.dataDir());
        String indexUrl = cfg.storage().indexUrl();
        if (indexUrl.isEmpty()) {
            if (Files.exists(dir.resolve(Users.SHARED_MARKER))) {
                throw new Refused("the server of " + dir + " keeps its users and keys in its shared index, not in "
                        + FileAuthStore.USERS + " or " + FileAuthStore.KEYS + ": pass its --config, or set "
                        + "OPENXET_INDEX_URL as it has it");
            }
            return new Opened(cfg, dir, new FileAuthStore(dir), null);
        }
        PostgresIndex index = new PostgresIndex(indexUrl, 1);
        return new Opened(cfg, dir, Services.authStore(index, dir), index);
    }
}
