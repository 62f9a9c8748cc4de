package org.openxet.gates;

import org.openxet.http.RawHttp;

import java.io.IOException;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;

/**
 * Kept-alive connections to one loopback server for the open-loop generators (the load gate, the rig): at most
 * {@code maxInFlight} exchanges at once, each on an idle connection when there is one, else on a new one.
 */
final class ConnectionPool {
    private final int port;
    private final Semaphore inFlight;
    private final ConcurrentLinkedDeque<RawHttp> idle = new ConcurrentLinkedDeque<>();

    ConnectionPool(int port, int maxInFlight) {
        this.port = port;
        this.inFlight = new Semaphore(maxInFlight);
    }

    /** Sends {@code head} (then {@code body} when non-null) and reads the answer: its status, or -1 when transport failed. */
    int exchange(byte[] head, byte[] body) {
        try {
            inFlight.acquire();
        } catch (InterruptedException e) {
            return -1;
        }
        RawHttp c = idle.pollFirst();
        boolean pooled = c != null;
        try {
            if (c == null) c = new RawHttp("127.0.0.1", port);
            RawHttp.Response r;
            try {
                r = c.exchange(head, body, null);
            } catch (IOException stale) {
                if (!pooled) throw stale;
                // A kept-alive connection the server closed while it sat unused in this pool (idle.timeout): the
                // request is sent again on a new one, as every HTTP client's pool does (RFC 9112 §9.3.1). The pool is
                // last-in first-out, so its oldest connections idle through a whole step until a higher rate reaches
                // for them.
                c.close();
                c = new RawHttp("127.0.0.1", port);
                r = c.exchange(head, body, null);
            }
            if (c.isOpen()) {
                idle.addFirst(c);
            } else {
                c.close();
            }
            return r.status();
        } catch (Exception e) {
            if (c != null) c.close();
            return -1;
        } finally {
            inFlight.release();
        }
    }
}
