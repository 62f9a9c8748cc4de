// The few Hugging Face Hub endpoints that @huggingface/hub calls around the CAS, emulated on loopback. Read from the
// package's sources (2.17.5: lib/commit.ts, lib/file-download-info.ts, utils/uploadShards.ts, utils/xetWriteToken.ts,
// utils/XetBlob.ts; 2.14.6 for the v1 reader):
//
//   GET  /api/{type}s/{ns}/{name}/xet-{read,write}-token[/{rev}]   CAS token ({casUrl, accessToken, exp}; X-Xet-* headers)
//   POST /api/buckets/{ns}/{name}/batch                           bucket commit: ndjson {type:addFile, path, xetHash}
//   POST /api/models/{ns}/{name}/preupload/{rev}                  model commit, step 1: upload mode per file
//   POST /{ns}/{name}.git/info/lfs/objects/batch                  step 2: LFS batch answered with the "xet" transfer
//   POST /api/models/{ns}/{name}/commit/{rev}                     step 3: ndjson header + lfsFile entries
//   GET  /buckets/{ns}/{name}/resolve/{path}                      download: Xet file info in headers
//   GET  /{ns}/{name}/resolve/{rev}/{path}                        (model repo)
//
// Everything Xet (xorbs, shards, dedup, reconstructions, data URLs) goes to openxet, whose address the client only
// learns from the casUrl of a token. Any other request is answered 404 and noted in `unexpected`.
import http from "node:http";
import { randomUUID } from "node:crypto";

const ZERO_HASH = "0".repeat(64);

export class HubEmulator {
	/**
	 * @param tokens   source of CAS tokens: `await tokens.get({access, repoType, repoName, rev})`
	 *                 → {status, json, fromHeaders} as the CAS answered (see cas-tokens.mjs), or as an external
	 *                 issuer minted it (issuer-tokens.mjs)
	 * @param hubToken the Hub token the client must present on every Hub call
	 * @param xetHashBySha256 what the real Hub learns from the CAS for model-repo files: sha256 → Xet file hash
	 */
	constructor({ tokens, hubToken, xetHashBySha256 = new Map() }) {
		this.tokens = tokens;
		this.hubToken = hubToken;
		this.xetHashBySha256 = xetHashBySha256;
		this.files = new Map(); // "type/ns/name" → Map(path → {xetHash, size, sha256?})
		this.requests = [];
		this.unexpected = [];
		this.rejections = []; // why the emulated Hub refused a file (the package reports only the path)
		this.server = http.createServer((req, res) => this.#handle(req, res));
	}

	async start() {
		await new Promise((resolve) => this.server.listen(0, "127.0.0.1", resolve));
		this.url = `http://127.0.0.1:${this.server.address().port}`;
		return this;
	}

	async stop() {
		this.server.closeAllConnections?.();
		await new Promise((resolve) => this.server.close(resolve));
	}

	#repoFiles(type, name) {
		const key = `${type}/${name}`;
		if (!this.files.has(key)) this.files.set(key, new Map());
		return this.files.get(key);
	}

	async #handle(req, res) {
		const url = new URL(req.url, "http://hub");
		const entry = { method: req.method, path: url.pathname, status: 0 };
		this.requests.push(entry);
		const send = (status, body, headers = {}) => {
			entry.status = status;
			const text = typeof body === "string" ? body : JSON.stringify(body);
			res.writeHead(status, { "Content-Type": "application/json", ...headers });
			res.end(text);
		};
		try {
			const body = await readBody(req);
			if (req.headers.authorization !== `Bearer ${this.hubToken}`) {
				return send(401, { error: "emulated hub: missing or wrong user token" });
			}
			const p = url.pathname;
			let m;
			if (req.method === "GET" && (m = p.match(/^\/api\/(model|dataset|space|bucket)s\/([^/]+\/[^/]+)\/xet-(read|write)-token(?:\/(.+))?$/))) {
				// the bucket flow asks without a revision; openxet's route wants one
				return await this.#token(send, m[1], m[2], m[3], m[4] ? decodeURIComponent(m[4]) : "main");
			}
			if (req.method === "POST" && (m = p.match(/^\/api\/buckets\/([^/]+\/[^/]+)\/batch$/))) {
				return await this.#bucketBatch(send, m[1], body.toString("utf8"));
			}
			if (req.method === "POST" && (m = p.match(/^\/api\/(model|dataset|space)s\/([^/]+\/[^/]+)\/preupload\/(.+)$/))) {
				const json = JSON.parse(body.toString("utf8"));
				return send(200, { files: json.files.map((f) => ({ path: f.path, uploadMode: "lfs", shouldIgnore: false })) });
			}
			if (req.method === "POST" && (m = p.match(/^\/(?:(dataset|space)s\/)?([^/]+\/[^/]+)\.git\/info\/lfs\/objects\/batch$/))) {
				return await this.#lfsBatch(send, m[1] ?? "model", m[2], JSON.parse(body.toString("utf8")));
			}
			if (req.method === "POST" && (m = p.match(/^\/api\/(model|dataset|space)s\/([^/]+\/[^/]+)\/commit\/(.+)$/))) {
				return this.#commit(send, m[1], m[2], body.toString("utf8"));
			}
			if (req.method === "GET" && (m = p.match(/^\/buckets\/([^/]+\/[^/]+)\/resolve\/(.+)$/))) {
				return this.#resolve(send, "bucket", m[1], undefined, decodeURIComponent(m[2]));
			}
			if (req.method === "GET" && (m = p.match(/^\/(?:(dataset|space)s\/)?([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/))) {
				return this.#resolve(send, m[1] ?? "model", m[2], decodeURIComponent(m[3]), decodeURIComponent(m[4]));
			}
			this.unexpected.push(`${req.method} ${p}`);
			return send(404, { error: `emulated hub: no route for ${req.method} ${p}` });
		} catch (err) {
			return send(500, { error: `emulated hub: ${err.stack ?? err}` });
		}
	}

	/** A CAS token, as the CAS issued it: status, body and X-Xet-* headers passed through unchanged, as the Hub sends them. */
	async #token(send, type, name, access, rev) {
		const answer = await this.tokens.get({ access, repoType: type, repoName: name, rev });
		const c = answer.fromHeaders;
		const headers = c
			? { "X-Xet-Cas-Url": c.casUrl, "X-Xet-Access-Token": c.accessToken, "X-Xet-Token-Expiration": String(c.exp) }
			: {};
		return send(answer.status, answer.json ?? answer.text, headers);
	}

	/**
	 * A CAS token for the emulated Hub's own use: from the JSON body, or with `fromHeaders` from the `X-Xet-*`
	 * headers alone, the way huggingface_hub reads the token route (so a route that stops sending them fails here).
	 */
	async #casToken(access, type, name, rev, { fromHeaders = false } = {}) {
		const answer = await this.tokens.get({ access, repoType: type, repoName: name, rev });
		if (answer.status !== 200) {
			throw new Error(`CAS ${access} token for ${type}s/${name}: HTTP ${answer.status} ${answer.text ?? JSON.stringify(answer.json)}`);
		}
		if (fromHeaders) {
			if (!answer.fromHeaders) {
				throw new Error(`CAS ${access} token for ${type}s/${name}: Xet headers have not been correctly set by the server`);
			}
			return answer.fromHeaders;
		}
		return answer.json;
	}

	/**
	 * Bucket commit: the client reports only path and Xet hash. Like the Hub, ask the CAS for the file's size: a
	 * reconstruction without Range covers the whole file (the zero hash is the empty file and needs no question).
	 */
	async #bucketBatch(send, name, ndjson) {
		const files = this.#repoFiles("bucket", name);
		const ops = ndjson.split("\n").filter(Boolean).map((line) => JSON.parse(line));
		const failed = [];
		for (const op of ops) {
			if (op.type !== "addFile") {
				failed.push({ path: op.path, error: `emulated hub: unsupported ${op.type}` });
				continue;
			}
			try {
				files.set(op.path, { xetHash: op.xetHash, size: await this.#sizeFromCas("bucket", name, op.xetHash) });
			} catch (err) {
				failed.push({ path: op.path, error: String(err.message ?? err) });
			}
		}
		this.rejections.push(...failed.map((f) => `${f.path}: ${f.error}`));
		return send(failed.length ? 422 : 200, {
			success: failed.length === 0,
			processed: ops.length,
			succeeded: ops.length - failed.length,
			failed,
		});
	}

	async #sizeFromCas(type, name, xetHash) {
		if (xetHash === ZERO_HASH) return 0;
		const token = await this.#casToken("read", type, name, "main");
		const resp = await fetch(`${token.casUrl}/v2/reconstructions/${xetHash}`, {
			headers: { Authorization: `Bearer ${token.accessToken}` },
		});
		if (!resp.ok) throw new Error(`CAS has no file ${xetHash}: GET /v2/reconstructions answered ${resp.status} ${await resp.text()}`);
		const info = await resp.json();
		return info.terms.reduce((sum, t) => sum + t.unpacked_length, 0) - info.offset_into_first_range;
	}

	/**
	 * LFS batch with the "xet" transfer: the first CAS write token travels in the upload action's headers. This leg
	 * takes the token from the token route's headers, not its body, as huggingface_hub does.
	 */
	async #lfsBatch(send, type, name, batch) {
		const rev = batch.ref?.name ?? "main";
		if (!batch.transfers?.includes("xet")) {
			return send(400, { message: "emulated hub: only the xet transfer is offered" });
		}
		const token = await this.#casToken("write", type, name, rev, { fromHeaders: true });
		const sessionId = randomUUID();
		const typePath = type === "model" ? "" : `${type}s/`;
		return send(
			200,
			{
				transfer: "xet",
				hash_algo: "sha256",
				objects: batch.objects.map((o) => ({
					oid: o.oid,
					size: o.size,
					authenticated: true,
					actions: {
						upload: {
							href: `${this.url}/api/${type}s/${name}/xet-write-token/${encodeURIComponent(rev)}`,
							header: {
								"X-Xet-Cas-Url": token.casUrl,
								"X-Xet-Access-Token": token.accessToken,
								"X-Xet-Token-Expiration": String(token.exp),
								"X-Xet-Session-Id": sessionId,
							},
						},
					},
				})),
			},
			{ "Content-Type": "application/vnd.git-lfs+json", "X-Request-Id": `emulated-${typePath}${sessionId}` },
		);
	}

	#commit(send, type, name, ndjson) {
		const files = this.#repoFiles(type, name);
		const lines = ndjson.split("\n").filter(Boolean).map((line) => JSON.parse(line));
		for (const { key, value } of lines) {
			if (key === "lfsFile") {
				const xetHash = this.xetHashBySha256.get(value.oid);
				if (!xetHash) {
					this.rejections.push(`${value.path}: no Xet hash known for sha256 ${value.oid}`);
					return send(422, { error: `emulated hub: no Xet hash known for sha256 ${value.oid} (${value.path})` });
				}
				files.set(value.path, { xetHash, size: value.size, sha256: value.oid });
			} else if (key !== "header") {
				return send(422, { error: `emulated hub: unsupported commit entry ${key} for ${value.path}` });
			}
		}
		const oid = randomUUID().replaceAll("-", "").padEnd(40, "0");
		return send(200, { commitOid: oid, commitUrl: `${this.url}/${name}/commit/${oid}`, hookOutput: "" });
	}

	/** What the Hub's resolve answers to `Accept: application/vnd.xet-fileinfo+json` for a Xet-backed file. */
	#resolve(send, type, name, rev, path) {
		const file = this.#repoFiles(type, name).get(path);
		if (!file) {
			return send(404, { error: "Entry not found" }, { "X-Error-Code": "EntryNotFound" });
		}
		// Reads go to the node read tokens come from (a second node, when two share storage).
		const casUrl = this.tokens.readUrl ?? this.tokens.casUrl;
		const refresh = `${this.url}/api/${type}s/${name}/xet-read-token/${encodeURIComponent(rev ?? "main")}`;
		const reconstruction = `${casUrl}/v1/reconstructions/${file.xetHash}`;
		return send(
			200,
			{ hash: file.xetHash, size: file.size, refreshUrl: refresh, reconstructionUrl: reconstruction },
			{
				"Content-Type": "application/vnd.xet-fileinfo+json",
				"X-Xet-Hash": file.xetHash,
				"X-Linked-Size": String(file.size),
				"X-Linked-ETag": `"${file.sha256 ?? file.xetHash}"`,
				ETag: `"${file.xetHash}"`,
				Link: `<${reconstruction}>; rel="xet-reconstruction-info", <${refresh}>; rel="xet-auth"`,
			},
		);
	}
}

function readBody(req) {
	return new Promise((resolve, reject) => {
		const parts = [];
		req.on("data", (d) => parts.push(d));
		req.on("end", () => resolve(Buffer.concat(parts)));
		req.on("error", reject);
	});
}
