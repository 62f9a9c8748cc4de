#!/usr/bin/env bash
# Interop test: starts a real `openxet serve` on a free loopback port with a throwaway data dir, runs the unmodified
# @huggingface/hub client against it (interop.mjs: behind an emulated Hub, then with openxet as its Hub too), stops
# the server and exits with the test's status.
#   run.sh              one node on its embedded defaults (SQLite + local bucket)
#   run.sh --two-nodes  two nodes sharing one PostgreSQL index and one S3 bucket (a throwaway PostgreSQL cluster and
#                       s3proxy, both started here): every upload goes to the first node, every download to the second
#   run.sh --external-issuer   one node on its embedded defaults that trusts an external token issuer (`auth.issuers`
#                       in a generated --config, the public key in a JWKS file made here): the emulated Hub signs every
#                       CAS token itself, no `openxet user add`; plus checks that tokens it must refuse are refused
# Works from a fresh clone (installs node/npm through apt when missing, the npm packages from the lockfile).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/scripts/env.sh"
select_jdk
ensure_tools node:nodejs npm:npm curl:curl

two_nodes=""
external_issuer=""
case "${1:-}" in
    "") ;;
    --two-nodes) two_nodes=1 ;;
    --external-issuer) external_issuer=1 ;;
    *) echo "usage: $0 [--two-nodes | --external-issuer]" >&2; exit 2 ;;
esac

started=$SECONDS
say() { echo "interop${two_nodes:+ (two nodes)}${external_issuer:+ (external issuer)}: $*"; }

# npm packages exactly as locked (the .npmrc next to package.json keeps registry URLs out of the lockfile)
(cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
say "node $(node --version), npm packages installed from package-lock.json ($((SECONDS - started)) s)"

# Build up front (native library + server jar, only when missing or stale) so the start-up wait below is start-up only.
"$root/openxet" version >/dev/null

tmp=$(mktemp -d "${TMPDIR:-/tmp}/openxet-interop.XXXXXX")
pids=()
pg_stop=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do
        if kill -0 "$pid" 2>/dev/null; then
            kill -KILL "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    [ ${#pg_stop[@]} -gt 0 ] && "${pg_stop[@]}" >/dev/null 2>&1 || true
    [ -n "${INTEROP_KEEP_LOG:-}" ] && cp "$tmp/a.log" "$INTEROP_KEEP_LOG"; rm -rf "$tmp"
}
trap cleanup EXIT

free_port() {
    node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# wait_for URL PID LOG WHAT [any]: until URL answers 2xx (with "any": any HTTP status), or fail with the end of LOG
# when PID died or 60 s passed.
wait_for() {
    local url=$1 pid=$2 log=$3 what=$4
    local fail=-f
    [ "${5:-}" = any ] && fail=""
    for _ in $(seq 1 300); do
        if curl $fail -sS -o /dev/null "$url" 2>/dev/null; then return 0; fi
        if ! kill -0 "$pid" 2>/dev/null; then
            say "$what exited during start-up:"; tail -n 40 "$log"; exit 1
        fi
        sleep 0.2
    done
    curl $fail -sS -o /dev/null "$url" || { say "no answer from $what at $url after 60 s:"; tail -n 50 "$log"; exit 1; }
}

if [ -n "$two_nodes" ]; then
    ensure_postgresql
    # The shared index: a throwaway PostgreSQL cluster on loopback (as root, it runs as the postgres system user,
    # because initdb refuses root).
    pg_bin=$(compgen -G "/usr/lib/postgresql/*/bin/initdb" | sort -V | tail -n 1 | xargs -r dirname)
    [ -n "$pg_bin" ] || pg_bin=$(pg_config --bindir)
    pg_port=$(free_port)
    pg_as=()
    mkdir -p "$tmp/pg"
    if [ "$(id -u)" -eq 0 ]; then
        chmod 755 "$tmp"
        chown postgres "$tmp/pg"
        # From /: the postgres user cannot enter the caller's directory (a mktemp clone is 0700), which PostgreSQL's
        # tools said on every run ("could not change directory ... Permission denied").
        pg_as=(runuser -u postgres -- env --chdir=/)
    fi
    "${pg_as[@]}" "$pg_bin/initdb" -D "$tmp/pg/data" -A trust -U postgres >"$tmp/pg-initdb.log" 2>&1 \
        || { say "initdb failed:"; cat "$tmp/pg-initdb.log"; exit 1; }
    "${pg_as[@]}" "$pg_bin/pg_ctl" -D "$tmp/pg/data" -l "$tmp/pg/log" -w -o \
        "-p $pg_port -k $tmp/pg -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null \
        || { say "PostgreSQL did not start:"; cat "$tmp/pg/log"; exit 1; }
    pg_stop=("${pg_as[@]}" "$pg_bin/pg_ctl" -D "$tmp/pg/data" -m immediate -w stop)
    export OPENXET_INDEX_URL="jdbc:postgresql://127.0.0.1:$pg_port/postgres?user=postgres"

    # The shared bucket: s3proxy over a temp directory (the jar Maven copies for the storage tests).
    s3_jar="$root/server/target/s3proxy/s3proxy.jar"
    [ -f "$s3_jar" ] || (cd "$root" && mvn -q -B -ntp -pl server process-test-resources >&2)
    s3_port=$(free_port)
    mkdir -p "$tmp/s3/interop"
    cat >"$tmp/s3.conf" <<CONF
s3proxy.endpoint=http://127.0.0.1:$s3_port
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=interop-access-key
s3proxy.credential=interop-secret-key
jclouds.provider=filesystem-nio2
jclouds.identity=interop-access-key
jclouds.credential=interop-secret-key
jclouds.filesystem.basedir=$tmp/s3
CONF
    "$JAVA_HOME/bin/java" -Xmx512m -XX:+UseSerialGC -jar "$s3_jar" --properties "$tmp/s3.conf" >"$tmp/s3proxy.log" 2>&1 &
    pids+=($!)
    # Any HTTP answer (403 without credentials) means it listens.
    wait_for "http://127.0.0.1:$s3_port/" "${pids[-1]}" "$tmp/s3proxy.log" s3proxy any
    export OPENXET_BUCKET_URL="s3://interop/cas" OPENXET_S3_ENDPOINT="http://127.0.0.1:$s3_port"
    export AWS_ACCESS_KEY_ID=interop-access-key AWS_SECRET_ACCESS_KEY=interop-secret-key
    say "PostgreSQL on :$pg_port, s3proxy on :$s3_port ($((SECONDS - started)) s since start)"
fi

nodes=(a)
[ -n "$two_nodes" ] && nodes=(a b)
declare -A url log pid
for n in "${nodes[@]}"; do
    mkdir -p "$tmp/$n"
    url[$n]="http://127.0.0.1:$(free_port)"
    log[$n]="$tmp/$n.log"
done

# How the server checks CAS tokens (its --config) and how interop.mjs gets them (its environment).
config=()
client_env=()
if [ -n "$external_issuer" ]; then
    # The external issuer: a fresh EC P-256 key pair, its public half as the JWKS the server reads, its private half
    # for the emulated Hub, which signs the CAS tokens with it. No user is added: nothing may call the token routes.
    issuer="https://idp.interop.test" audience="openxet-interop" kid="interop-$(date +%s)"
    mkdir -p "$tmp/issuer"
    node -e '
        const { generateKeyPairSync } = require("node:crypto");
        const { writeFileSync } = require("node:fs");
        const [dir, kid] = process.argv.slice(1);
        const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
        const jwk = { ...publicKey.export({ format: "jwk" }), kid, use: "sig", alg: "ES256" };
        writeFileSync(`${dir}/jwks.json`, JSON.stringify({ keys: [jwk] }, null, 2) + "\n");
        writeFileSync(`${dir}/key.pem`, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
    ' "$tmp/issuer" "$kid"
    cat >"$tmp/issuer/openxet.yaml" <<YAML
openxet:
  auth:
    issuers:
      - issuer: "$issuer"
        audience: "$audience"
        jwks: "file:$tmp/issuer/jwks.json"
        algorithms: [ES256]
        scope-claim: repo
        access-claim: access
YAML
    config=(--config "$tmp/issuer/openxet.yaml")
    client_env=(OPENXET_ISSUER="$issuer" OPENXET_ISSUER_KEY="$tmp/issuer/key.pem" OPENXET_ISSUER_KID="$kid"
        OPENXET_ISSUER_AUDIENCE="$audience")
    say "external issuer $issuer, kid $kid, JWKS $tmp/issuer/jwks.json"
else
    # The operator's user for the Hub-style token routes: the emulated Hub gets every CAS token through them.
    user_token=$("$root/openxet" user add --data "$tmp/a" --name interop --repos '*' --write 2>/dev/null | tail -n 1)
    [ -n "$user_token" ] || { say "openxet user add printed no token"; exit 1; }
    client_env=(OPENXET_USER_TOKEN="$user_token")
fi

# Signed fetch URLs live 10 s (default 1 h) so the expired-URL leg can wait them out; every other read takes far less.
url_ttl=10
for n in "${nodes[@]}"; do
    if [ "$n" = b ]; then
        # What an operator copies to a second node: the first node's keys (the shared index checks them). The user
        # token is not copied: `user add` above, with OPENXET_INDEX_URL set, stored the user in the shared index.
        cp -p "$tmp/a/secrets.properties" "$tmp/b/"
    fi
    OPENXET_URLS_TTL="PT${url_ttl}S" OPENXET_JAVA_OPTS="${OPENXET_JAVA_OPTS:-} -XX:ErrorFile=$tmp/hs_err_%p.log" \
        "$root/openxet" serve "${config[@]}" --host 127.0.0.1 --port "${url[$n]##*:}" --data "$tmp/$n" \
        --public-url "${url[$n]}" >"${log[$n]}" 2>&1 &
    pid[$n]=$!
    pids+=("${pid[$n]}")
    wait_for "${url[$n]}/health" "${pid[$n]}" "${log[$n]}" "node $n"
done
say "openxet up at ${url[a]}${two_nodes:+ (uploads) and ${url[b]} (downloads)} ($((SECONDS - started)) s since start)"

status=0
env OPENXET_URL="${url[a]}" OPENXET_READ_URL="${url[${nodes[-1]}]}" OPENXET_LOG="${log[a]}" "${client_env[@]}" \
    OPENXET_URL_TTL_SECONDS="$url_ttl" node "$here/interop.mjs" || status=$?

# metric NODE SAMPLE: one sample of NODE's GET /metrics as a whole number (0 when the sample is absent).
metric() {
    curl -fsS "${url[$1]}/metrics" | awk -v k="$2" '$1 == k { v = $2 } END { printf "%d\n", v + 0 }'
}
# What the client did, as the servers counted it: uploads stored on node a, xorb bytes sent by the reading node (in
# two-node mode, by node b alone: every upload went to a, every download to b).
reader=${nodes[-1]}
stored=$(metric a 'openxet_xorbs_total{result="stored"}')
fetched=$(metric "$reader" openxet_fetch_bytes_total)
answers=$(metric "$reader" 'openxet_requests_seconds_count{method="GET",route="/v2/reconstructions/{file_id}",status="200"}')
say "metrics: node a stored $stored xorbs; node $reader answered $answers reconstructions and sent $fetched xorb bytes"
if [ "$stored" -eq 0 ] || [ "$fetched" -eq 0 ] || [ "$answers" -eq 0 ]; then
    say "FAIL: /metrics does not show the client's uploads and downloads"
    status=1
fi
if [ -n "$two_nodes" ]; then
    b_stored=$(metric b 'openxet_xorbs_total{result="stored"}')
    a_fetched=$(metric a openxet_fetch_bytes_total)
    if [ "$b_stored" -ne 0 ] || [ "$a_fetched" -ne 0 ]; then
        say "FAIL: node b stored $b_stored xorbs and node a sent $a_fetched xorb bytes; uploads belong to a, downloads to b"
        status=1
    fi
fi

for n in "${nodes[@]}"; do
    # The server must have survived the whole run.
    if ! kill -0 "${pid[$n]}" 2>/dev/null; then
        server_status=0; wait "${pid[$n]}" || server_status=$?
        say "FAIL: node $n was no longer running when the test finished (exit status $server_status); its log ends:"
        tail -n 40 "${log[$n]}"
        for f in "$tmp"/hs_err_*.log; do [ -f "$f" ] && { say "JVM crash report $f:"; head -n 40 "$f"; }; done
        status=1
        continue
    fi
    # SIGTERM, then make sure it really exited (it has a 30 s grace period for in-flight requests).
    kill -TERM "${pid[$n]}"
    for _ in $(seq 1 150); do
        kill -0 "${pid[$n]}" 2>/dev/null || break
        sleep 0.2
    done
    if kill -0 "${pid[$n]}" 2>/dev/null; then
        say "FAIL: node $n did not exit within 30 s of SIGTERM"
        status=1
    else
        wait "${pid[$n]}" 2>/dev/null || true
        say "node $n stopped on SIGTERM"
    fi
done
say "done in $((SECONDS - started)) s"
exit "$status"
