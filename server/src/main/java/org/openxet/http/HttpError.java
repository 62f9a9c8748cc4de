package org.openxet.http;

/** A request that ends with a specific status and error code (404, 408, 413, 416…). */
public class HttpError extends Exception {
    private final int status;
    private final String code;

    public HttpError(int status, String code, String message) {
        super(message);
        this.status = status;
        this.code = code;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    public static HttpError notFound(String message) {
        return new HttpError(404, "not_found", message);
    }

    public static HttpError badRequest(String message) {
        return new HttpError(400, "bad_request", message);
    }
}
