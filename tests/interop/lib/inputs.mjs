// Test inputs, generated on the fly: splitmix64 bytes exactly as in testdata/vectors/README.md ("Input generator"),
// so the model-flow leg can reuse the checked-in vectors (sha256, Xet file hash) as an independent oracle.
import { createHash, createCipheriv } from "node:crypto";
import { readFileSync } from "node:fs";

const GAMMA = 0x9e3779b97f4a7c15n;
const M1 = 0xbf58476d1ce4e5b9n;
const M2 = 0x94d049bb133111ebn;
const U64 = (x) => BigInt.asUintN(64, x);

/** `size` bytes of splitmix64(seed), each output u64 written little-endian, cut at `size`. */
export function splitmix64(seed, size) {
	const padded = new Uint8Array(Math.ceil(size / 8) * 8);
	const view = new DataView(padded.buffer);
	let state = U64(BigInt(seed));
	for (let off = 0; off < padded.length; off += 8) {
		state = U64(state + GAMMA);
		let z = state;
		z = U64((z ^ (z >> 30n)) * M1);
		z = U64((z ^ (z >> 27n)) * M2);
		z ^= z >> 31n;
		view.setBigUint64(off, z, true);
	}
	return padded.subarray(0, size);
}

/** `size` pseudo-random bytes from AES-128-CTR under a key made of `seed`: as reproducible, far faster for large inputs. */
export function aesCtr(seed, size) {
	const cipher = createCipheriv("aes-128-ctr", Buffer.alloc(16, seed), Buffer.alloc(16, 0));
	return new Uint8Array(cipher.update(Buffer.alloc(size)));
}

/** `block` repeated until `size` bytes, the last copy cut short. */
export function repeat(block, size) {
	const out = new Uint8Array(size);
	for (let off = 0; off < size; off += block.length) {
		out.set(block.subarray(0, Math.min(block.length, size - off)), off);
	}
	return out;
}

/** A copy of `base` with `patch` written at `at`. */
export function patch(base, at, patchBytes) {
	const out = base.slice();
	out.set(patchBytes, at);
	return out;
}

export function sha256Hex(bytes) {
	return createHash("sha256").update(bytes).digest("hex");
}

/** An input recorded in testdata/vectors/inputs/NAME.json (splitmix64 recipes only): bytes plus the recorded facts. */
export function vectorInput(vectorsDir, name) {
	const meta = JSON.parse(readFileSync(`${vectorsDir}/inputs/${name}.json`, "utf8"));
	if (meta.recipe.kind !== "splitmix64") {
		throw new Error(`vector input ${name}: recipe ${meta.recipe.kind} is not generated here`);
	}
	return {
		name,
		bytes: splitmix64(meta.recipe.seed, meta.recipe.size),
		sha256: meta.sha256,
		xetHash: meta.hub_client.file_hash,
	};
}
