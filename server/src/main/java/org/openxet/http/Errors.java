package org.openxet.http;

import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.ServerConnectionException;
import io.helidon.webserver.http.DirectHandlers;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.openxet.protocol.FormatException;
import org.openxet.protocol.HashMismatchException;
import org.openxet.protocol.InvalidHashException;
import org.openxet.service.AuthException;
import org.openxet.service.IssuerUnavailable;
import org.openxet.service.Slots;
import org.openxet.storage.BucketException;
import org.openxet.storage.MissingXorbsException;
import org.openxet.storage.PostgresIndex;

import java.net.SocketException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The one place exceptions become statuses: every 4xx/5xx carries {@code {"error": code, "message": text}} and is
 * logged (4xx as the client's fault at INFO, 5xx with its stack at WARNING, except a deliberate 5xx: an
 * {@link HttpError} or a busy 503, INFO without a stack; and a store outage's 503, one WARNING line without a stack).
 * Never logs a token: messages are ours.
 */
public final class Errors {
    /** The refusals' logger: one line per 4xx/5xx (the warm-up drops its own, {@link WarmUp}). */
    static final String LOGGER = "org.openxet.http.errors";
    private static final Logger LOG = Logger.getLogger(LOGGER);
    /** Sent with every 503 (the stock client keeps its own backoff; other clients may use it). */
    static final String BUSY_RETRY_AFTER_SECONDS = "10";

    private Errors() {
    }

    record Mapped(int status, String code, String message) {
    }

    static Mapped map(Throwable t) {
        return switch (t) {
            case HttpError e -> new Mapped(e.status(), e.code(), e.getMessage());
            case AuthException e -> e.forbidden()
                    ? new Mapped(403, "forbidden", e.getMessage())
                    : new Mapped(401, "unauthorized", e.getMessage());
            case InvalidHashException e -> new Mapped(400, "invalid_hash", e.getMessage());
            case HashMismatchException e -> new Mapped(400, "hash_mismatch", e.getMessage());
            case FormatException e -> new Mapped(400, "invalid_format", e.getMessage());
            case MissingXorbsException e -> new Mapped(400, "xorb_missing", e.getMessage());
            case Slots.Busy e -> new Mapped(503, "busy", e.getMessage());
            case IssuerUnavailable e -> new Mapped(503, "issuer_unavailable", e.getMessage());
            case org.openxet.service.XorbIngest.QuarantinedInAnotherEncoding e -> new Mapped(409, "xorb_conflict",
                    e.getMessage());
            default -> {
                if (PostgresIndex.connectionsAllInUse(t)) {
                    // Overload, not an outage: the log and the client should not send an operator to the database.
                    yield new Mapped(503, "busy", "the server's index connections were all in use; retry later");
                }
                if (storageFull(t)) {
                    yield new Mapped(507, "insufficient_storage", "the server's storage is full; nothing was stored");
                }
                String store = unavailableStore(t);
                yield store != null
                        ? new Mapped(503, "storage_unavailable", "the server's " + store + " is unavailable; retry later")
                        : new Mapped(500, "internal", "internal error: " + t.getClass().getSimpleName());
            }
        };
    }

    /**
     * Which store the server depends on failed to answer, or null: the object store (every {@link BucketException}:
     * unreachable, refused, timed out or an error answer, see there) or the index's database connection (JDBC's
     * connection exceptions and SQL states, class 08 "connection exception" and 57P "operator intervention", which
     * PostgreSQL sends when it shuts down or is still starting). Such a failure is the server's, usually brief, and
     * worth a retry elsewhere or later: a 503 with Retry-After, which clients retry and load balancers route around, not
     * a 500 that looks like a bug. Any other database error stays a 500.
     */
    static String unavailableStore(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof BucketException) {
                return "object store";
            }
            if (c instanceof SQLTransientConnectionException || c instanceof SQLNonTransientConnectionException
                    || (c instanceof SQLException e && e.getSQLState() != null
                    && (e.getSQLState().startsWith("08") || e.getSQLState().startsWith("57P")))) {
                return "index";
            }
        }
        return null;
    }

    /**
     * The client closed or reset the connection (a reset or broken pipe surfaces as a {@link SocketException} somewhere
     * in the chain, often inside Helidon's {@link ServerConnectionException}): there is no one to answer, and it is
     * not a server fault. A read timeout is not a {@link SocketException}; a failure of the bucket's store is not the
     * client's connection, whatever its cause.
     */
    static boolean clientGone(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof BucketException) {
                // The store's connection failed (S3 refused or reset it): a 5xx for a client still waiting.
                return false;
            }
            // Helidon's own "the connection is gone" (also what Bodies throws after closing a stalled upload).
            if (c instanceof SocketException || c instanceof ServerConnectionException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Answers {@code t} on {@code res} if nothing was sent yet; logs it either way. A client that went away gets one
     * INFO line and no answer: the connection is closed by rethrowing, which Helidon handles quietly.
     */
    public static void send(ServerRequest req, ServerResponse res, Throwable t) {
        if (t.getClass() == CloseConnectionException.class) {
            // A handler's Lingering.close: the answer is out and the connection is to end. (Its subclass
            // ServerConnectionException is a client gone, handled below.)
            throw (CloseConnectionException) t;
        }
        String where = loggable(req.prologue().method().text() + " " + req.path().path());
        if (clientGone(t)) {
            LOG.info(where + ": the client closed the connection (" + loggable(rootMessage(t)) + ")");
            if (!res.isSent()) {
                // Never sent; only the access log reads it, which would otherwise show the default 200 (nginx's 499).
                res.status(Status.create(499, "Client Closed Request"));
            }
            throw t instanceof ServerConnectionException e ? e : new ServerConnectionException("client went away", t);
        }
        Mapped m = map(t);
        if (m.code().equals("storage_unavailable")) {
            // One line, no stack: an outage fails every request until it ends, and the cause says all there is.
            LOG.warning(where + " -> 503 storage_unavailable: " + loggable(t + " (cause: " + rootMessage(t) + ")"));
        } else if (m.status() >= 500 && !(t instanceof HttpError) && !m.code().equals("busy")
                && !(t instanceof IssuerUnavailable)) {
            LOG.log(Level.WARNING, where + " failed: " + loggable(t.toString()), t);
        } else {
            LOG.info(where + " -> " + m.status() + " " + m.code() + ": " + loggable(m.message()));
        }
        if (res.isSent()) {
            return;
        }
        boolean bodyLeft = Lingering.bodyLeft(req);
        if (bodyLeft || m.status() == 408 || m.status() == 413 || m.status() == 503) {
            // The rest of the body will not be read: do not keep the connection.
            res.header(HeaderNames.CONNECTION, "close");
        }
        if (m.status() == 503 && !res.headers().contains(HeaderNames.RETRY_AFTER)) {
            res.header(HeaderNames.RETRY_AFTER, BUSY_RETRY_AFTER_SECONDS);
        }
        if (req.path().path().startsWith("/api/")) {
            // The Hub's convention on its /api routes: huggingface_hub's hf_raise_for_status shows X-Error-Message
            // first and keys some errors on its exact words (TokenRoutes.INVALID_CREDENTIALS).
            res.header(ERROR_MESSAGE, headerValue(m.message()));
        }
        if (t instanceof HttpError e && e.hubCode() != null) {
            res.header(ERROR_CODE, e.hubCode());
        }
        JsonAnswer.send(res, m.status(), json(m.code(), m.message()));
        if (bodyLeft) {
            // Helidon would otherwise read the unread body as the next request on this connection (a request hidden
            // in a refused body ran), or, without Connection: close, drain all of it (a declared 10^12 bytes).
            Lingering.close(req, "request body left unread after the answer");
        }
    }

    static final HeaderName ERROR_MESSAGE = HeaderNames.create("X-Error-Message");
    static final HeaderName ERROR_CODE = HeaderNames.create("X-Error-Code");

    /** {@code text} as a header value: printable ASCII only (a message can quote a path), others as {@code ?}. */
    static String headerValue(String text) {
        if (text == null) return "";
        StringBuilder b = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return b.toString();
    }

    /**
     * {@code text} safe for one log line: control characters (a decoded path or a quoted header can carry CR, LF or
     * NUL) are written as {@code %XX}, so a request cannot forge log lines or make the log binary.
     */
    static String loggable(String text) {
        if (text == null) return "null";
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                if (out == null) out = new StringBuilder(text.length() + 8).append(text, 0, i);
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? text : out.toString();
    }

    /** A full disk, as the bucket (ENOSPC) or SQLite (SQLITE_FULL) reports it anywhere in the chain. */
    static boolean storageFull(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String m = c.getMessage();
            if (m != null && (m.contains("No space left on device") || m.contains("SQLITE_FULL")
                    || m.contains("database or disk is full"))) {
                return true;
            }
        }
        return false;
    }

    /** The JSON answer for every refusal Helidon makes before routing; logged like ours, without its details. */
    static DirectHandlers directHandlers() {
        DirectHandler json = (req, type, status, headers, message) -> {
            String code = switch (status.code()) {
                case 400 -> "bad_request";
                case 403 -> "forbidden";
                case 413 -> "payload_too_large";
                case 414 -> "uri_too_long";
                case 431 -> "request_header_fields_too_large";
                case 505 -> "http_version_not_supported";
                default -> status.code() >= 500 ? "internal" : "bad_request";
            };
            // Helidon's message can quote the request; it goes back to its sender only, never to the log.
            LOG.info(loggable(req.method() + " " + pathOnly(req.path())) + " -> " + status.code() + " " + code
                    + " (refused before routing)");
            return DirectHandler.TransportResponse.builder()
                    .status(status)
                    .headers(headers)
                    .header(HeaderNames.CONTENT_TYPE, "application/json")
                    .entity(json(code, message == null || message.isBlank() ? status.reasonPhrase() : message))
                    .keepAlive(false)
                    .build();
        };
        DirectHandlers.Builder all = DirectHandlers.builder();
        for (DirectHandler.EventType type : DirectHandler.EventType.values()) {
            all.addHandler(type, json);
        }
        return all.build();
    }

    private static String pathOnly(String path) {
        if (path == null || path.isEmpty()) return "(no path)";
        int q = path.indexOf('?');
        return q < 0 ? path : path.substring(0, q);
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    static String json(String code, String message) {
        return "{\"error\":" + JsonAnswer.quote(code) + ",\"message\":" + JsonAnswer.quote(message == null ? "" : message) + "}";
    }
}
