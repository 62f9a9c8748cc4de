"""The real Python client against a real openxet: hf_xet's XetSession (what huggingface_hub >= 1.19 drives) uploads
and downloads through nothing but openxet, its token refresh URLs built by huggingface_hub's own
`xet_connection_info_refresh_url` (utils/_xet.py) for every repo type and revision form that huggingface_hub sends.

Run by hf-xet.sh, which starts the server and installs the packages. Environment:
  OPENXET_URL         the server's public URL
  OPENXET_USER_TOKEN  a user token from `openxet user add` allowed to write every repository
Prints one line per check and `hf_xet interop: N passed, N failed` last; exits 1 on any failure.
"""

import os
import random
import sys
import tempfile
import time
import traceback
from importlib import metadata
from urllib.parse import quote

import hf_xet
import huggingface_hub
from hf_xet import XetFileInfo, XetSession
from huggingface_hub.utils._xet import XetTokenType, xet_connection_info_refresh_url

ENDPOINT = os.environ["OPENXET_URL"]
AUTH = {"Authorization": "Bearer " + os.environ["OPENXET_USER_TOKEN"]}
results = {"passed": 0, "failed": 0}


def check(name, fn):
    started = time.monotonic()
    try:
        detail = fn()
        results["passed"] += 1
        print(f"ok   {name} — {detail} ({(time.monotonic() - started) * 1000:.0f} ms)", flush=True)
    except Exception as e:  # every failure is reported, then the run goes on
        results["failed"] += 1
        print(f"FAIL {name}: {e!r}", flush=True)
        traceback.print_exc(limit=4)


def refresh_url(token_type, repo_type, repo_id, revision, create_pr=False):
    # As huggingface_hub builds it: _commit_api.py and _upload_pipeline.py quote the revision with safe="" and
    # append "?create_pr=1"; file_download.py passes the commit hash for reads.
    url = xet_connection_info_refresh_url(token_type=token_type, repo_id=repo_id, repo_type=repo_type,
                                          revision=revision, endpoint=ENDPOINT)
    return url + "?create_pr=1" if create_pr else url


def upload(write_url, paths):
    """One upload commit (as _commit_api.py's _upload_xet_files does): the XetFileInfo of each path."""
    session = XetSession()
    with session.new_upload_commit(token_refresh_url=write_url, token_refresh_headers=AUTH,
                                   custom_headers={"User-Agent": "openxet-interop"}) as commit:
        handles = [commit.start_upload_file(p, sha256=hf_xet.COMPUTE_SHA256) for p in paths]
    return [h.result().xet_info for h in handles]


def download_and_compare(read_url, infos, paths, into):
    """One download group (as file_download.py's xet_get does), then every byte compared with the original."""
    session = XetSession()
    targets = [os.path.join(into, f"down-{i}") for i in range(len(infos))]
    with session.new_file_download_group(token_refresh_url=read_url, token_refresh_headers=AUTH) as group:
        for info, target in zip(infos, targets):
            group.start_download_file(XetFileInfo(info.hash, info.file_size), target)
    for path, target, info in zip(paths, targets, infos):
        with open(path, "rb") as a, open(target, "rb") as b:
            if a.read() != b.read():
                raise AssertionError(f"{os.path.basename(path)} ({info.hash}) came back different")
    return sum(info.file_size for info in infos)


def main():
    rng = random.Random(21)
    work = tempfile.mkdtemp(prefix="openxet-hf-xet-")
    sizes = {"small.bin": 3_000, "one-mib.bin": 1 << 20, "five-mb.bin": 5_000_000}
    paths = []
    for name, size in sizes.items():
        path = os.path.join(work, name)
        with open(path, "wb") as f:
            f.write(rng.randbytes(size))
        paths.append(path)
    print(f"hf_xet {metadata.version('hf_xet')}, huggingface_hub {huggingface_hub.__version__}, against {ENDPOINT}",
          flush=True)

    # Every repo type and revision form huggingface_hub puts in a write-token URL, each its own repository.
    legs = [
        ("model, main", "model", "interop/model", "main", False, "main"),
        ("dataset, a PR branch quoted as one segment", "dataset", "interop/data", quote("refs/pr/1", safe=""), False,
         quote("refs/pr/1", safe="")),
        ("model, a PR being created (/None?create_pr=1)", "model", "interop/pr", None, True, "main"),
        ("space, main", "space", "interop/space", "main", False, "main"),
        ("bucket, no revision", "bucket", "interop/bucket", None, False, None),
    ]
    for label, repo_type, repo_id, write_rev, create_pr, read_rev in legs:
        write_url = refresh_url(XetTokenType.WRITE, repo_type, repo_id, write_rev, create_pr)
        read_url = refresh_url(XetTokenType.READ, repo_type, repo_id, read_rev)
        state = {}

        def up():
            state["infos"] = upload(write_url, paths)
            return f"{len(paths)} files through {write_url[len(ENDPOINT):]}"

        def down():
            if "infos" not in state:
                raise AssertionError("nothing was uploaded")
            total = download_and_compare(read_url, state["infos"], paths, tempfile.mkdtemp(dir=work))
            return f"{total} bytes byte-compared through {read_url[len(ENDPOINT):]}"

        check(f"{label}: upload", up)
        check(f"{label}: download", down)

    def dedup():
        # The same bytes again, in a new commit to another repository: same xet hashes, served back whole.
        infos = upload(refresh_url(XetTokenType.WRITE, "model", "interop/again", "main"), paths)
        total = download_and_compare(refresh_url(XetTokenType.READ, "model", "interop/again", "main"), infos, paths,
                                     tempfile.mkdtemp(dir=work))
        return f"{total} bytes uploaded again and byte-compared"

    check("the same files committed again to another repository", dedup)

    print(f"hf_xet interop: {results['passed']} passed, {results['failed']} failed", flush=True)
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
