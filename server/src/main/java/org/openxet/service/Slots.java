package org.openxet.service;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A fixed number of slots for one kind of costly work (shard commits, range-edit answers). A caller waits a bounded
 * time for a slot and is then told the server is busy, which the HTTP layer answers 503 with Retry-After: a wait
 * without end would leave a request unanswered for as long as slow neighbours keep every slot.
 */
public final class Slots {
    private final Semaphore free;
    private final int size;
    private final String what;

    /**
     * @param what names the work in the busy message ("all 4 {what} slots stayed busy ...")
     * @param fair whether waiters get slots in arrival order
     */
    public Slots(int size, String what, boolean fair) {
        if (size < 1) throw new IllegalArgumentException(what + " slots: " + size + " (at least 1)");
        this.free = new Semaphore(size, fair);
        this.size = size;
        this.what = what;
    }

    /** A slot held until closed; closing twice returns it once. */
    public final class Held implements AutoCloseable {
        private boolean open = true;

        private Held() {
        }

        @Override
        public void close() {
            if (open) {
                open = false;
                free.release();
            }
        }
    }

    /** No slot came free within the wait: the caller should retry later. */
    public static final class Busy extends Exception {
        Busy(String message) {
            super(message);
        }
    }

    /** Takes a slot, waiting at most {@code wait} for one. */
    public Held acquire(Duration wait) throws InterruptedException, Busy {
        if (!free.tryAcquire(wait.toNanos(), TimeUnit.NANOSECONDS)) {
            String waited = wait.toMillis() < 1000 ? wait.toMillis() + " ms" : wait.toSeconds() + " s";
            throw new Busy("all " + size + " " + what + " slots stayed busy for " + waited + "; retry later");
        }
        return new Held();
    }

    public int available() {
        return free.availablePermits();
    }
}
