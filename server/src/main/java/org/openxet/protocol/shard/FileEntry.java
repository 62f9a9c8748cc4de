package org.openxet.protocol.shard;

import java.util.List;
import java.util.Objects;
import org.openxet.protocol.MerkleHash;

/**
 * One file of the file-info section (§4.2): header, terms, optional verification hashes (one per term) and optional
 * SHA-256 metadata extension. Which optional parts exist is decided by the flag bits, so the constructor refuses a
 * combination the bytes could not express. Unknown flag bits are kept as they came (xet-core ignores them).
 *
 * @param flags              u32 file flags; bit 31 verification entries, bit 30 metadata extension
 * @param verificationHashes one range hash per term when bit 31 is set, otherwise empty
 * @param sha256             the metadata extension (§4.2 byte order, so {@code hex()} is the usual SHA-256 hex), or
 *                           {@code null} when bit 30 is clear
 */
public record FileEntry(MerkleHash fileHash, int flags, List<FileTerm> terms, List<MerkleHash> verificationHashes,
                        MerkleHash sha256) {
    public static final int FLAG_WITH_VERIFICATION = 0x80000000;
    public static final int FLAG_WITH_METADATA_EXT = 0x40000000;

    public FileEntry {
        Objects.requireNonNull(fileHash, "fileHash");
        terms = List.copyOf(terms);
        verificationHashes = List.copyOf(verificationHashes);
        if (hasVerification(flags) ? verificationHashes.size() != terms.size() : !verificationHashes.isEmpty()) {
            throw new IllegalArgumentException("verification hashes must be one per term exactly when flag bit 31 is set");
        }
        if (hasMetadataExt(flags) != (sha256 != null)) {
            throw new IllegalArgumentException("sha256 must be present exactly when flag bit 30 is set");
        }
    }

    public boolean hasVerification() {
        return hasVerification(flags);
    }

    public boolean hasMetadataExt() {
        return hasMetadataExt(flags);
    }

    /** 48-byte records this file occupies, header included: the unit of file-lookup indices (§4.4). */
    public long recordCount() {
        return 1L + (long) terms.size() * (hasVerification() ? 2 : 1) + (hasMetadataExt() ? 1 : 0);
    }

    static boolean hasVerification(int flags) {
        return (flags & FLAG_WITH_VERIFICATION) != 0;
    }

    static boolean hasMetadataExt(int flags) {
        return (flags & FLAG_WITH_METADATA_EXT) != 0;
    }
}
