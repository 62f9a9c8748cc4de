#!/usr/bin/env bash
# Builds native/build/libopenxet_blake3.so: our helper (native/blake3/) over the official BLAKE3 C library.
# The BLAKE3 sources are obtained here, at build time, and never committed (see native/blake3/README.md):
#   1. the distribution's libblake3-dev when installed (newer Debian/Ubuntu): link our helper against -lblake3;
#   2. else the unmodified C sources inside the distribution's librust-blake3-dev package, fetched with
#      `apt-get download` and unpacked with `dpkg-deb -x` into native/build/src (nothing is installed).
# Idempotent: does nothing when the .so is newer than our helper sources and this script. `--force` rebuilds.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/build"
lib="$out/libopenxet_blake3.so"
inputs=("$here/blake3/openxet_blake3.c" "$here/blake3/openxet_blake3.h" "$here/build.sh")

force=0
if [[ "${1:-}" == "--force" ]]; then
    force=1
fi

up_to_date() {
    [[ -f "$lib" ]] || return 1
    local f
    for f in "${inputs[@]}"; do
        [[ "$lib" -nt "$f" ]] || return 1
    done
}

if [[ $force -eq 0 ]] && up_to_date; then
    # Quiet for the launchers, which run this before every command; build logs still say it.
    [[ -n "${OPENXET_NATIVE_QUIET:-}" ]] || echo "native: $lib is up to date"
    exit 0
fi

mkdir -p "$out"
cflags=(-O3 -fPIC -shared -Wl,-z,noexecstack -Wall -I"$here/blake3")
tmp="$(mktemp "$out/.libopenxet_blake3.XXXXXX")"
trap 'rm -f "$tmp"' EXIT

# Runs a command as root: directly when we are root, through sudo when it exists; otherwise fails.
as_root() {
    if [[ "$(id -u)" -eq 0 ]]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "native: need root (or sudo) for: $*" >&2
        return 1
    fi
}

# Prints the directory holding blake3.c from librust-blake3-dev, fetching and unpacking the package if needed.
rust_crate_c_dir() {
    local src="$out/src" dir deb
    dir="$(compgen -G "$src/usr/share/cargo/registry/blake3-*/c" | sort -V | tail -n 1 || true)"
    if [[ -n "$dir" && -f "$dir/blake3.c" ]]; then
        echo "$dir"
        return
    fi
    mkdir -p "$src/deb"
    # As root, apt hands a download to its _apt user, which cannot enter a private checkout (a clone in a 0700 temp
    # dir): it then warns and downloads as root anyway. Ask for that up front, without the warning.
    local sandbox=()
    [[ "$(id -u)" == 0 ]] && sandbox=(-o APT::Sandbox::User=root)
    # apt-get download finds nothing on a machine that never fetched its package lists: update once, retry.
    if ! (cd "$src/deb" && apt-get "${sandbox[@]}" download librust-blake3-dev >&2); then
        echo "native: apt-get download failed; running apt-get update and retrying" >&2
        as_root apt-get update >&2
        (cd "$src/deb" && apt-get "${sandbox[@]}" download librust-blake3-dev >&2)
    fi
    deb="$(compgen -G "$src/deb/librust-blake3-dev_*.deb" | sort -V | tail -n 1)"
    dpkg-deb -x "$deb" "$src"
    dir="$(compgen -G "$src/usr/share/cargo/registry/blake3-*/c" | sort -V | tail -n 1 || true)"
    if [[ -z "$dir" || ! -f "$dir/blake3.c" ]]; then
        echo "native: $deb has no usr/share/cargo/registry/blake3-*/c/blake3.c" >&2
        return 1
    fi
    echo "$dir"
}

# A fresh machine may have no compiler: install it like the scripts install everything else they need.
if ! command -v gcc >/dev/null 2>&1; then
    echo "native: installing gcc" >&2
    as_root apt-get update -qq >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc >/dev/null
fi

# 1. The system library, when the distribution packages it.
system_libs=""
if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libblake3 2>/dev/null; then
    system_libs="$(pkg-config --cflags --libs libblake3)"
elif [[ -f /usr/include/blake3.h ]] && echo 'int main(void){return 0;}' \
        | gcc -x c - -lblake3 -o /dev/null >/dev/null 2>&1; then
    system_libs="-lblake3"
fi

if [[ -n "$system_libs" ]]; then
    # shellcheck disable=SC2086 # pkg-config output is a list of flags
    gcc "${cflags[@]}" -o "$tmp" "$here/blake3/openxet_blake3.c" $system_libs
    how="system libblake3 ($system_libs)"
else
    # 2. The official C sources from librust-blake3-dev; the SIMD files are picked by architecture, and the
    #    library's runtime dispatch chooses among them by CPU feature (AVX2 on our Zen 3 machines).
    c="$(rust_crate_c_dir)"
    sources=("$c/blake3.c" "$c/blake3_dispatch.c" "$c/blake3_portable.c")
    defines=()
    case "$(uname -m)" in
        x86_64 | amd64)
            sources+=("$c/blake3_sse2_x86-64_unix.S" "$c/blake3_sse41_x86-64_unix.S"
                "$c/blake3_avx2_x86-64_unix.S" "$c/blake3_avx512_x86-64_unix.S")
            ;;
        aarch64 | arm64)
            sources+=("$c/blake3_neon.c")
            defines+=(-DBLAKE3_USE_NEON=1)
            ;;
        *)
            ;; # portable code only
    esac
    gcc "${cflags[@]}" "${defines[@]}" -I"$c" -o "$tmp" "$here/blake3/openxet_blake3.c" "${sources[@]}"
    how="BLAKE3 C sources from librust-blake3-dev (${c#"$out/"})"
fi

chmod 0755 "$tmp"
mv -f "$tmp" "$lib"
trap - EXIT
echo "native: built $lib from $how"
