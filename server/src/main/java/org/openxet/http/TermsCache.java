package org.openxet.http;

import org.openxet.protocol.MerkleHash;
import org.openxet.storage.BoundedLru;
import org.openxet.storage.FileRecord;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.WeakReference;
import java.util.Arrays;
import java.util.logging.Logger;

/**
 * The terms of large files that are asked for again, rendered once into native memory. A reconstruction answer's
 * terms depend on the file's record alone (the signed URLs are in the xorbs section, rendered per answer), so for a
 * popular file every answer but the first and last term of a range is the same bytes: they are sent from here, written
 * to the socket channel without a copy ({@link ChannelBodyStream}), instead of rendered again. The merged latency
 * fixture's 13.6 MB answer is 13.5 MB of terms.
 *
 * <p>A file is rendered on its second answer (in the background: that answer is rendered as before), so a file
 * downloaded once costs nothing here. Least recently used files go first past the capacity. An entry is used only for
 * the record it was rendered from: a file whose record changed (registered again with other xorbs) is rendered anew.
 * Memory is an automatic arena's: an evicted entry is freed once no answer still sends from it.
 */
final class TermsCache {
    private static final Logger LOG = Logger.getLogger(TermsCache.class.getName());
    /** Files seen once, remembered so their second answer starts a rendering; a count, not bytes (a few words each). */
    static final int SEEN = 4096;

    /** A file's terms as {@link ReconstructionJson#writeRecordTerms} renders them all, and where each starts. */
    record Rendered(FileRecord record, MemorySegment bytes, int[] offsets) {
        /** Terms {@code [from, to)}, each after its comma. */
        MemorySegment terms(int from, int to) {
            return bytes.asSlice(offsets[from], offsets[to] - offsets[from]);
        }
    }

    private final long capacityBytes;
    private final int minTerms;
    private final BoundedLru<MerkleHash, Rendered> rendered;
    /** Weakly: a record the index no longer caches must not stay in memory because it was asked for once. */
    private final BoundedLru<MerkleHash, WeakReference<FileRecord>> seen = new BoundedLru<>(SEEN, ref -> 1);
    private final PendingRenders<MerkleHash> pending;

    /**
     * @param minTerms   smaller files are never kept
     * @param background render on a virtual thread of its own (the server); false: in the caller (tests)
     */
    TermsCache(long capacityBytes, int minTerms, boolean background) {
        this.capacityBytes = capacityBytes;
        this.rendered = new BoundedLru<>(capacityBytes, TermsCache::sizeOf);
        this.minTerms = minTerms;
        this.pending = new PendingRenders<>("terms-cache", background, LOG);
    }

    /** Up to 256 MiB, and at most an eighth of the heap (the same share as the index's record cache). */
    static TermsCache forHeap(int minTerms) {
        return new TermsCache(Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 8), minTerms, true);
    }

    /**
     * The rendered terms of {@code record}, or null; a second request for a file not yet rendered starts its
     * rendering (this answer does not wait for it).
     */
    Rendered get(FileRecord record) {
        if (record.termCount() < minTerms) return null;
        MerkleHash file = record.fileHash();
        synchronized (this) {
            Rendered r = rendered.get(file);
            if (r != null && sameTerms(r.record(), record)) {
                return r;
            }
            WeakReference<FileRecord> ref = seen.get(file);
            FileRecord before = ref == null ? null : ref.get();
            if (before == null || !sameTerms(before, record)) {
                seen.put(file, new WeakReference<>(record));
                return null;
            }
            if (!pending.claim(file)) {
                return null;
            }
            seen.remove(file);
        }
        pending.start(file, "the rendered terms of file " + file, () -> {
            // Kept only if they fit.
            Rendered r = render(record);
            if (r != null) put(r);
        });
        return null;
    }

    /** Entries kept (tests). */
    synchronized int size() {
        return rendered.size();
    }

    private Rendered render(FileRecord record) {
        byte[][] heads = ReconstructionJson.termHeads(ReconstructionJson.xorbHex(record));
        int[] offsets = ReconstructionJson.recordTermOffsets(record, heads);
        int n = record.termCount();
        if (offsets == null || offsets[n] > capacityBytes / 4) {
            return null;
        }
        MemorySegment bytes = Arena.ofAuto().allocate(offsets[n]);
        JsonBytes batch = new JsonBytes(null, AnswerWriter.TERMS_PER_SEGMENT * AnswerWriter.TERM_BYTES);
        for (int from = 0; from < n; from += AnswerWriter.TERMS_PER_SEGMENT) {
            int to = Math.min(n, from + AnswerWriter.TERMS_PER_SEGMENT);
            batch.position(0);
            ReconstructionJson.writeRecordTerms(batch, record.terms(), heads, from, to);
            if (batch.length() != offsets[to] - offsets[from]) {
                // The offsets and the rendering disagree: never send such bytes.
                throw new IllegalStateException("terms " + from + "-" + to + " rendered " + batch.length()
                        + " bytes, measured " + (offsets[to] - offsets[from]));
            }
            MemorySegment.copy(batch.array(), 0, bytes, ValueLayout.JAVA_BYTE, offsets[from], batch.length());
        }
        return new Rendered(record, bytes, offsets);
    }

    private synchronized void put(Rendered r) {
        rendered.put(r.record().fileHash(), r);
    }

    /** What an entry keeps: its bytes, its offsets, and the record it holds on to (its terms array). */
    private static long sizeOf(Rendered r) {
        return r.bytes().byteSize() + 4L * r.offsets().length + 4L * r.record().terms().length;
    }

    /** The same terms over the same xorbs: the same record (cached by the index) or an equal one read again. */
    static boolean sameTerms(FileRecord a, FileRecord b) {
        return a == b || (Arrays.equals(a.terms(), b.terms()) && Arrays.equals(a.xorbs(), b.xorbs()));
    }
}
