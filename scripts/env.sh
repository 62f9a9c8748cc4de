# Shared by ./openxet, ./run-tests, gates/run and .ci/run: find a JDK 25+ and make sure the build tools exist.
# Sourced, not executed.

openxet_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# java_major JAVA_HOME -> the feature version of that JDK's java, or 0.
java_major() {
    local v
    v=$("$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    echo "${v:-0}"
}

# Point JAVA_HOME at a JDK 25+: $JAVA_HOME if it is one, else Temurin 25 where this machine kind keeps it.
select_jdk() {
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ "$(java_major "$JAVA_HOME")" -ge 25 ] 2>/dev/null; then
        export JAVA_HOME
        return 0
    fi
    local candidate
    for candidate in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-25-jdk-arm64 /usr/lib/jvm/temurin-25-jdk; do
        if [ -x "$candidate/bin/java" ]; then
            export JAVA_HOME="$candidate"
            return 0
        fi
    done
    echo "openxet: needs a JDK 25 or newer: set JAVA_HOME to one (found ${JAVA_HOME:-none}; /usr/lib/jvm/temurin-25-jdk-amd64 does not exist)" >&2
    return 1
}

# Run a command as root: directly when we are root, else through sudo.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        echo "openxet: '$*' needs root and sudo is missing" >&2; return 1; fi
}

# Install Debian/Ubuntu packages that are missing (by the command they provide).
ensure_tools() {
    local missing=() pair cmd pkg
    for pair in "$@"; do
        cmd=${pair%%:*}; pkg=${pair#*:}
        command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "openxet: installing ${missing[*]}" >&2
    as_root apt-get update -qq >/dev/null && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# The tests start a throwaway PostgreSQL server (server/src/test/java/org/openxet/testing/PostgresServer.java) from the
# binaries Debian and Ubuntu keep off the PATH in /usr/lib/postgresql/<version>/bin: install the postgresql package
# when there are none (and no OPENXET_TEST_POSTGRES_URL names a server to use instead).
ensure_postgresql() {
    [ -n "${OPENXET_TEST_POSTGRES_URL:-}" ] && return 0
    compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null && return 0
    command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ] && return 0
    echo "openxet: installing postgresql" >&2
    as_root apt-get update -qq >/dev/null && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
}

# jansi.noreset: Maven 3.8's console library otherwise ends every line it prints, even in quiet batch mode, with an
# ANSI reset (ESC[0m), which is what the logs showed as "[0m[0m".
export MAVEN_OPTS="${MAVEN_OPTS:--XX:+IgnoreUnrecognizedVMOptions --sun-misc-unsafe-memory-access=allow -Djansi.noreset=true}"
JVM_NATIVE_ARGS=(--enable-native-access=ALL-UNNAMED "-Dopenxet.native.dir=$openxet_root/native/build")
# The server's JVM: 8 MiB G1 regions, so a large file's 2.4 MB index record, its decoded terms and the plan's arrays
# are ordinary young objects instead of humongous ones (which start concurrent cycles): 2-5 ms off the reconstruction
# gate's p99. A 128 MiB metaspace threshold, so the classes a running server still loads do not start a concurrent
# cycle (its Remark pause, 5-7 ms, then mixed collections) at the default's ~21 MB: 3-4 collector pauses per 200 large
# answers down to 0-1 (docs/BENCHMARKS-HISTORY.md). Flags in OPENXET_JAVA_OPTS come later and win (a heap under 1 GiB wants
# smaller regions).
JVM_SERVER_ARGS=(-XX:G1HeapRegionSize=8m -XX:MetaspaceSize=128m)

# sqlite_native_ensure: sqlite-jdbc's native library, taken out of its jar once (beside the jar build) and named to the
# JVM (-Dorg.sqlite.lib.path/name in JVM_NATIVE_ARGS). Left to itself, sqlite-jdbc runs `uname -o` (to tell Termux from
# Linux) and copies its 1.1 MB library into /tmp at every start, ~90 ms of a node's start; and a process killed with
# -9 leaves that copy behind, one per crash (docs/DESIGN.md, "Starting warm"). Only for the glibc Linux builds the jar
# carries under a name this can tell from `uname -m`; anywhere else sqlite-jdbc finds its library as before. The jar is
# the build's (server/target/libs) unless one is named (SqliteLibraryTest names its class path's).
sqlite_native_ensure() {
    local jar="${1:-}" arch dir tmp
    [ -n "$jar" ] || jar=$(compgen -G "$openxet_root/server/target/libs/sqlite-jdbc-*.jar" | head -n 1)
    arch=$(uname -m)
    [ -n "$jar" ] && [ "$(uname -s)" = Linux ] && ! compgen -G "/lib/ld-musl-*" >/dev/null || return 0
    case "$arch" in x86_64 | aarch64) ;; *) return 0 ;; esac
    dir="$openxet_root/server/target/native/$(basename "$jar" .jar)-$arch"
    if [ ! -f "$dir/libsqlitejdbc.so" ]; then
        tmp=$(mkdir -p "$openxet_root/server/target" && mktemp -d "$openxet_root/server/target/native-XXXXXX") || return 0
        if (cd "$tmp" && "$JAVA_HOME/bin/jar" xf "$jar" "org/sqlite/native/Linux/$arch/libsqlitejdbc.so") \
            && [ -s "$tmp/org/sqlite/native/Linux/$arch/libsqlitejdbc.so" ] && mkdir -p "$dir"; then
            mv -f "$tmp/org/sqlite/native/Linux/$arch/libsqlitejdbc.so" "$dir/libsqlitejdbc.so"
        fi
        rm -rf "$tmp"
    fi
    [ -f "$dir/libsqlitejdbc.so" ] && JVM_NATIVE_ARGS+=("-Dorg.sqlite.lib.path=$dir" "-Dorg.sqlite.lib.name=libsqlitejdbc.so")
    return 0
}

# The server's AOT cache (JEP 483/514/515: the classes a training run loaded and linked, and its method profiles), made
# like the jar: when missing or stale, by `openxet train-aot` under -XX:AOTCacheOutput. Its file name is a key of what
# it was made from, the JDK and every jar of the class path, because the JVM does not notice a rebuilt jar itself:
# 25.0.3 served the old jar's classes from a cache without a word.
# OPENXET_AOT=off neither makes nor uses one. docs/DESIGN.md, "Starting warm".
aot_dir="$openxet_root/server/target/aot"

# aot_cache_file -> the cache's path for the current jar and JDK (whether or not it exists).
aot_cache_file() {
    local jar="$openxet_root/server/target/openxet.jar" key version
    version=$(sed -n 's/^JAVA_RUNTIME_VERSION="\(.*\)"/\1/p' "$JAVA_HOME/release" 2>/dev/null)
    # The jar by its bytes (Maven rewrites it on every package, mostly unchanged), its libraries by name and size (a
    # dependency's version is in its name; neither survives a copy of the checkout, `cp -r` to /opt, unlike mtimes),
    # the JDK by its release and files.
    key=$({ cat "$JAVA_HOME/release" 2>/dev/null; stat -L -c '%n %s %Y' "$JAVA_HOME/lib/modules" \
        "$JAVA_HOME/lib/server/libjvm.so" 2>/dev/null; stat -L -c '%n %s' "$openxet_root"/server/target/libs/*.jar \
        2>/dev/null | sed 's|^.*/||'; sha256sum "$jar" 2>/dev/null | cut -d' ' -f1; } | sha256sum | cut -c1-16)
    echo "$aot_dir/openxet-${version:-jdk}-$key.aot"
}

# aot_cache_ensure: makes the cache when it is missing (a stale one has another name, and is removed). One line
# before the training run, which writes its log beside the cache; a failure is one line and the server starts without.
aot_cache_ensure() {
    [ "${OPENXET_AOT:-on}" = off ] && return 0
    local file tmp log
    file=$(aot_cache_file)
    [ -f "$file" ] && return 0
    mkdir -p "$aot_dir" 2>/dev/null && [ -w "$aot_dir" ] || {
        echo "openxet: cannot write $aot_dir: no AOT cache, the server starts without one (slower first seconds)" >&2
        return 0
    }
    log="$aot_dir/training.log"
    tmp="$aot_dir/making-$$.aot"
    echo "openxet: making the AOT cache for this jar and JDK (a training run, once per build, ~30 s;" \
        "OPENXET_AOT=off skips it)..." >&2
    if "$JAVA_HOME/bin/java" "${JVM_NATIVE_ARGS[@]}" "${JVM_SERVER_ARGS[@]}" "-XX:AOTCacheOutput=$tmp" \
        -jar "$openxet_root/server/target/openxet.jar" train-aot >"$log" 2>&1 && [ -s "$tmp" ]; then
        find "$aot_dir" -maxdepth 1 -name 'openxet-*.aot*' ! -name "$(basename "$file")" -delete 2>/dev/null || true
        # AOTCompileEagerly (aot_cache_args) is experimental: a JDK that dropped it would refuse to start, so this JDK
        # is asked once, here, and the answer kept beside the cache (whose name is keyed by the JDK).
        if "$JAVA_HOME/bin/java" -XX:+UnlockExperimentalVMOptions -XX:+AOTCompileEagerly -version >/dev/null 2>&1
        then echo yes >"$file.eager"; else echo no >"$file.eager"; fi
        mv -f "$tmp" "$file"
    else
        rm -f "$tmp" "$tmp.config"
        echo "openxet: the AOT training run failed (see $log); the server starts without a cache" >&2
    fi
}

# aot_cache_args: JVM_AOT_ARGS, the options that start a JVM from the cache (none when there is none). The JVM's own
# AOT messages are off: a cache it cannot map (other JVM flags) is reported by the server in one line instead.
# AOTCompileEagerly (experimental in 25) queues the JIT for every method the training run profiled as soon as it is
# first called, not after thousands of calls, so the 2 s warm-up ends on compiled code: side by side at 2,000 req/s
# the restart gate's worst one-second p99 was 50.1 ms without it and 27.1 ms with (docs/BENCHMARKS.md, "Restart under
# load"). Without training data in the cache it does nothing.
aot_cache_args() {
    JVM_AOT_ARGS=()
    [ "${OPENXET_AOT:-on}" = off ] && return 0
    local file
    file=$(aot_cache_file)
    if [ -f "$file" ]; then
        JVM_AOT_ARGS=("-XX:AOTCache=$file" "-Xlog:aot*=off")
        # Only where the JDK accepted the flag when the cache was made (aot_cache_ensure).
        if [ "$(cat "$file.eager" 2>/dev/null)" = yes ]; then
            JVM_AOT_ARGS+=(-XX:+UnlockExperimentalVMOptions -XX:+AOTCompileEagerly)
        fi
    fi
}
