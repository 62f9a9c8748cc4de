package org.openxet.service;

import org.openxet.protocol.FormatException;
import org.openxet.protocol.MerkleHash;
import org.openxet.protocol.xorb.ValidatedXorb;
import org.openxet.protocol.xorb.XorbValidator;
import org.openxet.storage.Bucket;
import org.openxet.storage.Index;
import org.openxet.storage.IndexException;
import org.openxet.storage.OnlineCollection;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * {@code POST /v1/xorbs/{prefix}/{hash}} without the HTTP (§3.6): validate the body in one pass, store chunks plus
 * the footer built from that pass, then register the xorb and its chunk table. The blob is durable before the index
 * row exists, so an index row never points at nothing; a crash in between leaves an unregistered object that the
 * next upload of the same xorb simply overwrites with identical bytes.
 */
public final class XorbIngest {
    /** Upload prefixes the clients use (§5.2; §10 item 1: hf_xet and the JS client send "default"). */
    public static final String PREFIX = "default";

    private final Bucket bucket;
    private final Index index;
    // One lock per xorb while it is stored: two uploads of one xorb store it once and the second answers
    // was_inserted=false; uploads of different xorbs never wait for each other's (up to 64 MiB, fsync'd) write.
    private final KeyedLocks<MerkleHash> storing = new KeyedLocks<>();

    private final OnlineCollection online;

    public XorbIngest(Bucket bucket, Index index) {
        this.bucket = bucket;
        this.index = index;
        this.online = index.shared().map(org.openxet.storage.SharedIndex::onlineCollection).orElse(null);
    }

    public record Result(ValidatedXorb xorb, boolean inserted) {
    }

    public static String key(MerkleHash hash) {
        return "xorbs/" + PREFIX + "/" + hash.hex();
    }

    /** Validates {@code body[0, length)} against {@code expected} and stores it unless it is already stored. */
    public Result ingest(MerkleHash expected, byte[] body, int length)
            throws FormatException, IOException, IndexException, QuarantinedInAnotherEncoding {
        ValidatedXorb xorb;
        try (XorbValidator validator = new XorbValidator()) {
            xorb = validator.validateUpload(body, length, expected);
        }
        try (KeyedLocks.Held ignored = storing.lock(expected); OnlineCollection.UploadLock fenced = fence(expected)) {
            if (index.hasXorb(expected)) {
                // The index keeps registration times from the system clock (created_at), so this does too.
                index.renewXorb(expected, System.currentTimeMillis() / 1000);
                return new Result(xorb, false);
            }
            // Store our footer, not a client's: chunk records as received, then the V1 footer of this pass.
            ByteBuffer records = ByteBuffer.wrap(body, 0, xorb.chunks().recordBytes());
            ByteBuffer footer = ByteBuffer.wrap(xorb.footer());
            if (bucket.shared()) {
                return ingestShared(expected, xorb, records, footer);
            }
            bucket.put(key(expected), records, footer);
            boolean registered;
            try {
                registered = index.putXorb(expected, xorb.chunks(), xorb.storedSize());
            } catch (IndexException | RuntimeException | Error e) {
                // No row named it before the put (checked under this xorb's lock): the object is this call's.
                FailedRegistration.removeObject(bucket, key(expected), () -> index.hasXorb(expected), e);
                throw e;
            }
            if (!registered) {
                // No live row (checked under this xorb's lock), yet nothing inserted or revived: its row is quarantined
                // with another layout. The object just stored describes other bytes than its files' ranges: remove it.
                bucket.delete(key(expected));
                throw new QuarantinedInAnotherEncoding(expected);
            }
            return new Result(xorb, true);
        }
    }

    /**
     * On an index that collects while nodes serve, this upload's hold on its xorb from the check to the registration:
     * a collector removing the same xorb in between would delete the object this upload found and registered.
     */
    private OnlineCollection.UploadLock fence(MerkleHash hash) throws IndexException {
        return online == null ? null : online.lockForUpload(hash);
    }

    /**
     * An upload of a xorb that {@code openxet repair} quarantined, in another encoding than the one its files' byte
     * ranges were resolved against (LZ4 where the first upload was raw, or the reverse): it cannot bring them back.
     */
    public static final class QuarantinedInAnotherEncoding extends Exception {
        QuarantinedInAnotherEncoding(MerkleHash hash) {
            super("xorb " + hash + " was quarantined (its stored object was damaged or lost) and can only be restored"
                    + " in the encoding first uploaded: this upload encodes its chunks differently");
        }
    }

    /**
     * A shared bucket: other nodes store xorbs too, and an honest client may send one xorb in another valid encoding
     * (LZ4 or not) to another node at the same moment. The object is created only if absent; when another node's is
     * there, its layout, read back and validated whole, is what gets registered, never ours: the index's byte offsets
     * must describe the bytes the object holds, or every file using the xorb downloads wrong bytes.
     */
    private Result ingestShared(MerkleHash expected, ValidatedXorb ours, ByteBuffer records, ByteBuffer footer)
            throws FormatException, IOException, IndexException, QuarantinedInAnotherEncoding {
        String key = key(expected);
        if (bucket.putIfAbsent(key, records, footer)) {
            // A failed registration leaves the object: in a shared bucket another node may register it (FailedRegistration).
            return new Result(ours, registerOrRefuse(expected, ours, key));
        }
        byte[] stored = bucket.read(key);
        ValidatedXorb theirs;
        try (XorbValidator validator = new XorbValidator()) {
            theirs = validator.validateStored(stored, stored.length, expected);
        } catch (FormatException damaged) {
            // Not the client's fault: the store holds a damaged object under this hash (a 500, and an operator's job).
            throw new IOException("stored object " + key + " is damaged: " + damaged.getMessage(), damaged);
        }
        return new Result(theirs, registerOrRefuse(expected, theirs, key));
    }

    /**
     * Registers the stored object's layout; when that neither inserts nor revives a row and the xorb is still absent,
     * its row is quarantined with another layout: the object can never be registered by any node, so it goes.
     */
    private boolean registerOrRefuse(MerkleHash expected, ValidatedXorb stored, String key)
            throws IOException, IndexException, QuarantinedInAnotherEncoding {
        if (index.putXorb(expected, stored.chunks(), stored.storedSize())) return true;
        if (index.hasXorb(expected)) return false; // another node registered it meanwhile
        bucket.delete(key);
        throw new QuarantinedInAnotherEncoding(expected);
    }
}
