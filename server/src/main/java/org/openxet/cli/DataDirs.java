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
}
