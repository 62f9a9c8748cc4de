package org.openxet.http;

import io.helidon.common.buffers.DataReader;
import io.helidon.http.Headers;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http1.Http1ConnectionListener;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.logging.Logger;

/**
 * Cuts each HTTP/1 connection's list of socket reads at every request head, so what a kept-alive connection read
 * before cannot keep what it reads next alive.
 *
 * <p>Why: Helidon 4.5's {@link DataReader} keeps a connection's reads (a new array of up to 8 KiB per socket read) in
 * a singly linked list and drops a consumed node by moving its head forward, without clearing that node's link to
 * the next. A kept-alive connection's last node lives while the connection waits for its next request, long enough to
 * be promoted to the old generation; from then on every node the connection reads is referenced from the old
 * generation, so each young collection keeps it, copies it and promotes it, and it links the next one in turn. Every
 * byte of every upload on a long-lived connection was copied and promoted that way: on the release rig at 1,000
 * req/s with 5 % writes, 30–37 MB survived each young collection and its pauses grew from 5 to 40–100 ms; with no
 * writes, 4–6 ms (docs/BENCHMARKS.md, "Young collections and uploads").
 *
 * <p>When a request's headers are parsed (on the connection's thread, before its body is read), the reader's head is
 * replaced by a new node over the same array and position, linked to what followed it, and the old head's link is
 * cleared: the nodes behind it have no path to anything read later. What can still be promoted is a request's head
 * read, when its connection waited long enough for the read before it to be promoted. It reads private members of
 * Helidon's reader, as {@link ResponseChannel} does; on a Helidon without them nothing is cut, one INFO line says so,
 * and {@code ReadListTrimTest} fails.
 */
final class ReadListTrim implements Http1ConnectionListener {
    private static final Logger LOG = Logger.getLogger(ReadListTrim.class.getName());
    private static final String NODE_CLASS = "io.helidon.common.buffers.DataReader$Node";

    /** {@code DataReader.head}, {@code .tail}; {@code Node.bytes}, {@code .position}, {@code .next}; or all null. */
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle BYTES;
    private static final VarHandle POSITION;
    private static final VarHandle NEXT;
    /** {@code new Node(bytes)} on a reader (an inner class: the reader is its first argument). */
    private static final MethodHandle NEW_NODE;

    static {
        VarHandle head = null;
        VarHandle tail = null;
        VarHandle bytes = null;
        VarHandle position = null;
        VarHandle next = null;
        MethodHandle newNode = null;
        try {
            Class<?> node = Class.forName(NODE_CLASS);
            MethodHandles.Lookup reader = MethodHandles.privateLookupIn(DataReader.class, MethodHandles.lookup());
            MethodHandles.Lookup nodes = MethodHandles.privateLookupIn(node, MethodHandles.lookup());
            head = reader.findVarHandle(DataReader.class, "head", node);
            tail = reader.findVarHandle(DataReader.class, "tail", node);
            bytes = nodes.findVarHandle(node, "bytes", byte[].class);
            position = nodes.findVarHandle(node, "position", int.class);
            next = nodes.findVarHandle(node, "next", node);
            newNode = nodes.findConstructor(node, MethodType.methodType(void.class, DataReader.class, byte[].class))
                    .asType(MethodType.methodType(Object.class, DataReader.class, byte[].class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.info("connections' read lists are not cut at request heads: Helidon's reader has not the members"
                    + " this expects (" + e + ")");
            head = tail = bytes = position = next = null;
            newNode = null;
        }
        HEAD = head;
        TAIL = tail;
        BYTES = bytes;
        POSITION = position;
        NEXT = next;
        NEW_NODE = newNode;
    }

    /** Whether this Helidon's reader has what {@link #trim} needs. */
    static boolean available() {
        return NEW_NODE != null;
    }

    @Override
    public void headers(ConnectionContext ctx, Headers headers) {
        trim(ctx.dataReader());
    }

    /**
     * Makes a new node the reader's head: the same bytes left to read, the same nodes after it, no node before it.
     * Only on the reader's own thread, between its reads.
     */
    static void trim(DataReader reader) {
        if (NEW_NODE == null) return;
        Object head = HEAD.get(reader);
        Object fresh;
        try {
            fresh = (Object) NEW_NODE.invokeExact(reader, (byte[]) BYTES.get(head));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("a read list node could not be made", e); // the constructor declares none
        }
        POSITION.set(fresh, (int) POSITION.get(head));
        NEXT.set(fresh, NEXT.get(head));
        if (TAIL.get(reader) == head) TAIL.set(reader, fresh);
        HEAD.set(reader, fresh);
        NEXT.set(head, null);
    }

    /** The reader's head node (for tests). */
    static Object head(DataReader reader) {
        return HEAD.get(reader);
    }

    /** The node after {@code node}, or null (for tests). */
    static Object next(Object node) {
        return NEXT.get(node);
    }
}
