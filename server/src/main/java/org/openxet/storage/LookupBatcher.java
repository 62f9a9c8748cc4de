package org.openxet.storage;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Lookups by key that share round trips when they queue, as a database's group commit shares a flush: up to
 * {@code lanes} batches run at once; a lookup that finds every lane busy waits, and the next lane to finish takes it
 * and the others waiting beside it (up to {@code maxBatch}) in one call of {@link Loader#load}. Unloaded, every
 * lookup is a batch of one and runs at once, so nothing waits for a batch to fill.
 *
 * <p>Why: a PostgreSQL node's file lookups are one short statement each on a pool of {@code index.readers} + 1
 * connections. When the node falls behind (its first seconds, with the JIT compiling beside the load), each statement
 * costs a round trip and two wake-ups while hundreds of requests wait for a connection, and the queue grows faster
 * than it drains. Batched, a lane answers all that waited in one statement, so the backlog drains instead.
 */
final class LookupBatcher<K, V> {
    /** Answers a batch: {@code results.get(i)} for {@code keys.get(i)} ({@code null}: none). */
    interface Loader<K, V> {
        List<V> load(List<K> keys) throws IndexException;
    }

    private final Loader<K, V> loader;
    private final int lanes;
    private final int maxBatch;
    private final ReentrantLock lock = new ReentrantLock();
    private final ArrayDeque<Waiter<K, V>> waiting = new ArrayDeque<>();
    private int running;

    LookupBatcher(int lanes, int maxBatch, Loader<K, V> loader) {
        if (lanes < 1 || maxBatch < 1) throw new IllegalArgumentException("lanes and maxBatch must be positive");
        this.lanes = lanes;
        this.maxBatch = maxBatch;
        this.loader = loader;
    }

    V get(K key) throws IndexException {
        Waiter<K, V> me = new Waiter<>(key);
        boolean lead;
        lock.lock();
        try {
            lead = running < lanes;
            if (lead) {
                running++;
            } else {
                waiting.addLast(me);
            }
        } finally {
            lock.unlock();
        }
        // join(), not get(): an interrupted waiter that stopped waiting could be handed a lane and leave it unrun.
        if (!lead && !me.turn.join()) return me.result();
        runLane(me);
        return me.result();
    }

    /** Lookups waiting for a lane now. */
    int waiting() {
        lock.lock();
        try {
            return waiting.size();
        } finally {
            lock.unlock();
        }
    }

    /** One lane's batch, {@code first} and those waiting behind it, then the lane to the next waiter (or freed). */
    private void runLane(Waiter<K, V> first) {
        List<Waiter<K, V>> batch = new ArrayList<>();
        batch.add(first);
        lock.lock();
        try {
            while (batch.size() < maxBatch && !waiting.isEmpty()) batch.add(waiting.pollFirst());
        } finally {
            lock.unlock();
        }
        try {
            List<K> keys = new ArrayList<>(batch.size());
            for (Waiter<K, V> w : batch) keys.add(w.key);
            List<V> found = loader.load(keys);
            for (int i = 0; i < batch.size(); i++) batch.get(i).value = found.get(i);
        } catch (IndexException | RuntimeException | Error e) {
            for (Waiter<K, V> w : batch) w.failure = e;
        } finally {
            // The lane's own lookup is read on this thread; the others are woken with their answer.
            for (int i = 1; i < batch.size(); i++) batch.get(i).turn.complete(false);
            Waiter<K, V> next;
            lock.lock();
            try {
                next = waiting.pollFirst();
                if (next == null) running--;
            } finally {
                lock.unlock();
            }
            if (next != null) next.turn.complete(true);
        }
    }

    private static final class Waiter<K, V> {
        final K key;
        /** Completed true when this lookup is handed a lane to run, false when another lane answered it. */
        final CompletableFuture<Boolean> turn = new CompletableFuture<>();
        /** Set before {@link #turn} completes (or on this lookup's own thread when it runs the lane). */
        V value;
        Throwable failure;

        Waiter(K key) {
            this.key = key;
        }

        V result() throws IndexException {
            if (failure == null) return value;
            // The batch's failure is each lookup's, rethrown on the caller's own thread with its own stack.
            if (failure instanceof IndexException e) throw new IndexException(e.getMessage(), e);
            if (failure instanceof RuntimeException e) throw e;
            throw (Error) failure;
        }
    }
}
