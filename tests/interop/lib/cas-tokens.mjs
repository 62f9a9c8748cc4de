// Where the emulated Hub gets CAS tokens from.

/**
 * openxet's own Hub-style token routes, `GET {casUrl}/api/{type}s/{repo}/xet-{read|write}-token/{rev}`, called with
 * the operator's user token (`openxet user add`); the answer ({casUrl, accessToken, exp}) is passed back unchanged.
 * The emulated Hub holds that user token itself and gives the client a Hub token of its own ("hf_..."), as the real
 * Hub would.
 */
export class RouteTokens {
	constructor(casUrl, userToken) {
		this.casUrl = casUrl;
		this.userToken = userToken;
		this.calls = 0;
		this.answered = []; // {access, rev, path, status} per call
	}

	async get({ access, repoType, repoName, rev }) {
		this.calls++;
		const path = `/api/${repoType}s/${repoName}/xet-${access}-token/${encodeURIComponent(rev)}`;
		const resp = await fetch(`${this.casUrl}${path}`, { headers: { Authorization: `Bearer ${this.userToken}` } });
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
