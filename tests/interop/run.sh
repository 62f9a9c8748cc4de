#!/usr/bin/env bash
# Interop test: starts a real `openxet serve` on a free loopback port with a throwaway data dir, runs the unmodified
# @huggingface/hub client against it (interop.mjs), stops the server and exits with the test's status.
# Works from a fresh clone (installs node/npm through apt when missing, the npm packages from the lockfile).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/scripts/env.sh"
select_jdk
ensure_tools node:nodejs npm:npm curl:curl

started=$SECONDS
say() { echo "interop: $*"; }

# npm packages exactly as locked (the .npmrc next to package.json keeps registry URLs out of the lockfile)
(cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
say "node $(node --version), npm packages installed from package-lock.json ($((SECONDS - started)) s)"

# Build up front (native library + server jar, only when missing or stale) so the start-up wait below is start-up only.
"$root/openxet" version >/dev/null

tmp=$(mktemp -d "${TMPDIR:-/tmp}/openxet-interop.XXXXXX")
server_pid=""
cleanup() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -KILL "$server_pid" 2>/dev/null || true
    fi
    [ -n "${INTEROP_KEEP_LOG:-}" ] && cp "$log" "$INTEROP_KEEP_LOG"; rm -rf "$tmp"
}
trap cleanup EXIT

port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
url="http://127.0.0.1:$port"
data="$tmp/data"
log="$tmp/server.log"
mkdir -p "$data"

# The operator's user for the Hub-style token routes: the emulated Hub gets every CAS token through them.
user_token=$("$root/openxet" user add --data "$data" --name interop --repos '*' --write 2>/dev/null | tail -n 1)
[ -n "$user_token" ] || { say "openxet user add printed no token"; exit 1; }

# Signed fetch URLs live 10 s (default 1 h) so the expired-URL leg can wait them out; every other read takes far less.
url_ttl=10
OPENXET_URLS_TTL="PT${url_ttl}S" OPENXET_JAVA_OPTS="${OPENXET_JAVA_OPTS:-} -XX:ErrorFile=$tmp/hs_err_%p.log" \
    "$root/openxet" serve --host 127.0.0.1 --port "$port" --data "$data" --public-url "$url" >"$log" 2>&1 &
server_pid=$!

for _ in $(seq 1 300); do
    if curl -fsS "$url/health" >/dev/null 2>&1; then break; fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
        say "the server exited during start-up:"; cat "$log"; exit 1
    fi
    sleep 0.2
done
curl -fsS "$url/health" >/dev/null || { say "no answer on $url/health after 60 s:"; tail -n 50 "$log"; exit 1; }
say "openxet up at $url ($((SECONDS - started)) s since start)"

status=0
OPENXET_URL="$url" OPENXET_LOG="$log" OPENXET_USER_TOKEN="$user_token" OPENXET_URL_TTL_SECONDS="$url_ttl" \
    node "$here/interop.mjs" || status=$?

# The server must have survived the whole run.
if ! kill -0 "$server_pid" 2>/dev/null; then
    server_status=0; wait "$server_pid" || server_status=$?
    say "FAIL: the server was no longer running when the test finished (exit status $server_status); its log ends:"
    tail -n 40 "$log"
    for f in "$tmp"/hs_err_*.log; do [ -f "$f" ] && { say "JVM crash report $f:"; head -n 40 "$f"; }; done
    server_pid=""
    say "done in $((SECONDS - started)) s"
    exit 1
fi

# SIGTERM, then make sure it really exited (it has a 30 s grace period for in-flight requests).
kill -TERM "$server_pid"
for _ in $(seq 1 150); do
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.2
done
if kill -0 "$server_pid" 2>/dev/null; then
    say "FAIL: the server did not exit within 30 s of SIGTERM"
    status=1
else
    wait "$server_pid" 2>/dev/null || true
    say "server stopped on SIGTERM"
fi
server_pid=""
say "done in $((SECONDS - started)) s"
exit "$status"
