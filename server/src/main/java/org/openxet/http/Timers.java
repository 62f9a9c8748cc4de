package org.openxet.http;

import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * The timer threads of the HTTP layer (the head deadlines' sweep, body stall checks, lingering closes, v2 shard
 * heartbeats): one daemon thread each. A cancelled task leaves the queue at once. The JDK's default keeps it queued
 * until its time comes, and with it whatever it holds (the request's thread, an upload's output stream). The body
 * and shard timers schedule and cancel once or twice per upload, with delays of seconds.
 */
final class Timers {
    private Timers() {
    }

    /** A one-thread timer whose thread is a daemon named {@code name}. */
    static ScheduledThreadPoolExecutor daemon(String name) {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }
}
