// A fetch that records every request the client makes, handed to the package through its documented `fetch`
// option (commit() and downloadFile() both take one). The request still goes out through node's own fetch,
// unchanged, straight to the server; we only note method, URL, request body size, Range and the answer's status.
// That is how the dedup check counts the bytes the client POSTed to /v1/xorbs.

function headerValue(headers, name) {
	if (!headers) return undefined;
	if (typeof headers.get === "function") return headers.get(name) ?? undefined;
	for (const [k, v] of Array.isArray(headers) ? headers : Object.entries(headers)) {
		if (k.toLowerCase() === name) return v;
	}
	return undefined;
}

function bodySize(body) {
	if (body == null) return 0;
	if (typeof body === "string") return Buffer.byteLength(body);
	if (ArrayBuffer.isView(body) || body instanceof ArrayBuffer) return body.byteLength;
	if (typeof Blob !== "undefined" && body instanceof Blob) return body.size;
	return NaN; // a stream: size unknown here (the client sends none to the CAS)
}

export class RequestLog {
	entries = [];

	/** The fetch to hand to the package. */
	fetch = async (input, init = {}) => {
		const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
		const entry = {
			method: (init.method ?? input.method ?? "GET").toUpperCase(),
			url: new URL(url),
			reqBytes: bodySize(init.body),
			range: headerValue(init.headers, "range"),
			status: undefined,
			contentType: undefined,
		};
		this.entries.push(entry);
		try {
			const resp = await fetch(input, init);
			entry.status = resp.status;
			entry.contentType = resp.headers.get("content-type") ?? "";
			return resp;
		} catch (err) {
			entry.status = `error: ${err.cause?.code ?? err.message}`;
			throw err;
		}
	};

	/** Index to pass to {@link since} later. */
	mark() {
		return this.entries.length;
	}

	since(mark) {
		return this.entries.slice(mark);
	}
}

/** Classify a recorded request to the CAS by its path (anything on the CAS origin not matched is a data URL). */
export function casKind(entry, casOrigin) {
	if (entry.url.origin !== casOrigin) return "hub";
	const p = entry.url.pathname;
	if (p.startsWith("/v1/xorbs/")) return "xorb";
	if (p === "/v1/shards" || p === "/v2/shards") return "shard";
	if (p.startsWith("/v1/chunks/")) return "dedup";
	if (p.startsWith("/v2/reconstructions")) return "reconstruction-v2";
	if (p.startsWith("/v1/reconstructions")) return "reconstruction-v1";
	if (p.startsWith("/v2/file-chunk-hashes/")) return "file-chunk-hashes";
	if (p.startsWith("/api/")) return "token";
	if (p === "/v1/telemetry") return "telemetry";
	return "data";
}
