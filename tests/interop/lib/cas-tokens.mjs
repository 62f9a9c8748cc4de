// Where the emulated Hub gets CAS tokens from.

/**
 * openxet's own Hub-style token routes, `GET {casUrl}/api/{type}s/{repo}/xet-{read|write}-token/{rev}`, called with
 * the operator's user token (`openxet user add`). Each answer carries the CAS connection twice: as the JSON body
 * ({casUrl, accessToken, exp}: what hf_xet and @huggingface/hub read) and as the `X-Xet-*` headers (what
 * huggingface_hub up to 1.x reads, `parse_xet_connection_info_from_headers` in `utils/_xet.py`); `get` returns both
 * and records whether they agree. The emulated Hub holds that user token itself and gives the client a Hub token of
 * its own ("hf_..."), as the real Hub would. With `readUrl` (a second node sharing the first one's index and bucket),
 * read tokens come from that node, so every download goes there while uploads go to `casUrl`.
 */
export class RouteTokens {
	constructor(casUrl, userToken, readUrl = casUrl) {
		this.casUrl = casUrl;
		this.readUrl = readUrl;
		this.userToken = userToken;
		this.calls = 0;
		this.answered = []; // {access, rev, path, status, headersMatchBody} per call
	}

	async get({ access, repoType, repoName, rev }) {
		this.calls++;
		const path = `/api/${repoType}s/${repoName}/xet-${access}-token/${encodeURIComponent(rev)}`;
		const node = access === "read" ? this.readUrl : this.casUrl;
		const resp = await fetch(`${node}${path}`, { headers: { Authorization: `Bearer ${this.userToken}` } });
		const text = await resp.text();
		let json;
		try {
			json = JSON.parse(text);
		} catch {
			json = undefined;
		}
		const fromHeaders = connectionFromHeaders(resp.headers);
		const headersMatchBody =
			fromHeaders !== undefined &&
			json !== undefined &&
			fromHeaders.casUrl === json.casUrl &&
			fromHeaders.accessToken === json.accessToken &&
			fromHeaders.exp === json.exp;
		this.answered.push({ access, rev, path, status: resp.status, headersMatchBody });
		return { status: resp.status, json, text, fromHeaders };
	}
}

/**
 * The connection as huggingface_hub reads it from the headers (`parse_xet_connection_info_from_headers`): all three
 * present and the expiration an integer, else undefined (where it raises "Xet headers have not been correctly set").
 */
function connectionFromHeaders(headers) {
	const casUrl = headers.get("X-Xet-Cas-Url");
	const accessToken = headers.get("X-Xet-Access-Token");
	const expiration = headers.get("X-Xet-Token-Expiration");
	if (casUrl === null || accessToken === null || expiration === null || !/^[0-9]+$/.test(expiration)) {
		return undefined;
	}
	return { casUrl, accessToken, exp: Number(expiration) };
}
