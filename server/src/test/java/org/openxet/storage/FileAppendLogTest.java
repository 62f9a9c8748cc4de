package org.openxet.storage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A record log on a real file whose writes, truncation or fsync fail as a full or failing disk makes them fail. */
class FileAppendLogTest {
    /** A real file channel that can be told to fail: a write after half its bytes, a truncate, a force. */
    static final class Faulty extends FileChannel {
        final FileChannel real;
        boolean failWrite;
        boolean failTruncate;
        boolean failForce;

        Faulty(FileChannel real) {
            this.real = real;
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            if (!failWrite) return real.write(src);
            ByteBuffer half = src.slice(src.position(), src.remaining() / 2);
            int n = real.write(half);
            src.position(src.position() + n);
            throw new IOException("No space left on device");
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            if (failTruncate) throw new IOException("Input/output error");
            real.truncate(size);
            return this;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            if (failForce) throw new IOException("Input/output error");
            real.force(metaData);
        }

        @Override public int read(ByteBuffer dst) throws IOException { return real.read(dst); }
        @Override public long read(ByteBuffer[] d, int o, int l) throws IOException { return real.read(d, o, l); }
        @Override public long write(ByteBuffer[] s, int o, int l) throws IOException { return real.write(s, o, l); }
        @Override public long position() throws IOException { return real.position(); }
        @Override public FileChannel position(long p) throws IOException { real.position(p); return this; }
        @Override public long size() throws IOException { return real.size(); }
        @Override public long transferTo(long p, long c, WritableByteChannel t) throws IOException {
            return real.transferTo(p, c, t);
        }
        @Override public long transferFrom(ReadableByteChannel s, long p, long c) throws IOException {
            return real.transferFrom(s, p, c);
        }
        @Override public int read(ByteBuffer dst, long p) throws IOException { return real.read(dst, p); }
        @Override public int write(ByteBuffer src, long p) throws IOException { return real.write(src, p); }
        @Override public MappedByteBuffer map(MapMode m, long p, long s) throws IOException { return real.map(m, p, s); }
        @Override public FileLock lock(long p, long s, boolean sh) throws IOException { return real.lock(p, s, sh); }
        @Override public FileLock tryLock(long p, long s, boolean sh) throws IOException {
            return real.tryLock(p, s, sh);
        }
        @Override protected void implCloseChannel() throws IOException { real.close(); }
    }

    private static Faulty open(Path file) throws IOException {
        return new Faulty(FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)));
    }

    private static byte[] line(String s) {
        return (s + "\n").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aRecordCutShortByAFullDiskIsCutOffAndTheNextOneStartsItsOwnLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("log");
        Faulty ch = open(file);
        LocalBucket.FileAppendLog log = new LocalBucket.FileAppendLog("registrations/log", ch);
        log.append(line("{\"n\":1}"));
        ch.failWrite = true;
        assertThrows(IOException.class, () -> log.append(line("{\"n\":2,\"padding\":\"xxxxxxxxxxxx\"}")));
        ch.failWrite = false;
        long length = log.append(line("{\"n\":3}"));
        log.syncThrough(length);
        assertEquals("{\"n\":1}\n{\"n\":3}\n", Files.readString(file));
        assertEquals(Files.size(file), length);
        log.close();
    }

    @Test
    void aLogThatCannotBeCutBackOrFsyncedRefusesEveryLaterRecord(@TempDir Path dir) throws Exception {
        Faulty ch = open(dir.resolve("a"));
        LocalBucket.FileAppendLog log = new LocalBucket.FileAppendLog("registrations/a", ch);
        ch.failWrite = true;
        ch.failTruncate = true;
        assertThrows(IOException.class, () -> log.append(line("{\"n\":1}")));
        ch.failWrite = false;
        ch.failTruncate = false;
        IOException refused = assertThrows(IOException.class, () -> log.append(line("{\"n\":2}")));
        assertTrue(refused.getMessage().startsWith("the record log registrations/a failed earlier: "),
                refused.getMessage());

        Faulty other = open(dir.resolve("b"));
        LocalBucket.FileAppendLog synced = new LocalBucket.FileAppendLog("registrations/b", other);
        long length = synced.append(line("{\"n\":1}"));
        other.failForce = true;
        assertThrows(IOException.class, () -> synced.syncThrough(length));
        other.failForce = false;
        // Linux may call the next fsync a success for pages the failed one dropped: it is not asked.
        assertThrows(IOException.class, () -> synced.syncThrough(length));
        assertThrows(IOException.class, () -> synced.append(line("{\"n\":2}")));
    }
}
