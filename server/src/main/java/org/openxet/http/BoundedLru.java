package org.openxet.http;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.function.ToLongFunction;

/**
 * A map that drops its least recently used entries once their weights add up past a capacity: bytes for the answer
 * caches' rendered bytes, one per entry for their bookkeeping of files seen. Not thread-safe: its owners synchronize.
 */
final class BoundedLru<K, V> {
    private final LinkedHashMap<K, V> entries = new LinkedHashMap<>(16, 0.75f, true);
    private final long capacity;
    private final ToLongFunction<? super V> weight;
    private long total;

    BoundedLru(long capacity, ToLongFunction<? super V> weight) {
        this.capacity = capacity;
        this.weight = weight;
    }

    /** The entry for {@code key}, now the most recently used, or null. */
    V get(K key) {
        return entries.get(key);
    }

    /** Adds or replaces {@code key}'s entry, then drops the least recently used ones while over the capacity. */
    void put(K key, V value) {
        V old = entries.put(key, value);
        if (old != null) total -= weight.applyAsLong(old);
        total += weight.applyAsLong(value);
        Iterator<V> eldest = entries.values().iterator();
        while (total > capacity && eldest.hasNext()) {
            total -= weight.applyAsLong(eldest.next());
            eldest.remove();
        }
    }

    void remove(K key) {
        V old = entries.remove(key);
        if (old != null) total -= weight.applyAsLong(old);
    }

    int size() {
        return entries.size();
    }
}
