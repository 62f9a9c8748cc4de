// Interop test: the unmodified @huggingface/hub client (2.17.5, and 2.14.6 for /v1/reconstructions) against a real
// openxet server on loopback. Run through run.sh, which starts the server; see README.md.
//
// Environment:
//   OPENXET_URL         the server's public URL (its casUrl)                                   required
//   OPENXET_LOG         the server's log file: access-log cross-check, and its tail on failure  optional
//   OPENXET_USER_TOKEN  a user token from `openxet user add` (write, all repos): the emulated Hub gets every
//                       CAS token from the server's Hub-style token routes with it  required unless OPENXET_ISSUER
//   OPENXET_ISSUER      the `iss` of an external token issuer the server trusts (`auth.issuers` in its --config):
//                       the emulated Hub mints every CAS token itself (lib/issuer-tokens.mjs) instead of asking
//                       openxet's token routes, and the refusal checks of such tokens run                  optional
//   OPENXET_ISSUER_KEY  with OPENXET_ISSUER: the issuer's private key, a PKCS#8 PEM file (EC P-256, ES256)  required
//   OPENXET_ISSUER_KID  with OPENXET_ISSUER: the key's `kid` in the JWKS the server reads                  required
//   OPENXET_ISSUER_AUDIENCE    with OPENXET_ISSUER: the `aud` the server requires                          required
//   OPENXET_READ_URL    another node's public URL: read tokens (so every download) go there, writes to
//                       OPENXET_URL; for two nodes sharing one index and bucket                     optional
//   OPENXET_URL_TTL_SECONDS    the server's signed-URL lifetime when it was started with a short one: enables the
//                       expired-URL leg (reads again after the URLs expired: 403, then a fresh reconstruction)
import { readFileSync, existsSync, statSync } from "node:fs";
import { generateKeyPairSync } from "node:crypto";
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";
import { deepStrictEqual } from "node:assert";
import * as hub from "@huggingface/hub";
import * as hubV1 from "hub-v1";
import { getChunks, hashToHex, MerkleHashSubtree, verificationHash } from "@huggingface/xetchunk-wasm";
import { HubEmulator } from "./lib/hub-emulator.mjs";
import { RouteTokens } from "./lib/cas-tokens.mjs";
import { IssuerTokens } from "./lib/issuer-tokens.mjs";
import { RequestLog, casKind } from "./lib/recording-fetch.mjs";
import { openxetHubLegs } from "./lib/openxet-hub-legs.mjs";
import { splitmix64, aesCtr, repeat, patch, sha256Hex, vectorInput } from "./lib/inputs.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const casUrl = required("OPENXET_URL").replace(/\/+$/, "");
const casOrigin = new URL(casUrl).origin;
// Downloads (read tokens) go to this node; the same as casUrl unless two nodes share storage.
const readUrl = (process.env.OPENXET_READ_URL || casUrl).replace(/\/+$/, "");
const readOrigin = new URL(readUrl).origin;
const serverLog = process.env.OPENXET_LOG;
const CHECK_TIMEOUT_MS = 90_000;
const TOTAL_TIMEOUT_MS = 170_000;
const MiB = 1024 * 1024;

const versions = {
	hub: JSON.parse(readFileSync(resolve(here, "node_modules/@huggingface/hub/package.json"), "utf8")).version,
	hubV1: JSON.parse(readFileSync(resolve(here, "node_modules/hub-v1/package.json"), "utf8")).version,
};

// ---------------------------------------------------------------- checks and output

const results = { passed: 0, failed: 0, skipped: 0 };

function skip(what, why) {
	results.skipped++;
	console.log(`skip ${what}: ${why}`);
}

async function check(name, fn) {
	const t0 = performance.now();
	let timer;
	try {
		const note = await Promise.race([
			fn(),
			new Promise((_, reject) => {
				timer = setTimeout(() => reject(new CheckFailed(`timed out after ${CHECK_TIMEOUT_MS / 1000} s`)), CHECK_TIMEOUT_MS);
			}),
		]);
		results.passed++;
		console.log(`ok   ${name}${note ? ` — ${note}` : ""} (${Math.round(performance.now() - t0)} ms)`);
		return true;
	} catch (err) {
		results.failed++;
		console.log(`FAIL ${name}: ${describe(err)}`);
		return false;
	} finally {
		clearTimeout(timer);
	}
}

class CheckFailed extends Error {}

function assert(cond, message) {
	if (!cond) throw new CheckFailed(message);
}

/** An assertion's message, or an unexpected error's message with the top of its stack. */
function describe(err) {
	if (err instanceof CheckFailed) return err.message;
	const frames = (err?.stack ?? "").split("\n").filter((l) => l.trim().startsWith("at ")).slice(0, 4);
	return [String(err?.message ?? err), ...frames].join("\n    ");
}

function assertSameBytes(actual, expected, what) {
	assert(actual.length === expected.length, `${what}: ${actual.length} bytes, expected ${expected.length}`);
	const a = Buffer.from(actual.buffer, actual.byteOffset, actual.length);
	if (a.equals(Buffer.from(expected.buffer, expected.byteOffset, expected.length))) return;
	let i = 0;
	while (a[i] === expected[i]) i++;
	throw new Error(`${what}: bytes differ first at offset ${i} (got ${a[i]}, expected ${expected[i]})`);
}

function tailOfServerLog(lines = 60) {
	if (!serverLog || !existsSync(serverLog)) return "(no server log)";
	return readFileSync(serverLog, "utf8").split("\n").slice(-lines - 1).join("\n");
}

function required(name) {
	const v = process.env[name];
	if (!v) {
		console.error(`interop: ${name} is not set (run tests/interop/run.sh)`);
		process.exit(2);
	}
	return v;
}

function fmtBytes(n) {
	return n >= MiB ? `${(n / MiB).toFixed(2)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
}

// ---------------------------------------------------------------- inputs

const random5m = splitmix64(5, 5 * MiB + 4321);
const EDIT_AT = 2_600_000;
const files = [
	{ path: "empty.bin", bytes: new Uint8Array(0) },
	{ path: "one-byte.bin", bytes: splitmix64(1, 1) },
	{ path: "random-100k.bin", bytes: splitmix64(100, 100 * 1024) },
	{ path: "random-5m.bin", bytes: random5m },
	// a 1 MiB + 7 B random block, repeated: after the first copy the chunker finds the same chunks again
	{ path: "repeat-20m.bin", bytes: repeat(splitmix64(20, MiB + 7), 20 * MiB + 1234) },
];
const edited5m = { path: "random-5m.bin", bytes: patch(random5m, EDIT_AT, splitmix64(99, 100)), editAt: EDIT_AT };
// More than one xorb's worth (the client closes a xorb at 64 MiB): a reconstruction that spans xorbs in sequence.
const large = { path: "random-70m.bin", bytes: aesCtr(70, 70 * MiB + 999), boundaryNear: 64 * MiB };
const vectorsDir = resolve(here, "../../testdata/vectors");
const modelFiles = ["r131073", "r1m"].map((name) => {
	const v = vectorInput(vectorsDir, name);
	return { path: `weights/${name}.bin`, bytes: v.bytes, sha256: v.sha256, xetHash: v.xetHash };
});
// Committed to a branch with slashes in its name (prBranchLeg).
const prBranchFile = (({ bytes, sha256, xetHash }) => ({ path: "pr/r65536.bin", bytes, sha256, xetHash }))(
	vectorInput(vectorsDir, "r65536"),
);

// ---------------------------------------------------------------- setup

const requestLog = new RequestLog();
// With an external issuer the emulated Hub signs the CAS tokens itself and openxet's token routes are never called.
const issuer = process.env.OPENXET_ISSUER
	? {
			issuer: process.env.OPENXET_ISSUER,
			keyFile: required("OPENXET_ISSUER_KEY"),
			kid: required("OPENXET_ISSUER_KID"),
			audience: required("OPENXET_ISSUER_AUDIENCE"),
		}
	: undefined;
const tokens = issuer ? new IssuerTokens(casUrl, issuer, readUrl) : new RouteTokens(casUrl, required("OPENXET_USER_TOKEN"), readUrl);
// The client's token for the emulated Hub (the package refuses one that does not start with "hf_").
const hubToken = "hf_interop_emulated_hub_token";
const emulator = await new HubEmulator({
	tokens,
	hubToken,
	xetHashBySha256: new Map([...modelFiles, prBranchFile].map((f) => [f.sha256, f.xetHash])),
}).start();
const bucket = "buckets/interop/files";
const model = "interop/model";
const common = { hubUrl: emulator.url, accessToken: hubToken, fetch: requestLog.fetch };

const watchdog = setTimeout(() => {
	console.log(`FAIL interop run: still running after ${TOTAL_TIMEOUT_MS / 1000} s, giving up`);
	console.log(`---- last lines of the server log (${serverLog}) ----\n${tailOfServerLog()}`);
	process.exit(1);
}, TOTAL_TIMEOUT_MS);

console.log(
	`interop: @huggingface/hub ${versions.hub} and ${versions.hubV1} against openxet at ${casUrl}` +
		(readUrl === casUrl ? "; " : ` (writes), ${readUrl} (reads); `) +
		`emulated Hub at ${emulator.url}; ` +
		(issuer ? `CAS tokens signed by the emulated Hub as external issuer ${issuer.issuer} (kid ${issuer.kid})` : "CAS tokens from openxet's xet-*-token routes"),
);

// ---------------------------------------------------------------- upload

/** Commit `ops` with hub 2.17.5 and return what the client sent to the CAS during it. */
async function commitAndRecord(repo, ops, title) {
	const mark = requestLog.mark();
	const logMark = serverLog && existsSync(serverLog) ? statSync(serverLog).size : 0;
	const rejected = emulator.rejections.length;
	try {
		await hub.commit({ ...common, repo, title, operations: ops });
	} catch (err) {
		const why = emulator.rejections.slice(rejected);
		if (why.length) err.message += ` — the emulated Hub refused: ${why.join("; ")}`;
		throw err;
	}
	const sent = requestLog.since(mark).filter((e) => e.url.origin === casOrigin);
	const by = (kind) => sent.filter((e) => casKind(e, casOrigin) === kind);
	// A dedup miss is a 404 by protocol; /v2/file-chunk-hashes is optional (§5.9) and the client copes without it.
	const optional = new Set(["dedup", "file-chunk-hashes"]);
	const bad = sent.filter((e) => !(e.status >= 200 && e.status < 300) && !optional.has(casKind(e, casOrigin)));
	assert(bad.length === 0, `CAS answered ${bad.map((e) => `${e.method} ${e.url.pathname} → ${e.status}`).join(", ")}`);
	return {
		xorbs: by("xorb"),
		shards: by("shard"),
		dedup: by("dedup"),
		xorbBytes: by("xorb").reduce((s, e) => s + e.reqBytes, 0),
		logMark,
	};
}

const addOps = (list) =>
	list.map((f) => ({ operation: "addOrUpdate", path: f.path, content: new Blob([f.bytes]) }));

/** Xorb uploads the server's access log recorded after `logMark` (cross-checks the client-side count). */
async function xorbPostsInServerLog(logMark) {
	if (!serverLog || !existsSync(serverLog)) return undefined;
	await new Promise((r) => setTimeout(r, 200)); // the access log is written after the response
	const appended = readFileSync(serverLog).subarray(logMark).toString("utf8");
	return [...appended.matchAll(/POST (\/v1\/xorbs\/default\/[0-9a-f]{64}) (\d{3})/g)].map((m) => ({ path: m[1], status: m[2] }));
}

async function uploadLegs() {
	let base;
	const ok = await check(`bucket commit (hub ${versions.hub}): ${files.map((f) => `${f.path} ${fmtBytes(f.bytes.length)}`).join(", ")}`, async () => {
		base = await commitAndRecord(bucket, addOps(files), "interop: base files");
		const stored = emulator.files.get("bucket/interop/files");
		for (const f of files) {
			const e = stored?.get(f.path);
			assert(e, `the bucket batch call did not register ${f.path}`);
			assert(e.size === f.bytes.length, `${f.path}: CAS reconstruction says ${e.size} bytes, file has ${f.bytes.length}`);
		}
		assert(base.shards.length >= 1, "no shard was uploaded");
		return `${base.xorbs.length} xorbs (${fmtBytes(base.xorbBytes)}), ${base.shards.length} shards, ${base.dedup.length} dedup queries`;
	});

	await check("the repeated 20 MiB file is deduplicated inside itself", async () => {
		assert(base, "base commit failed");
		// Everything else is random and stored whole; the 20 copies of a 1 MiB block should cost about one copy.
		const others = files.filter((x) => x.path !== "repeat-20m.bin").reduce((s, x) => s + x.bytes.length, 0);
		const forRepeat = base.xorbBytes - others;
		assert(forRepeat < 2 * MiB, `${fmtBytes(base.xorbBytes)} of xorbs in all, so about ${fmtBytes(forRepeat)} for the repeated file`);
		return `about ${fmtBytes(Math.max(forRepeat, 0))} of xorbs for the ${fmtBytes(20 * MiB + 1234)} file`;
	});
	return ok;
}

async function editLeg() {
	let edit;
	const ok = await check(`bucket commit of ${edited5m.path} v2 (100 bytes changed at ${EDIT_AT})`, async () => {
		edit = await commitAndRecord(bucket, addOps([edited5m]), "interop: edit");
		const e = emulator.files.get("bucket/interop/files")?.get(edited5m.path);
		assert(e?.size === edited5m.bytes.length, `registered size ${e?.size}, expected ${edited5m.bytes.length}`);
		return `${edit.xorbs.length} xorbs (${fmtBytes(edit.xorbBytes)}), ${edit.shards.length} shards`;
	});
	await check("the edit is uploaded mostly by dedup: xorb bytes POSTed ≪ file size", async () => {
		assert(edit, "edit commit failed");
		const hits = edit.dedup.filter((e) => e.status === 200);
		assert(hits.length >= 1, `no global-dedup hit: ${edit.dedup.map((e) => `GET ${e.url.pathname} → ${e.status}`).join(", ") || "no query made"}`);
		const limit = edited5m.bytes.length / 10;
		assert(edit.xorbBytes < limit, `${fmtBytes(edit.xorbBytes)} POSTed to /v1/xorbs, limit ${fmtBytes(limit)}`);
		const logged = await xorbPostsInServerLog(edit.logMark);
		if (logged) {
			const sentPaths = edit.xorbs.map((e) => e.url.pathname).sort().join(" ");
			const loggedPaths = logged.map((e) => e.path).sort().join(" ");
			assert(sentPaths === loggedPaths, `client sent xorbs [${sentPaths}] but the server logged [${loggedPaths}]`);
		}
		return (
			`${fmtBytes(edit.xorbBytes)} in ${edit.xorbs.length} xorb POSTs for a ${fmtBytes(edited5m.bytes.length)} file ` +
			`(${((100 * edit.xorbBytes) / edited5m.bytes.length).toFixed(1)} %); dedup query answered 200` +
			(logged ? "; server access log agrees" : "")
		);
	});
	await check("a byte-identical copy under another path uploads no xorb at all", async () => {
		const copy = await commitAndRecord(bucket, addOps([{ path: "random-5m-v2-copy.bin", bytes: edited5m.bytes }]), "interop: copy");
		assert(copy.xorbBytes === 0, `${copy.xorbs.length} xorbs, ${fmtBytes(copy.xorbBytes)} POSTed`);
		return `${copy.dedup.length} dedup queries, ${copy.shards.length} shard`;
	});
	return ok;
}

/**
 * 2.17.5's "edit" operation on a downloaded XetBlob: the client asks the CAS for the file's layout (a reconstruction
 * without Range, with the write token) and for `/v2/file-chunk-hashes` (§5.9), then reads and re-chunks only the
 * windows around the edit and composes the file hash from the gaps' partial merkle trees. openxet serves it, so the
 * answer must be 200, the shard the client composes must pass openxet's validation (which recomputes the file hash
 * and the verification hashes from the chunks: a wrong gap tree fails the commit), and the result must download
 * intact. (The client still reads the whole original during the commit, for the new file's SHA-256, with or without
 * the endpoint: what the endpoint saves it is re-chunking the unchanged parts.)
 */
async function editOperationLeg() {
	const at = 1_000_000;
	const replacement = splitmix64(7, 50);
	const target = { path: "random-5m-edit-op.bin", bytes: patch(edited5m.bytes, at, replacement) };
	let sent;
	const ok = await check(`commit() "edit" operation on the XetBlob of ${edited5m.path}: 50 bytes replaced at ${at}`, async () => {
		const original = await hub.downloadFile({ ...common, repo: bucket, path: edited5m.path });
		const mark = requestLog.mark();
		sent = await commitAndRecord(
			bucket,
			[{ operation: "edit", path: target.path, originalContent: original, edits: [{ start: at, end: at + 50, content: new Blob([replacement]) }] }],
			"interop: edit operation",
		);
		const chunkHashes = requestLog.since(mark).filter((e) => e.url.pathname.startsWith("/v2/file-chunk-hashes/"));
		const limit = target.bytes.length / 10;
		assert(sent.xorbBytes < limit, `${fmtBytes(sent.xorbBytes)} POSTed to /v1/xorbs, limit ${fmtBytes(limit)}`);
		const answered = chunkHashes.map((e) => e.status).join(", ") || "(not asked)";
		assert(answered === "200", `/v2/file-chunk-hashes answered ${answered}, expected one 200`);
		return `${fmtBytes(sent.xorbBytes)} of xorbs; /v2/file-chunk-hashes answered 200, the composed shard passed validation`;
	});
	if (ok) {
		await downloadLeg(`edit operation, v2 parallel (hub ${versions.hub})`, hub, bucket, [target], { quick: true, api: "/v2/reconstructions" });
	} else {
		skip("edit-operation download leg", "the edit commit failed");
	}
}

/**
 * openxet's `/v2/file-chunk-hashes` answer against the client library's own implementation: the JS chunker
 * (`@huggingface/xetchunk-wasm`, the one 2.17.5 uploaded the file with) re-chunks the original, and for each gap
 * between the windows the library's `MerkleHashSubtree.fromChunks(...).toJSON()` must equal openxet's tree, and each
 * term no window touches must have the library's `verificationHash` of its chunks, in order.
 */
async function chunkHashesOracleLeg() {
	const dirty = [
		[1_000_000, 1_000_050],
		[3_000_000, 3_000_001],
		[3_010_000, 3_020_000],
	];
	await check(`/v2/file-chunk-hashes of ${edited5m.path} for ${dirty.length} dirty ranges equals @huggingface/xetchunk-wasm's trees`, async () => {
		const file = emulator.files.get("bucket/interop/files")?.get(edited5m.path);
		assert(file, `${edited5m.path} is not registered (its commit failed)`);
		const token = await tokens.get({ access: "read", repoType: "bucket", repoName: "interop/files", rev: "main" });
		assert(token.status === 200, `read token: ${token.status} ${token.text}`);
		const auth = { Authorization: `Bearer ${token.json.accessToken}` };
		const resp = await fetch(`${token.json.casUrl}/v2/file-chunk-hashes/${file.xetHash}`, {
			headers: { ...auth, "X-Range-Dirty": "bytes=" + dirty.map(([a, b]) => `${a}-${b - 1}`).join(",") },
		});
		const body = await resp.text();
		assert(resp.status === 200, `answered ${resp.status}: ${body}`);
		const answer = JSON.parse(body);

		const chunks = getChunks(edited5m.bytes);
		const ends = [];
		let at = 0;
		for (const c of chunks) ends.push((at += c.length));
		const boundaries = new Set([0, ...ends]);
		assert(answer.totalChunks === chunks.length, `totalChunks ${answer.totalChunks}, the JS chunker made ${chunks.length}`);
		assert(answer.fileSize === edited5m.bytes.length, `fileSize ${answer.fileSize}`);
		const windows = answer.windows.map((w) => w.dirtyByteRange);
		for (const [a, b] of windows) assert(boundaries.has(a) && boundaries.has(b), `window [${a}, ${b}) is not on chunk boundaries`);
		for (const [a, b] of dirty) {
			assert(windows.some(([s, e]) => s <= a && b <= e), `no window covers the dirty range [${a}, ${b})`);
		}
		assert(answer.hashRanges.length === windows.length + 1, `${answer.hashRanges.length} hashRanges for ${windows.length} windows`);
		const inside = (lo, hi) => chunks.filter((c, k) => ends[k] - c.length >= lo && ends[k] <= hi);
		for (let i = 0; i <= windows.length; i++) {
			const gap = inside(i === 0 ? 0 : windows[i - 1][1], i === windows.length ? at : windows[i][0]);
			const expected = gap.length ? MerkleHashSubtree.fromChunks(i === 0, gap, i === windows.length).toJSON() : null;
			deepStrictEqual(answer.hashRanges[i], expected, `gap ${i} of ${windows.length + 1}`);
		}
		// The file's terms, from its reconstruction: each term's chunks are the file's chunks over its bytes.
		const rec = await fetch(`${token.json.casUrl}/v2/reconstructions/${file.xetHash}`, { headers: auth });
		assert(rec.status === 200, `reconstruction: ${rec.status}`);
		const expectedVerification = [];
		let termStart = 0;
		for (const term of (await rec.json()).terms) {
			const termEnd = termStart + term.unpacked_length;
			if (!windows.some(([s, e]) => s < termEnd && termStart < e)) {
				expectedVerification.push(hashToHex(verificationHash(inside(termStart, termEnd).map((c) => c.hash))));
			}
			termStart = termEnd;
		}
		deepStrictEqual(answer.gapVerification, expectedVerification, "gapVerification");
		return `${windows.length} windows (${windows.map(([a, b]) => fmtBytes(b - a)).join(", ")}), ${answer.hashRanges.filter(Boolean).length} gap trees, ${answer.gapVerification.length} untouched terms`;
	});
}

/** A file larger than one xorb: uploaded as several xorbs, read back across the boundary. */
async function largeFileLeg() {
	const ok = await check(`bucket commit of ${large.path} (${fmtBytes(large.bytes.length)}, more than one xorb)`, async () => {
		const sent = await commitAndRecord(bucket, addOps([large]), "interop: large file");
		assert(sent.xorbs.length >= 2, `${sent.xorbs.length} xorb POSTs for ${fmtBytes(large.bytes.length)} of random data`);
		const e = emulator.files.get("bucket/interop/files")?.get(large.path);
		assert(e?.size === large.bytes.length, `registered size ${e?.size}, expected ${large.bytes.length}`);
		return `${sent.xorbs.length} xorbs (${sent.xorbs.map((x) => fmtBytes(x.reqBytes)).join(" + ")}), ${sent.shards.length} shard`;
	});
	if (!ok) return skip("large-file download legs", "the commit failed");
	await downloadLeg(`large, v2 parallel (hub ${versions.hub})`, hub, bucket, [large], { quick: true, api: "/v2/reconstructions" });
	await downloadLeg(`large, v2 sequential (hub ${versions.hub})`, hub, bucket, [large], {
		options: { parallelDownloads: false },
		quick: true,
		api: "/v2/reconstructions",
	});
	await downloadLeg(`large, v1 (hub ${versions.hubV1})`, hubV1, bucket, [large], { quick: true, api: "/v1/reconstructions" });
}

/** Every base file read at once, by both packages, parallel and sequential readers mixed. */
async function concurrentLeg() {
	await check(`concurrent: ${files.length} files × 3 readers at once, byte-compared`, async () => {
		const readers = [
			[hub, {}],
			[hub, { parallelDownloads: false }],
			[hubV1, {}],
		];
		const jobs = readers.flatMap(([pkg, options]) =>
			files.map(async (f) => {
				const blob = await pkg.downloadFile({ ...common, repo: bucket, path: f.path, ...options });
				assertSameBytes(new Uint8Array(await blob.arrayBuffer()), f.bytes, `${f.path}`);
				return f.bytes.length;
			}),
		);
		const sizes = await Promise.all(jobs);
		return `${jobs.length} reads, ${fmtBytes(sizes.reduce((a, b) => a + b, 0))}`;
	});
}

async function modelUploadLeg() {
	return check(`model-repo commit (LFS batch → xet transfer): ${modelFiles.map((f) => f.path).join(", ")}`, async () => {
		const sent = await commitAndRecord(model, addOps(modelFiles), "interop: model files");
		const puts = requestLog.entries.filter((e) => e.method === "PUT");
		assert(puts.length === 0, `the client fell back to a plain LFS PUT: ${puts.map((e) => e.url.href).join(", ")}`);
		for (const f of modelFiles) {
			assert(emulator.files.get("model/interop/model")?.get(f.path), `the commit did not list ${f.path}`);
		}
		return `${sent.xorbs.length} xorbs (${fmtBytes(sent.xorbBytes)}), ${sent.shards.length} shards`;
	});
}

/**
 * A commit to, and a read from, a branch whose name has slashes: the token routes get the revision percent-encoded
 * into one path component (`refs%2Fpr%2F1`), as both clients send it.
 */
async function prBranchLeg() {
	const f = prBranchFile;
	const branch = "refs/pr/1";
	const ok = await check(`model-repo commit to branch ${branch}: ${f.path} ${fmtBytes(f.bytes.length)}`, async () => {
		const mark = tokens.answered.length;
		await hub.commit({ ...common, repo: model, branch, title: "interop: pr branch", operations: addOps([f]) });
		const asked = tokens.answered.slice(mark).filter((t) => t.access === "write" && t.rev === branch);
		assert(asked.length > 0, `the commit never asked ${issuer ? "the emulated Hub" : "openxet"} for a write token on the branch`);
		assert(asked.every((t) => t.status === 200), `token answers: ${asked.map((t) => `${t.path} → ${t.status}`).join(", ")}`);
		return `${asked.length} write tokens from ${asked[0].path}`;
	});
	if (!ok) return skip(`read from branch ${branch}`, "the branch commit failed");
	await check(`read from branch ${branch}: ${f.path} byte-compared`, async () => {
		const blob = await hub.downloadFile({ ...common, repo: model, path: f.path, revision: branch });
		assert(blob, `downloadFile returned null for ${f.path}`);
		assertSameBytes(new Uint8Array(await blob.arrayBuffer()), f.bytes, "full read");
		return fmtBytes(f.bytes.length);
	});
}

// ---------------------------------------------------------------- download

/** The reads done on one file: [label, (blob) → Uint8Array, expected bytes]. */
function readsFor(bytes, { quick = false, editAt, boundaryNear } = {}) {
	const n = bytes.length;
	const buf = async (blob) => new Uint8Array(await blob.arrayBuffer());
	const reads = [["full read", (b) => buf(b), bytes]];
	if (n >= 2) {
		const mid = Math.floor(n / 2);
		const half = Math.min(150_000, Math.floor(n / 3));
		reads.push([`slice middle [${mid - half}, ${mid + half + 1})`, (b) => buf(b.slice(mid - half, mid + half + 1)), bytes.subarray(mid - half, mid + half + 1)]);
		const a = Math.floor(n / 7), b = n - Math.floor(n / 5);
		const c = Math.floor((b - a) / 3), d = Math.floor((b - a) / 2) + 1;
		reads.push([`nested slice [${a}, ${b}) then [${c}, ${d})`, (x) => buf(x.slice(a, b).slice(c, d)), bytes.subarray(a + c, a + d)]);
	}
	if (!quick && n >= 2) {
		const k = Math.min(1000, n - 1);
		reads.push([`slice start [0, ${k})`, (b) => buf(b.slice(0, k)), bytes.subarray(0, k)]);
		reads.push([`slice end [${n - k}, ${n})`, (b) => buf(b.slice(n - k, n)), bytes.subarray(n - k)]);
		if (n > 10_000) {
			const a = 1234, b = n - 4321;
			const c = Math.floor((b - a) / 4), d = Math.floor((b - a) / 2);
			const e = 777, f = Math.floor((d - c) / 2);
			reads.push([`slice of a slice of a slice`, (x) => buf(x.slice(a, b).slice(c, d).slice(e, f)), bytes.subarray(a + c + e, a + c + f)]);
		}
	}
	if (boundaryNear !== undefined) {
		const s = boundaryNear - 400_000, e = boundaryNear + 100_000;
		reads.push([`slice across the xorb boundary [${s}, ${e})`, (b) => buf(b.slice(s, e)), bytes.subarray(s, e)]);
	}
	if (editAt !== undefined) {
		const s = editAt - 70_000, e = editAt + 170_000;
		reads.push([`slice across the edit [${s}, ${e})`, (b) => buf(b.slice(s, e)), bytes.subarray(s, e)]);
	}
	reads.push([
		"stream()",
		async (b) => {
			const parts = [];
			for await (const part of b.stream()) parts.push(part);
			return new Uint8Array(Buffer.concat(parts));
		},
		bytes,
	]);
	return reads;
}

/**
 * One download leg: every file through `pkg.downloadFile()` with `options`, every read compared byte for byte; then
 * what the client asked the CAS for (which reconstruction API, how the data URLs answered).
 */
async function downloadLeg(leg, pkg, repo, list, { options = {}, quick = false, api }) {
	const mark = requestLog.mark();
	for (const f of list) {
		const reads = readsFor(f.bytes, { quick, editAt: f.editAt, boundaryNear: f.boundaryNear });
		for (const [label, read, expected] of reads) {
			await check(`${leg}: ${f.path} ${label}`, async () => {
				const blob = await pkg.downloadFile({ ...common, repo, path: f.path, ...options });
				assert(blob, `downloadFile returned null for ${f.path}`);
				assert(blob.size === f.bytes.length, `blob.size ${blob.size}, expected ${f.bytes.length}`);
				const got = await read(blob);
				assertSameBytes(got, expected, label);
				if (f.sha256 && label === "full read") {
					assert(sha256Hex(got) === f.sha256, "sha256 differs from the vector's");
				}
				return label === "full read" ? fmtBytes(got.length) : `${fmtBytes(got.length)}`;
			});
		}
	}
	await check(`${leg}: wire — reconstructions via ${api} only, every data fetch 2xx`, async () => {
		const sent = requestLog.since(mark).filter((e) => e.url.origin === readOrigin);
		const kinds = (k) => sent.filter((e) => casKind(e, readOrigin) === k);
		const other = api === "/v2/reconstructions" ? "reconstruction-v1" : "reconstruction-v2";
		const mine = api === "/v2/reconstructions" ? "reconstruction-v2" : "reconstruction-v1";
		assert(kinds(other).length === 0, `the client also called ${kinds(other).map((e) => e.url.pathname).join(", ")}`);
		assert(kinds(mine).length > 0, `no ${api} request was made`);
		const failedRecon = kinds(mine).filter((e) => e.status !== 200);
		assert(failedRecon.length === 0, `reconstruction answers: ${failedRecon.map((e) => `${e.url.pathname} ${e.range} → ${e.status}`).join(", ")}`);
		const data = kinds("data");
		const badData = data.filter((e) => !(e.status >= 200 && e.status < 300));
		assert(badData.length === 0, `data fetches: ${badData.map((e) => `${e.url.pathname} ${e.range} → ${e.status}`).join(", ")}`);
		const multi = data.filter((e) => e.range?.includes(","));
		const multipart = multi.filter((e) => e.contentType.startsWith("multipart/byteranges"));
		assert(multipart.length === multi.length, `${multi.length - multipart.length} multi-range fetches not answered multipart/byteranges`);
		const statuses = [...new Set(data.map((e) => e.status))].join("/");
		return `${kinds(mine).length} reconstructions, ${data.length} data fetches (${statuses}), ${multi.length} of them multi-range`;
	});
}

/**
 * Signed URLs that expire between two reads of the same blob: each reader keeps the reconstruction it loaded, so its
 * second read gets 403 from the data URL, must re-query the reconstruction and then succeed (§5.8).
 */
async function expiredUrlLeg(ttlSeconds) {
	const readers = [
		[`v2 parallel (hub ${versions.hub})`, hub, {}],
		[`v2 sequential (hub ${versions.hub})`, hub, { parallelDownloads: false }],
		[`v1 (hub ${versions.hubV1})`, hubV1, {}],
	];
	const blobs = [];
	for (const [leg, pkg, options] of readers) {
		await check(`expired URLs, ${leg}: first read of ${edited5m.path} loads the reconstruction`, async () => {
			const blob = await pkg.downloadFile({ ...common, repo: bucket, path: edited5m.path, ...options });
			assertSameBytes(new Uint8Array(await blob.arrayBuffer()), edited5m.bytes, "first read");
			blobs.push([leg, blob]);
		});
	}
	const waitMs = (ttlSeconds + 2) * 1000;
	await new Promise((r) => setTimeout(r, waitMs));
	for (const [leg, blob] of blobs) {
		await check(`expired URLs, ${leg}: read again after ${waitMs / 1000} s → 403, fresh reconstruction, same bytes`, async () => {
			const mark = requestLog.mark();
			assertSameBytes(new Uint8Array(await blob.arrayBuffer()), edited5m.bytes, "second read");
			const sent = requestLog.since(mark).filter((e) => e.url.origin === readOrigin);
			const kinds = sent.map((e) => `${casKind(e, readOrigin)} ${e.status}`);
			const first403 = kinds.findIndex((k) => k === "data 403");
			assert(first403 >= 0, `no data fetch was refused; the client sent: ${kinds.join(", ")}`);
			assert(
				kinds.slice(first403).some((k) => /^reconstruction-v\d 200$/.test(k)),
				`no reconstruction re-query after the 403: ${kinds.join(", ")}`,
			);
			return kinds.join(", ");
		});
	}
}

// ---------------------------------------------------------------- external issuer

/**
 * Only with an external issuer: tokens openxet must refuse, each sent over HTTP right after the same request with a
 * good token, which must succeed, so that the refusal is the bad token's doing and not the request's. The read route
 * is a v2 reconstruction of a file the bucket commit registered; the write route is a xorb upload, whose token gate
 * runs before the body is read, so a few bytes of body do.
 */
async function issuerRefusalLegs() {
	const file = emulator.files.get("bucket/interop/files")?.get("random-100k.bin");
	if (!file) return skip("external-issuer refusal checks", "the base commit failed: no file to ask for");
	const scope = bucket;
	const reconstruction = `${readUrl}/v2/reconstructions/${file.xetHash}`;
	const good = (access, s = scope) => tokens.mint({ scope: s, access }).token;
	const send = async (url, token, init = {}) => {
		const resp = await fetch(url, { ...init, headers: { Authorization: `Bearer ${token}` } });
		const text = await resp.text();
		let json;
		try {
			json = JSON.parse(text);
		} catch {
			json = undefined;
		}
		return { status: resp.status, text, json, contentType: resp.headers.get("content-type") ?? "" };
	};
	const refused = (answer, status, error, what) => {
		assert(answer.status === status, `${what}: answered ${answer.status} ${answer.text.slice(0, 300)}, expected ${status}`);
		assert(answer.contentType.startsWith("application/json"), `${what}: Content-Type ${answer.contentType}, expected application/json`);
		assert(answer.json?.error === error, `${what}: body ${answer.text.slice(0, 300)}, expected JSON with error "${error}"`);
		return `${status} ${error}: ${answer.json.message}`;
	};
	const readOk = async (token, what) => {
		const answer = await send(reconstruction, token);
		assert(answer.status === 200, `${what}: the good token's reconstruction answered ${answer.status} ${answer.text.slice(0, 300)}`);
	};

	await check(`external issuer: GET /v2/reconstructions with a token of the right key for aud "interop-elsewhere" → 401`, async () => {
		await readOk(good("read"), "control");
		const wrongAud = tokens.mint({ scope, access: "read", audience: "interop-elsewhere" }).token;
		return refused(await send(reconstruction, wrongAud), 401, "unauthorized", "wrong aud");
	});

	await check(`external issuer: GET /v2/reconstructions with a token of a fresh key under kid "${issuer.kid}" → 401`, async () => {
		await readOk(good("read"), "control");
		const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
		const forged = tokens.mint({ scope, access: "read", key: privateKey }).token;
		return refused(await send(reconstruction, forged), 401, "unauthorized", "other key");
	});

	// Scopes are isolated by hiding (ReconstructionRoutes): another repository's file is a 404, as an unknown one is,
	// so a token learns nothing about what other scopes hold.
	await check(`external issuer: read token on POST /v1/xorbs → 403; a models/${model} token on a ${scope} file → 404`, async () => {
		const xorb = `${casUrl}/v1/xorbs/default/${"ab".repeat(32)}`;
		const body = new Uint8Array(16);
		const asRead = refused(await send(xorb, good("read"), { method: "POST", body }), 403, "forbidden", "read token, write route");
		// The same request with a write token gets past the token gate (and is then refused for its body).
		const asWrite = await send(xorb, good("write"), { method: "POST", body });
		assert(asWrite.status !== 401 && asWrite.status !== 403, `write token, write route: ${asWrite.status} ${asWrite.text.slice(0, 300)}`);
		await readOk(good("read"), "control");
		const otherScope = refused(await send(reconstruction, good("read", `models/${model}`)), 404, "not_found", "other repository");
		return `${asRead}; a write token gets ${asWrite.status} ${asWrite.json?.error ?? ""}; ${otherScope}`;
	});
}

// ---------------------------------------------------------------- run

let crashed;
try {
	if (await uploadLegs()) {
		await downloadLeg(`v2 parallel (hub ${versions.hub})`, hub, bucket, files, { api: "/v2/reconstructions" });
		await downloadLeg(`v2 sequential (hub ${versions.hub}, parallelDownloads: false)`, hub, bucket, files, {
			options: { parallelDownloads: false },
			quick: true,
			api: "/v2/reconstructions",
		});
		await downloadLeg(`v1 (hub ${versions.hubV1})`, hubV1, bucket, files, { api: "/v1/reconstructions" });
		await concurrentLeg();
	} else {
		skip("bucket download legs", "the base commit failed");
	}

	if (await editLeg()) {
		const editedList = [edited5m];
		await downloadLeg(`edited, v2 parallel (hub ${versions.hub})`, hub, bucket, editedList, { api: "/v2/reconstructions" });
		await downloadLeg(`edited, v2 sequential (hub ${versions.hub})`, hub, bucket, editedList, {
			options: { parallelDownloads: false },
			api: "/v2/reconstructions",
		});
		await downloadLeg(`edited, v1 (hub ${versions.hubV1})`, hubV1, bucket, editedList, { api: "/v1/reconstructions" });
		await editOperationLeg();
		await chunkHashesOracleLeg();
		const ttl = Number(process.env.OPENXET_URL_TTL_SECONDS);
		if (ttl > 0) await expiredUrlLeg(ttl);
		else skip("expired-URL leg", "OPENXET_URL_TTL_SECONDS not set (the server's URLs live too long to wait for)");
	} else {
		skip("edited-file download legs", "the edit commit failed");
	}

	await largeFileLeg();

	const modelCommitted = await modelUploadLeg();
	if (modelCommitted) {
		await downloadLeg(`model repo, v2 (hub ${versions.hub})`, hub, model, modelFiles, { quick: true, api: "/v2/reconstructions" });
		await downloadLeg(`model repo, v1 (hub ${versions.hubV1})`, hubV1, model, modelFiles, { quick: true, api: "/v1/reconstructions" });
		await prBranchLeg();
	} else {
		skip("model-repo download legs", "the model commit failed");
	}

	if (issuer) await issuerRefusalLegs();

	// No emulated Hub from here on: openxet is the client's Hub too.
	if (issuer) {
		skip("openxet-as-the-Hub legs", "with an external issuer there is no openxet user token to call its Hub routes with");
	} else {
		await openxetHubLegs(
			{ check, skip, assert, assertSameBytes, readsFor, fmtBytes, hub, requestLog },
			{
				writeUrl: casUrl,
				readUrl,
				userToken: required("OPENXET_USER_TOKEN"),
				modelRepo: modelCommitted ? { name: model, file: modelFiles[0] } : undefined,
			},
		);
	}

	await check("the emulated Hub saw only the routes it knows", async () => {
		assert(emulator.unexpected.length === 0, `unexpected Hub requests: ${emulator.unexpected.join(", ")}`);
		const routes = new Map();
		for (const r of emulator.requests) {
			const key = r.path.replace(/\/(resolve|preupload|commit)\/.*/, "/$1/…").replace(/^\/api\/(\w+)\/[^/]+\/[^/]+\//, "/api/$1/…/");
			routes.set(key, (routes.get(key) ?? 0) + 1);
		}
		const tokenAnswers = emulator.requests.filter((r) => /xet-(read|write)-token/.test(r.path));
		const badTokens = tokenAnswers.filter((r) => r.status !== 200);
		assert(badTokens.length === 0, `token requests failed: ${badTokens.map((r) => `${r.path} → ${r.status}`).join(", ")}`);
		if (issuer) return `${emulator.requests.length} Hub requests; ${tokens.calls} CAS tokens minted by the external issuer`;
		const disagreeing = tokens.answered.filter((t) => t.status === 200 && !t.headersMatchBody);
		assert(disagreeing.length === 0, `X-Xet-* headers missing or unlike the body: ${disagreeing.map((t) => t.path).join(", ")}`);
		return `${emulator.requests.length} Hub requests; ${tokens.calls} CAS token requests to openxet's token routes, all 200 with X-Xet-* headers equal to the body`;
	});
	if (issuer) skip("X-Xet-* headers of openxet's token routes equal their body", "the external issuer's tokens never pass through those routes");
} catch (err) {
	crashed = err;
	results.failed++;
	console.log(`FAIL interop run aborted: ${describe(err)}`);
} finally {
	clearTimeout(watchdog);
	await emulator.stop();
}

if (results.failed > 0) {
	console.log(`---- last lines of the server log (${serverLog ?? "not given"}) ----\n${tailOfServerLog()}`);
}
console.log(`interop: ${results.passed} passed, ${results.failed} failed, ${results.skipped} skipped`);
process.exit(results.failed > 0 || crashed ? 1 : 0);
