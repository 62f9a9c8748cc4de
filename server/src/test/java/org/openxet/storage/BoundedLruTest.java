package org.openxet.storage;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Least recently used entries go first once the weights pass the capacity; replaced and removed entries stop counting. */
class BoundedLruTest {
    @Test
    void dropsTheLeastRecentlyUsedPastTheCapacity() {
        BoundedLru<String, Integer> lru = new BoundedLru<>(10, w -> w);
        lru.put("a", 4);
        lru.put("b", 4);
        assertEquals(4, lru.get("a"));
        // 12 > 10: b, the least recently used, goes; a was used after it.
        lru.put("c", 4);
        assertNull(lru.get("b"));
        assertEquals(2, lru.size());
        // Replacing a weighs its new value only: 2 + 4 = 6, then 6 + 4 = 10 fits.
        lru.put("a", 2);
        lru.put("d", 4);
        assertEquals(3, lru.size());
        // A removed entry stops counting: 10 - 4 + 4 = 10 still fits.
        lru.remove("c");
        lru.put("e", 4);
        assertEquals(3, lru.size());
        assertEquals(2, lru.get("a"));
        // An entry heavier than the capacity goes at once, after all the others.
        lru.put("f", 11);
        assertEquals(0, lru.size());
    }
}
