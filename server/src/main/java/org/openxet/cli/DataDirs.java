package org.openxet.cli;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** The operator tools write keys and users into a server's data dir: they never create one by accident. */
final class DataDirs {
    private DataDirs() {
    }

    /**
     * {@code dir} if it exists. A mistyped {@code --data} (or none, run from another directory) used to create a fresh
     * {@code ./data} with new keys, whose tokens the real server then refused as forged.
     */
    static Path existing(Path dir) throws NoSuchFileException {
        if (!Files.isDirectory(dir)) {
            throw new NoSuchFileException(dir.toAbsolutePath().toString(), null,
                    "no such data directory; pass the server's --data (it is created by `openxet serve`)");
        }
        return dir;
    }

    /**
     * {@code dir} if it exists and holds its SQLite index, for the tools that check or repair one. Opened where it is
     * missing, SQLite would create an empty index: fsck then called every object unknown and exited 0 (a lost index
     * looked healthy), and the file it left made {@code index rebuild} refuse.
     */
    static Path withIndex(Path dir) throws NoSuchFileException {
        Path index = existing(dir).resolve("index.sqlite");
        if (!Files.exists(index)) {
            throw new NoSuchFileException(index.toAbsolutePath().toString(), null, "no index here; a data dir whose"
                    + " index was lost is rebuilt from its bucket by `openxet index rebuild`");
        }
        return dir;
    }
}
