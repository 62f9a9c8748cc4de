// Where the emulated Hub gets CAS tokens from when openxet trusts an external token issuer (`auth.issuers`).
import { createPrivateKey, sign } from "node:crypto";
import { readFileSync } from "node:fs";

/** What a token from this issuer lives: well under the 24 h openxet allows, and the hour its own token routes give. */
const TTL_SECONDS = 3600;

/**
 * CAS tokens the emulated Hub mints itself, as a Hub with its own identity provider would: compact JWS, ES256 (ECDSA
 * P-256 over SHA-256), signed with the private key whose public half openxet reads from the JWKS its `auth.issuers`
 * entry names. openxet's own token routes are never called and no openxet user exists, so every CAS request of the
 * run is authorized by one of these tokens alone. The claims are the ones openxet's routes put in their own tokens
 * (`repo`: the scope "{type}s/{namespace}/{name}", `access`: "read" or "write") plus what an external token needs
 * (`iss`, `aud`, `sub`, `iat`, `exp`).
 *
 * The same interface as RouteTokens (cas-tokens.mjs): `get` answers what a token route would, body and `X-Xet-*`
 * headers, so the emulated Hub passes it on unchanged; read tokens carry `readUrl` as their casUrl, write tokens
 * `casUrl`. `mint` makes any token, including the wrong ones the refusal checks send.
 */
export class IssuerTokens {
	/**
	 * @param casUrl  the node uploads go to
	 * @param issuer  {keyFile (PKCS#8 PEM), kid, issuer (`iss`), audience (`aud`)}
	 * @param readUrl the node downloads go to
	 */
	constructor(casUrl, { keyFile, kid, issuer, audience }, readUrl = casUrl) {
		this.casUrl = casUrl;
		this.readUrl = readUrl;
		this.key = createPrivateKey(readFileSync(keyFile));
		this.kid = kid;
		this.issuer = issuer;
		this.audience = audience;
		this.calls = 0;
		this.answered = []; // {access, rev, path, status, headersMatchBody} per call, as RouteTokens records them
	}

	/**
	 * A compact JWS. Every field can be overridden, so a check can send a token that differs from a good one in exactly
	 * one respect (another audience, another key under the same kid).
	 */
	mint({ scope, access, audience = this.audience, key = this.key, kid = this.kid, ttlSeconds = TTL_SECONDS }) {
		const now = Math.floor(Date.now() / 1000);
		const header = { alg: "ES256", kid, typ: "JWT" };
		const claims = { iss: this.issuer, aud: audience, sub: "interop-emulated-hub", repo: scope, access, iat: now, exp: now + ttlSeconds };
		const signingInput = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
		// JWS wants the signature as r ‖ s (RFC 7518 §3.4); node's default encoding is DER, which no verifier accepts.
		const signature = sign("sha256", Buffer.from(signingInput), { key, dsaEncoding: "ieee-p1363" });
		return { token: `${signingInput}.${signature.toString("base64url")}`, exp: claims.exp };
	}

	async get({ access, repoType, repoName, rev }) {
		this.calls++;
		// The emulated Hub's route this token answers (the one RouteTokens would forward to openxet).
		const path = `/api/${repoType}s/${repoName}/xet-${access}-token/${encodeURIComponent(rev)}`;
		const { token, exp } = this.mint({ scope: `${repoType}s/${repoName}`, access });
		const json = { casUrl: access === "read" ? this.readUrl : this.casUrl, accessToken: token, exp };
		// Minted here, so the headers are the body by construction.
		this.answered.push({ access, rev, path, status: 200, headersMatchBody: true });
		return { status: 200, json, text: JSON.stringify(json), fromHeaders: { ...json } };
	}
}

function b64url(text) {
	return Buffer.from(text, "utf8").toString("base64url");
}
