package org.openxet.http;

import java.util.HashSet;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The renderings an answer cache ({@link TermsCache}, {@link FetchSectionCache}) has in flight, at most one per key, so
 * a burst of answers for one file starts one rendering. A claimed key's rendering runs on a virtual thread of its own
 * (the server; the answer that started it does not wait) or in the caller (tests). A failed rendering is a miss, not
 * an error: it is logged by the cache's logger and the answers go on rendering their own. Either way the key is
 * released, so a later answer may try again.
 */
final class PendingRenders<K> {
    private final Set<K> pending = new HashSet<>();
    private final String threadName;
    private final boolean background;
    private final Logger log;

    PendingRenders(String threadName, boolean background, Logger log) {
        this.threadName = threadName;
        this.background = background;
        this.log = log;
    }

    /** Claims {@code key} for a rendering: false when one is already in flight. */
    synchronized boolean claim(K key) {
        return pending.add(key);
    }

    /** Runs a claimed key's rendering; {@code what} names what it would have kept, for the log. */
    void start(K key, String what, Runnable render) {
        Runnable run = () -> {
            try {
                render.run();
            } catch (RuntimeException | OutOfMemoryError e) {
                log.log(Level.WARNING, "could not keep " + what, e);
            } finally {
                release(key);
            }
        };
        if (background) {
            Thread.ofVirtual().name(threadName).start(run);
        } else {
            run.run();
        }
    }

    private synchronized void release(K key) {
        pending.remove(key);
    }
}
