package org.openxet.http;

import org.openxet.protocol.MerkleHash;
import org.openxet.storage.BoundedLru;
import org.openxet.storage.FileRecord;

import java.lang.foreign.MemorySegment;
import java.lang.ref.WeakReference;
import java.util.logging.Logger;

/**
 * The fetch sections of popular large files' whole-file answers (everything after the terms: the xorbs, their ranges
 * and their signed URLs), rendered once into native memory and sent from there for up to a minute.
 *
 * <p>Why this is sound: a whole-file answer's fetch section depends on the file's record, the answer's format, the base
 * URL, the scope and the URLs' expiry, nothing else. Signatures are deterministic. So two answers for the same file
 * and scope a few seconds apart differ only in the expiry digits, and the later one may as well carry the earlier
 * one's URLs: they grant the same ranges to the same scope and live a little less than a fresh URL would, at most
 * {@link #MAX_AGE_SECONDS} less (a sixtieth of a shorter lifetime; with a lifetime under a minute nothing is kept).
 * Signing and rendering the unmerged latency fixture's section is 8.3 MB and about 4 ms of CPU per answer, which
 * competed for the cores with the transfer of the answer itself.
 *
 * <p>Only files whose terms {@link TermsCache} already keeps come here (asked for twice or more), and only their
 * whole-file answers: a range's section depends on the range. A section is rendered in the background on the first
 * answer that finds none fresh (that answer renders its own as before), and again once the one in use is three
 * quarters of its usable age, so a file asked for steadily finds a fresh one at every minute's turn. An entry is used
 * only for the record it was rendered from. A section over a quarter of the capacity is not rendered, and its file is
 * remembered as such, so its answers do not start a rendering each. Least recently used sections go first past the
 * capacity; memory is an automatic arena's, freed once no answer still sends from it.
 */
final class FetchSectionCache {
    private static final Logger LOG = Logger.getLogger(FetchSectionCache.class.getName());
    /** How much older than a fresh one a section's URLs may be: their expiry is at most this much earlier. */
    static final long MAX_AGE_SECONDS = 60;

    /** A section's identity: the file, the answer format (v1's fetch_info or v2's xorbs), the base URL and scope. */
    private record Key(MerkleHash file, boolean v1, String audience) {
    }

    /** A rendered fetch section, the record it was rendered from and the expiry of its URLs. */
    record Section(FileRecord record, MemorySegment bytes, long expiry) {
    }

    /** Renders a section with a signer like the answer's, or returns null when it would be over {@code maxBytes}. */
    interface Renderer {
        MemorySegment render(long maxBytes);
    }

    private final long capacityBytes;
    private final BoundedLru<Key, Section> sections;
    /**
     * Sections found too large to keep, by the record they were measured for (weakly: a record the index no longer
     * caches is not kept in memory for this), so their answers do not start a rendering each; a count, not bytes.
     */
    private final BoundedLru<Key, WeakReference<FileRecord>> tooLarge = new BoundedLru<>(TermsCache.SEEN, ref -> 1);
    private final PendingRenders<Key> pending;

    /** @param background render on a virtual thread of its own (the server); false: in the caller (tests) */
    FetchSectionCache(long capacityBytes, boolean background) {
        this.capacityBytes = capacityBytes;
        this.sections = new BoundedLru<>(capacityBytes, FetchSectionCache::sizeOf);
        this.pending = new PendingRenders<>("fetch-section-cache", background, LOG);
    }

    /** Up to 128 MiB (a 100,000-range v1 section is 26 MB), and at most a sixteenth of the heap. */
    static FetchSectionCache forHeap() {
        return new FetchSectionCache(Math.min(128L << 20, Runtime.getRuntime().maxMemory() / 16), true);
    }

    /** How much older a section's URLs may be than those {@code signer} mints: a minute, or a sixtieth of their life. */
    static long maxAgeSeconds(UrlSigner signer) {
        return Math.min(MAX_AGE_SECONDS, signer.ttlSeconds() / 60);
    }

    /**
     * The section of {@code record}'s whole-file answer for {@code signer}'s base URL and scope if one is fresh enough,
     * else null. Starts {@code render} (which signs with a signer like this one) when none is fresh or the one
     * returned is getting old; the answer asking does not wait for it.
     */
    Section get(FileRecord record, boolean v1, UrlSigner signer, Renderer render) {
        long maxAge = maxAgeSeconds(signer);
        if (maxAge < 1) return null;
        Key key = new Key(record.fileHash(), v1, signer.audience());
        Section s;
        synchronized (this) {
            WeakReference<FileRecord> large = tooLarge.get(key);
            FileRecord measured = large == null ? null : large.get();
            if (measured != null && TermsCache.sameTerms(measured, record)) {
                return null;
            }
            s = sections.get(key);
            if (s != null && !(TermsCache.sameTerms(s.record(), record) && fresh(s, signer, maxAge))) {
                s = null;
            }
            boolean renew = s == null || signer.expiry() - s.expiry() >= maxAge - maxAge / 4;
            if (!renew || !pending.claim(key)) {
                return s;
            }
        }
        long expiry = signer.expiry();
        pending.start(key, "the fetch section of file " + record.fileHash(), () -> {
            MemorySegment rendered = render.render(capacityBytes / 4);
            if (rendered != null) {
                put(key, new Section(record, rendered, expiry));
            } else {
                markTooLarge(key, record);
            }
        });
        return s;
    }

    private static boolean fresh(Section s, UrlSigner signer, long maxAge) {
        long age = signer.expiry() - s.expiry();
        return age >= 0 && age <= maxAge;
    }

    /** Sections kept (tests). */
    synchronized int size() {
        return sections.size();
    }

    private synchronized void markTooLarge(Key key, FileRecord record) {
        tooLarge.put(key, new WeakReference<>(record));
    }

    private synchronized void put(Key key, Section s) {
        sections.put(key, s);
    }

    /** What an entry keeps: its bytes and the record it holds on to (its terms array). */
    private static long sizeOf(Section s) {
        return s.bytes().byteSize() + 4L * s.record().terms().length;
    }
}
