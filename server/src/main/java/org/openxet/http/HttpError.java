package org.openxet.http;

/**
 * A request that ends with a specific status and error code (404, 408, 413, 416…), and optionally the Hub's own code
 * for it, sent as {@code X-Error-Code}: huggingface_hub's {@code hf_raise_for_status} and huggingface.js key errors on
 * it ({@code RepoNotFound} on a bucket route becomes {@code BucketNotFoundError}; {@code EntryNotFound} makes
 * {@code fileDownloadInfo} answer null).
 */
public class HttpError extends Exception {
    private final int status;
    private final String code;
    private final String hubCode;

    public HttpError(int status, String code, String message) {
        this(status, code, message, null);
    }

    public HttpError(int status, String code, String message, String hubCode) {
        super(message);
        this.status = status;
        this.code = code;
        this.hubCode = hubCode;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    /** The Hub's {@code X-Error-Code} for this error, or null. */
    public String hubCode() {
        return hubCode;
    }

    public static HttpError notFound(String message) {
        return new HttpError(404, "not_found", message);
    }

    public static HttpError badRequest(String message) {
        return new HttpError(400, "bad_request", message);
    }

    /** A repository that does not exist or that the caller may not see: the Hub answers both alike. */
    public static HttpError repoNotFound(String message) {
        return new HttpError(404, "not_found", message, "RepoNotFound");
    }

    /** A path a repository does not have. */
    public static HttpError entryNotFound(String message) {
        return new HttpError(404, "not_found", message, "EntryNotFound");
    }
}
