package org.openxet.service;

import org.openxet.storage.OwnerOnly;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One server per data dir: an exclusive lock on {@code LOCK} in it, held while the server runs and released by the OS
 * when the process ends, {@code kill -9} included. Without it a second server on the same dir took the first one's
 * {@code RUNNING} marker for a crash and "reconciled" the live bucket, deleting objects the first had just
 * acknowledged.
 */
public final class DataDirLock implements AutoCloseable {
    static final String FILE = "LOCK";

    private final FileChannel channel;
    private final FileLock lock;

    private DataDirLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** The data dir is locked by another live process (or by this one, through another lock). */
    public static final class InUse extends IOException {
        InUse(String message) {
            super(message);
        }
    }

    /** Creates the dir if needed and locks it, or fails at once with {@link InUse}. */
    public static DataDirLock acquire(Path dataDir) throws IOException {
        if (!Files.isDirectory(dataDir)) {
            // A new data dir: its entry in its parent is made durable like the bucket's directories below it.
            OwnerOnly.directories(dataDir);
            Path parent = dataDir.toAbsolutePath().getParent();
            if (parent != null) {
                OwnerOnly.syncDirectory(parent);
            }
        }
        FileChannel channel = FileChannel.open(dataDir.resolve(FILE), Set.of(StandardOpenOption.CREATE,
                StandardOpenOption.WRITE), PosixFilePermissions.asFileAttribute(OwnerOnly.FILE_MODE));
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            channel.close();
            String pid = "";
            try {
                pid = " (pid " + Files.readString(dataDir.resolve(Recovery.RUNNING_MARKER)).trim() + ")";
            } catch (IOException ignored) {
                // the other process has not written its marker yet
            }
            throw new InUse("data dir " + dataDir + " is in use by another openxet server" + pid
                    + "; stop it first, or give this one its own --data");
        }
        return new DataDirLock(channel, lock);
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
