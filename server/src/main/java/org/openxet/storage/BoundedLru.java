package org.openxet.storage;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.function.ToLongFunction;

/**
 * A map that drops its least recently used entries once their weights add up past a capacity: the bytes of decoded
 * records ({@code FileRecordCache}) or of rendered answers ({@code TermsCache}, {@code FetchSectionCache}), the ints of
 * kept plans ({@code ReconstructionPlanner}), or one per entry for the answer caches' bookkeeping of files seen. Not
 * thread-safe: its owners synchronize.
 */
public final class BoundedLru<K, V> {
    private final LinkedHashMap<K, V> entries = new LinkedHashMap<>(16, 0.75f, true);
    private final long capacity;
    private final ToLongFunction<? super V> weight;
    private long total;

    public BoundedLru(long capacity, ToLongFunction<? super V> weight) {
        this.capacity = capacity;
        this.weight = weight;
    }

    /** The entry for {@code key}, now the most recently used, or null. */
    public V get(K key) {
        return entries.get(key);
    }

    /** Adds or replaces {@code key}'s entry, then drops the least recently used ones while over the capacity. */
    public void put(K key, V value) {
        V old = entries.put(key, value);
        if (old != null) total -= weight.applyAsLong(old);
        total += weight.applyAsLong(value);
        Iterator<V> eldest = entries.values().iterator();
        while (total > capacity && eldest.hasNext()) {
            total -= weight.applyAsLong(eldest.next());
            eldest.remove();
        }
    }

    public void remove(K key) {
        V old = entries.remove(key);
        if (old != null) total -= weight.applyAsLong(old);
    }

    public int size() {
        return entries.size();
    }
}
