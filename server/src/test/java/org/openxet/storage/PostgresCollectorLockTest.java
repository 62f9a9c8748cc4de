package org.openxet.storage;

import org.junit.jupiter.api.Test;
import org.openxet.testing.PostgresServer;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The proof {@code openxet gc} needs on a shared index, on a real PostgreSQL: no other openxet process connected, and
 * no node starting while the lock is held.
 */
class PostgresCollectorLockTest {
    @Test
    void theLockIsRefusedWhileANodeIsConnectedAndHoldsNodesBackWhileHeld() throws Exception {
        String url = PostgresServer.get().createDatabase("collector_lock");
        try (PostgresIndex gc = new PostgresIndex(url, 2);
             ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            try (PostgresIndex node = new PostgresIndex(url, 2)) {
                IndexException running = assertThrows(IndexException.class, gc::collector);
                assertTrue(running.getMessage().contains("of running openxet nodes (from "), running.getMessage());
                assertTrue(running.getMessage().endsWith(": stop every node before gc"), running.getMessage());
                assertEquals(List.of(), node.scans().xorbHashes(), "the node still works");
            }

            CompletableFuture<PostgresIndex> starting;
            // The refused attempt left no lock behind: with the node gone, the lock is granted.
            try (Collector everyNodeStopped = gc.collector()) {
                assertEquals(List.of(), everyNodeStopped.unusedXorbs(Long.MAX_VALUE));
                IndexException twice = assertThrows(IndexException.class, gc::collector);
                assertTrue(twice.getMessage().startsWith("another openxet gc is running on the index at "),
                        twice.getMessage());
                starting = CompletableFuture.supplyAsync(() -> {
                    try {
                        return new PostgresIndex(url, 2);
                    } catch (IndexException e) {
                        throw new CompletionException(e);
                    }
                }, threads);
                Thread.sleep(1500);
                assertFalse(starting.isDone(), "a node must not start while gc holds the lock");
            }
            try (PostgresIndex started = starting.get(30, TimeUnit.SECONDS)) {
                IndexException again = assertThrows(IndexException.class, gc::collector);
                assertTrue(again.getMessage().contains("of running openxet nodes"), again.getMessage());
                assertEquals(List.of(), started.scans().xorbHashes());
            }
            try (Collector afterwards = gc.collector()) {
                assertEquals(List.of(), afterwards.forgetUnusedXorbs(Long.MAX_VALUE), "the closed collector let the lock go");
            }
        }
    }
}
