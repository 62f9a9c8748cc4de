// Where the emulated Hub gets CAS tokens from.

/**
 * openxet's own Hub-style token routes, `GET {casUrl}/api/{type}s/{repo}/xet-{read|write}-token/{rev}`, called with
 * the operator's user token (`openxet user add`); the answer ({casUrl, accessToken, exp}) is passed back unchanged.
 * The emulated Hub holds that user token itself and gives the client a Hub token of its own ("hf_..."), as the real
 * Hub would. With `readUrl` (a second node sharing the first one's index and bucket), read tokens come from that
 * node, so every download goes there while uploads go to `casUrl`.
 */
export class RouteTokens {
	constructor(casUrl, userToken, readUrl = casUrl) {
		this.casUrl = casUrl;
		this.readUrl = readUrl;
		this.userToken = userToken;
		this.calls = 0;
		this.answered = []; // {access, rev, path, status} per call
	}

	async get({ access, repoType, repoName, rev }) {
		this.calls++;
		const path = `/api/${repoType}s/${repoName}/xet-${access}-token/${encodeURIComponent(rev)}`;
		const node = access === "read" ? this.readUrl : this.casUrl;
		const resp = await fetch(`${node}${path}`, { headers: { Authorization: `Bearer ${this.userToken}` } });
		this.answered.push({ access, rev, path, status: resp.status });
		const text = await resp.text();
		let json;
		try {
			json = JSON.parse(text);
		} catch {
			json = undefined;
		}
		return { status: resp.status, json, text };
	}
}
