#!/usr/bin/env bash
# Interop test with the real Python client: starts `openxet serve` on a free loopback port with a throwaway data dir,
# installs hf_xet and huggingface_hub (pinned below) into a virtualenv, and runs hf_xet_interop.py against the server.
# Where pip cannot get those packages (no Python package index reachable), it says so in one line and exits 0: the
# Java tests in TokenRoutesTest state the same client expectations without Python.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/scripts/env.sh"
select_jdk
ensure_tools curl:curl

# The releases read for docs/DESIGN.md ("What the clients read"): hf_xet's XetSession API, huggingface_hub's URLs.
packages=(hf_xet==1.6.0 huggingface_hub==1.33.0)
say() { echo "hf_xet interop: $*"; }
started=$SECONDS

python=$(command -v python3 || true)
if [ -z "$python" ]; then
    say "skipped: no python3 on this machine"
    exit 0
fi
venv="$root/tests/interop/.venv"
if ! "$venv/bin/python" -c 'import hf_xet, huggingface_hub' 2>/dev/null \
        || [ "$(cat "$venv/packages" 2>/dev/null)" != "${packages[*]}" ]; then
    rm -rf "$venv"
    pip_log=$(mktemp)
    # --retries 0: an unreachable index fails at once instead of backing off for minutes.
    if ! { "$python" -m venv "$venv" && "$venv/bin/pip" install --quiet --disable-pip-version-check --retries 0 \
            --timeout 10 "${packages[@]}"; } >"$pip_log" 2>&1; then
        say "skipped: pip could not install ${packages[*]} here ($(grep -m1 -E 'ERROR|No matching' "$pip_log" || tail -n 1 "$pip_log"))"
        rm -rf "$venv" "$pip_log"
        exit 0
    fi
    rm -f "$pip_log"
    echo "${packages[*]}" >"$venv/packages"
fi
say "${packages[*]} in $venv ($((SECONDS - started)) s)"

"$root/openxet" version >/dev/null
tmp=$(mktemp -d "${TMPDIR:-/tmp}/openxet-hf-xet.XXXXXX")
server_pid=""
cleanup() {
    if [ -n "$server_pid" ] && kill -KILL "$server_pid" 2>/dev/null; then wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

port=$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url="http://127.0.0.1:$port"
mkdir -p "$tmp/data"
user_token=$("$root/openxet" user add --data "$tmp/data" --name interop --repos '*' --write | tail -n 1)
[ -n "$user_token" ] || { say "openxet user add printed no token"; exit 1; }
"$root/openxet" serve --host 127.0.0.1 --port "$port" --data "$tmp/data" --public-url "$url" >"$tmp/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 300); do
    curl -fsS -o /dev/null "$url/health" 2>/dev/null && break
    kill -0 "$server_pid" 2>/dev/null || { say "the server exited during start-up:"; tail -n 40 "$tmp/server.log"; exit 1; }
    sleep 0.2
done

status=0
OPENXET_URL="$url" OPENXET_USER_TOKEN="$user_token" "$venv/bin/python" "$here/hf_xet_interop.py" || status=$?
if ! kill -0 "$server_pid" 2>/dev/null; then
    say "FAIL: the server was no longer running when the client finished"
    status=1
fi
if [ "$status" -ne 0 ]; then
    echo "---- last lines of the server log ----"
    tail -n 40 "$tmp/server.log"
fi
kill -TERM "$server_pid" && wait "$server_pid" 2>/dev/null || true
server_pid=""
say "done in $((SECONDS - started)) s"
exit "$status"
