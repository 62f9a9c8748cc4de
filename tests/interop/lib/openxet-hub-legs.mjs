// The legs in which @huggingface/hub talks to openxet only: `hubUrl` is openxet, `accessToken` an openxet user token
// (`openxet user add`), and no emulated Hub is involved. The package's bucket functions, read from its sources (2.17.5:
// lib/create-repo.ts, lib/commit.ts commitIterBucket, lib/list-files.ts, lib/paths-info.ts,
// lib/file-download-info.ts, lib/download-file.ts, utils/XetBlob.ts), call openxet's bucket routes
// (docs/PROTOCOL.md §12) and its token routes; every Xet request goes to the casUrl those answer, openxet again.
// With two nodes, uploads go to the first (hubUrl = OPENXET_URL) and every read to the second (hubUrl =
// OPENXET_READ_URL), which answers from what the first stored in the shared PostgreSQL index and S3 bucket.
import { splitmix64 } from "./inputs.mjs";

const MiB = 1024 * 1024;

/**
 * @param t the harness of interop.mjs: {check, skip, assert, assertSameBytes, readsFor, fmtBytes, hub, requestLog}
 * @param env {writeUrl, readUrl, userToken, modelRepo?: {name, file: {path, bytes, xetHash}}} (modelRepo: a file
 *            of the model repo the emulated-Hub legs committed, for a copy across repositories)
 */
export async function openxetHubLegs(t, { writeUrl, readUrl, userToken, modelRepo }) {
	const { check, skip, assert, assertSameBytes, readsFor, fmtBytes, hub, requestLog } = t;
	const name = "interop/direct";
	const repo = { type: "bucket", name };
	const origins = new Set([new URL(writeUrl).origin, new URL(readUrl).origin]);
	const write = { hubUrl: writeUrl, accessToken: userToken, fetch: requestLog.fetch };
	const read = { hubUrl: readUrl, accessToken: userToken, fetch: requestLog.fetch };
	const files = [
		{ path: "empty.bin", bytes: new Uint8Array(0) },
		{ path: "one-byte.bin", bytes: splitmix64(41, 1) },
		{ path: "random-100k.bin", bytes: splitmix64(42, 100 * 1024) },
		{ path: "random-5m.bin", bytes: splitmix64(43, 5 * MiB + 17) },
		{ path: "nested/deeper/still/x.bin", bytes: splitmix64(44, 33_333) },
		{ path: "nested/a b+é.bin", bytes: splitmix64(45, 4_321) },
	];
	const byPath = new Map(files.map((f) => [f.path, f]));
	const leg = "openxet as the Hub";
	const mark = requestLog.mark();

	/** Every request since the legs began went to openxet, and none failed but the expected 404s. */
	const onlyOpenxet = (allowed404 = () => false) => {
		const sent = requestLog.since(mark);
		const elsewhere = sent.filter((e) => !origins.has(e.url.origin));
		assert(elsewhere.length === 0, `requests outside openxet: ${elsewhere.map((e) => `${e.method} ${e.url.href}`).join(", ")}`);
		// A dedup miss is a 404 by protocol (§4.8).
		const bad = sent.filter((e) => !(e.status >= 200 && e.status < 300) && !e.url.pathname.startsWith("/v1/chunks/") && !allowed404(e));
		assert(bad.length === 0, `failed requests: ${bad.map((e) => `${e.method} ${e.url.pathname} → ${e.status}`).join(", ")}`);
		return sent.length;
	};

	const created = await check(`${leg}: createRepo of bucket ${name} answers its URL`, async () => {
		const out = await hub.createRepo({ ...write, repo });
		assert(out.repoUrl === `${writeUrl}/buckets/${name}`, `repoUrl ${out.repoUrl}`);
		return out.repoUrl;
	});
	if (!created) return skip(`${leg} legs`, "the bucket could not be created");

	const committed = await check(`${leg}: commit() of ${files.map((f) => `${f.path} ${fmtBytes(f.bytes.length)}`).join(", ")}`, async () => {
		const ops = files.map((f) => ({ operation: "addOrUpdate", path: f.path, content: new Blob([f.bytes]) }));
		await hub.commit({ ...write, repo, title: "interop: openxet only", operations: ops });
		const sent = onlyOpenxet();
		const batches = requestLog.since(mark).filter((e) => e.url.pathname === `/api/buckets/${name}/batch`);
		assert(batches.length === 1 && batches[0].status === 200, `batch calls: ${batches.map((e) => e.status).join(", ")}`);
		return `${sent} requests, all to openxet; the batch call answered 200`;
	});
	if (!committed) return skip(`${leg} read legs`, "the commit failed");

	let listed;
	await check(`${leg}: listFiles recursive lists every file with its size and Xet hash, and the directories`, async () => {
		listed = [];
		for await (const e of hub.listFiles({ ...read, repo, recursive: true })) listed.push(e);
		const got = listed.filter((e) => e.type === "file");
		assert(got.length === files.length, `${got.length} files listed: ${got.map((e) => e.path).join(", ")}`);
		for (const e of got) {
			const f = byPath.get(e.path);
			assert(f, `listed ${e.path}, which was not committed`);
			assert(e.size === f.bytes.length, `${e.path}: size ${e.size}, expected ${f.bytes.length}`);
			assert(/^[0-9a-f]{64}$/.test(e.xetHash ?? ""), `${e.path}: xetHash ${e.xetHash}`);
			assert(typeof e.uploadedAt === "string", `${e.path}: uploadedAt ${e.uploadedAt}`);
		}
		const dirs = listed.filter((e) => e.type === "directory").map((e) => e.path).join(" ");
		assert(dirs === "nested nested/deeper nested/deeper/still", `directories: ${dirs}`);
		const top = [];
		for await (const e of hub.listFiles({ ...read, repo })) top.push(`${e.type[0]}:${e.path}`);
		const expected = "f:empty.bin d:nested f:one-byte.bin f:random-100k.bin f:random-5m.bin";
		assert(top.join(" ") === expected, `top level: ${top.join(" ")}`);
		const under = [];
		for await (const e of hub.listFiles({ ...read, repo, path: "nested" })) under.push(`${e.type[0]}:${e.path}`);
		assert(under.join(" ") === "f:nested/a b+é.bin d:nested/deeper", `under nested: ${under.join(" ")}`);
		return `${got.length} files, directories ${dirs}`;
	});

	await check(`${leg}: pathsInfo answers what listFiles did, and leaves a missing path out`, async () => {
		const info = await hub.pathsInfo({ ...read, repo, paths: [...files.map((f) => f.path), "missing.bin"] });
		assert(info.length === files.length, `${info.length} entries`);
		for (const i of info) {
			const l = listed?.find((e) => e.path === i.path);
			assert(l, `pathsInfo answered ${i.path}, which listFiles did not`);
			assert(i.type === "file" && i.size === l.size && i.xetHash === l.xetHash, `${i.path}: ${JSON.stringify(i)}`);
		}
		return `${info.length} files`;
	});

	for (const f of files) {
		for (const [label, readBlob, expected] of readsFor(f.bytes, { quick: true })) {
			await check(`${leg}: downloadFile ${f.path} ${label}`, async () => {
				const blob = await hub.downloadFile({ ...read, repo, path: f.path });
				assert(blob, `downloadFile returned null for ${f.path}`);
				assert(blob.size === f.bytes.length, `blob.size ${blob.size}, expected ${f.bytes.length}`);
				const got = await readBlob(blob);
				assertSameBytes(got, expected, label);
				return fmtBytes(got.length);
			});
		}
	}

	const copied = { path: "copies/random-100k.bin", bytes: byPath.get("random-100k.bin").bytes };
	const fromModel = modelRepo && { path: "copies/from-model.bin", bytes: modelRepo.file.bytes };
	const second = await check(
		`${leg}: a second commit deletes one-byte.bin and copies random-100k.bin${fromModel ? ` and ${modelRepo.file.path} of the model repo` : ""}`,
		async () => {
			const source = listed.find((e) => e.path === "random-100k.bin");
			const ops = [
				{ operation: "delete", path: "one-byte.bin" },
				{ operation: "copy", path: copied.path, sourceXetHash: source.xetHash, sourceRepo: repo },
			];
			if (fromModel) {
				ops.push({
					operation: "copy",
					path: fromModel.path,
					sourceXetHash: modelRepo.file.xetHash,
					sourceRepo: { type: "model", name: modelRepo.name },
				});
			}
			const before = requestLog.mark();
			await hub.commit({ ...write, repo, title: "interop: delete and copy", operations: ops });
			const xorbs = requestLog.since(before).filter((e) => e.url.pathname.startsWith("/v1/xorbs/"));
			assert(xorbs.length === 0, `a copy uploaded ${xorbs.length} xorbs`);
			onlyOpenxet();
			return `${ops.length} operations, no xorb uploaded`;
		},
	);
	if (!second) return skip(`${leg} reads after the second commit`, "the second commit failed");

	await check(`${leg}: after it, listFiles lists the copies and not the deleted file`, async () => {
		const paths = [];
		for await (const e of hub.listFiles({ ...read, repo, recursive: true })) if (e.type === "file") paths.push(e.path);
		assert(!paths.includes("one-byte.bin"), "one-byte.bin is still listed");
		assert(paths.includes(copied.path), `${copied.path} is not listed`);
		if (fromModel) assert(paths.includes(fromModel.path), `${fromModel.path} is not listed`);
		return paths.join(", ");
	});
	for (const f of [copied, fromModel].filter(Boolean)) {
		for (const [label, readBlob, expected] of readsFor(f.bytes, { quick: true })) {
			await check(`${leg}: downloadFile of the copy ${f.path} ${label}`, async () => {
				const blob = await hub.downloadFile({ ...read, repo, path: f.path });
				assert(blob, `downloadFile returned null for ${f.path}`);
				assertSameBytes(await readBlob(blob), expected, label);
				return fmtBytes(f.bytes.length);
			});
		}
	}
	await check(`${leg}: downloadFile of the deleted one-byte.bin is null (404 EntryNotFound)`, async () => {
		const blob = await hub.downloadFile({ ...read, repo, path: "one-byte.bin" });
		assert(blob === null, `got a blob of ${blob?.size} bytes`);
		const n = onlyOpenxet((e) => e.status === 404 && e.url.pathname.endsWith("/resolve/one-byte.bin"));
		return `${n} requests in these legs, every one to openxet`;
	});

	// lib/who-am-i.ts whoAmI: GET /api/whoami-v2 with the user token, a WhoAmIUser with its AuthInfo.
	await check(`${leg}: whoAmI names the openxet user and its token's role`, async () => {
		const me = await hub.whoAmI({ ...read });
		assert(me.type === "user" && me.name === "interop", `whoAmI: ${JSON.stringify(me)}`);
		assert(me.auth?.accessToken?.role === "write", `auth: ${JSON.stringify(me.auth)}`);
		return `${me.name}, ${me.auth.accessToken.role}`;
	});

	// lib/delete-repo.ts deleteRepo of a bucket: DELETE /api/buckets/{ns}/{name}, res.ok; then the bucket is gone on
	// every node (404 RepoNotFound), and a second delete throws.
	const doomed = { type: "bucket", name: "interop/to-delete" };
	await check(`${leg}: deleteRepo of a bucket removes it on every node`, async () => {
		await hub.createRepo({ ...write, repo: doomed });
		await hub.commit({ ...write, repo: doomed, title: "interop: doomed", operations: [
			{ operation: "addOrUpdate", path: "x.bin", content: new Blob([files[2].bytes]) }] });
		await hub.deleteRepo({ ...write, repo: doomed });
		const info = await requestLog.fetch(`${readUrl}/api/buckets/${doomed.name}`, {
			headers: { Authorization: `Bearer ${userToken}` } });
		assert(info.status === 404 && info.headers.get("X-Error-Code") === "RepoNotFound",
			`info after delete: ${info.status} ${info.headers.get("X-Error-Code")}`);
		let again;
		try {
			await hub.deleteRepo({ ...write, repo: doomed });
		} catch (e) {
			again = e;
		}
		assert(again?.statusCode === 404, `a second deleteRepo: ${again?.statusCode ?? "no error"}`);
		return "deleted; info 404 RepoNotFound on the read node; a second delete 404";
	});
}
