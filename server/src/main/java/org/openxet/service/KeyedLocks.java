package org.openxet.service;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A lock per key, existing only while held: two holders of one key take turns, holders of different keys never wait
 * for each other. (Striped locks, a fixed set chosen by hash, made unrelated uploads wait whenever two keys shared a
 * stripe: with 64 stripes and 8 uploads in flight, about one time in three.)
 */
final class KeyedLocks<K> {
    private final ConcurrentHashMap<K, ReentrantLock> held = new ConcurrentHashMap<>();

    /** Holding {@code key}'s lock until closed. */
    interface Held extends AutoCloseable {
        @Override
        void close();
    }

    Held lock(K key) {
        ReentrantLock mine = new ReentrantLock();
        mine.lock();
        for (ReentrantLock other; (other = held.putIfAbsent(key, mine)) != null; ) {
            if (other.isHeldByCurrentThread()) {
                mine.unlock();
                throw new IllegalStateException("this thread already holds the lock of " + key);
            }
            // Wait for the holder to finish (it removes its entry before it unlocks), then try again.
            other.lock();
            other.unlock();
        }
        return () -> {
            held.remove(key, mine);
            mine.unlock();
        };
    }

    /** Keys held now (tests: every holder releases). */
    int heldCount() {
        return held.size();
    }
}
