// Writes testdata/merkle-subtree/vectors.json: MerkleHashSubtree trees made by the client library itself
// (@huggingface/xetchunk-wasm, the TypeScript port of xet-core's MerkleHashSubtree that @huggingface/hub uses to
// read `GET /v2/file-chunk-hashes` answers), for openxet's unit test of its own implementation.
//   node tests/interop/subtree-vectors.mjs      (after tests/interop/run.sh has installed the npm packages)
// Leaves: 3,000 synthetic chunks whose raw hashes are splitmix64(2026) bytes, 32 each, and whose sizes are 8192 plus
// the low 24 bits of each 4 bytes of splitmix64(11) (little-endian) modulo 122880 (the test regenerates them); then
// runs of them with every combination of the at_start / at_end flags, from empty to the whole list.
import { writeFileSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { MerkleHashSubtree, hashToHex } from "@huggingface/xetchunk-wasm";
import { splitmix64 } from "./lib/inputs.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(here, "../../testdata/merkle-subtree/vectors.json");
const n = 3000;
const hashes = splitmix64(2026, 32 * n);
const sizeBytes = splitmix64(11, 4 * n);
const chunks = [];
for (let i = 0; i < n; i++) {
	const word = sizeBytes[4 * i] | (sizeBytes[4 * i + 1] << 8) | (sizeBytes[4 * i + 2] << 16);
	chunks.push({ hash: hashes.subarray(32 * i, 32 * i + 32), length: 8192 + (word % (131072 - 8192)) });
}
const runs = [
	[0, n, true, true],
	[0, 1200, true, false],
	[700, 2600, false, false],
	[1800, n, false, true],
	[0, 1, true, true],
	[0, 2, true, true],
	[10, 13, false, false],
	[40, 47, true, false],
	[100, 100, false, false],
	[2990, n, false, true],
];
const cases = runs.map(([from, to, atStart, atEnd]) => ({
	from,
	to,
	at_start: atStart,
	at_end: atEnd,
	subtree: MerkleHashSubtree.fromChunks(atStart, chunks.slice(from, to), atEnd).toJSON(),
}));
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
	out,
	JSON.stringify(
		{
			generator: "tests/interop/subtree-vectors.mjs with @huggingface/xetchunk-wasm 0.2.0",
			first_chunk: { hash: hashToHex(chunks[0].hash), size: chunks[0].length },
			last_chunk: { hash: hashToHex(chunks[n - 1].hash), size: chunks[n - 1].length },
			cases,
		},
	) + "\n",
);
console.log(`wrote ${cases.length} cases over ${n} chunks to ${out}`);
