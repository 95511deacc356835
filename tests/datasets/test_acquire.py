"""A catalogue graph's archive from a local file, a mirror folder or its URLs, and the one
check every archive passes (datasets/acquire.py), end to end through ensure_dataset with
the real readers, for each archive layout the catalogue downloads: a SNAP .txt.gz, a
SuiteSparse .tar.gz holding NAME/NAME.mtx and a DIMACS10 METIS .graph.bz2."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import itertools
import os
from dataclasses import dataclass

import pytest

from gpubfs_cli.datasets import store
from gpubfs_cli.datasets.acquire import (
    MIRROR_ENV,
    fill_mirror,
    find_in_mirror,
    mirror_dir,
    upstream_name,
)
from gpubfs_cli.datasets.catalogue import DatasetEntry, load_catalogue
from gpubfs_cli.datasets.fetch import ChecksumMismatch
from gpubfs_cli.datasets.prepare import add_user_dataset, ensure_dataset
from gpubfs_cli.errors import UserError
from tests.datasets.conftest import tar_gz

from .conftest import write_catalogue

WRONG = "0" * 64


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Case:
    name: str
    path: str  # where upstream serves it; its basename is the mirror's file name
    fmt: str
    body: bytes
    n: int
    m: int  # directed edges after the entry's policy
    lines: str  # the entry's other catalogue lines
    header: str  # what the header peek reads


SNAP = b"# Directed graph: tiny\n# Nodes: 5 Edges: 6\n# FromNodeId\tToNodeId\n0\t1\n1\t2\n2\t3\n3\t4\n4\t0\n0\t2\n"
MTX = b"%%MatrixMarket matrix coordinate pattern symmetric\n% tiny mesh\n5 5 6\n2 1\n3 2\n4 3\n5 4\n5 1\n3 1\n"
METIS = b"% tiny\n5 6\n2 5 3\n1 3\n2 4 1\n3 5\n4 1\n"
CASES = [
    Case("snap-tiny", "/data/snap-tiny.txt.gz", "snap", gzip.compress(SNAP, mtime=1), 5, 6,
         "    directed: true\n", "# Nodes: 5 Edges: 6"),
    Case("mesh-tiny", "/MM/DIMACS10/mesh-tiny.tar.gz", "mtx", tar_gz("mesh-tiny/mesh-tiny.mtx", MTX), 5, 12,
         "    member: mesh-tiny/mesh-tiny.mtx\n    directed: false\n",
         "%%MatrixMarket matrix coordinate pattern symmetric / 5 5 6"),
    Case("metis-tiny", "/dimacs10/data/metis-tiny.graph.bz2", "metis", bz2.compress(METIS), 5, 12,
         "    directed: false\n", "5 6"),
]
_names = itertools.count()


def _catalogue(tmp_path, monkeypatch, case: Case, urls: list[str], sha: str | None = None, m: int | None = None,
               more: str = "") -> None:
    """A catalogue of `case` alone (a fresh file each time: the catalogue is cached by path and mtime)."""
    body = f"""  {case.name}:
    papers: [bfs4k]
    kind: download
    urls: [{', '.join(urls)}]
    format: {case.fmt}
{case.lines}    expected: {{n: {case.n}, m: {case.m if m is None else m}}}
"""
    if sha:
        body += f"    sha256: '{sha}'\n"
    write_catalogue(tmp_path / f"cat-{next(_names)}.yaml", body + more, monkeypatch)


def _source(name: str, data_dir) -> dict:
    return store.read_meta(name, data_dir)["source"]


def _nothing_cached(d) -> None:
    """No graph, no temporary folder and no download left in the cache."""
    assert not d.exists() or list(d.iterdir()) == [], list(d.iterdir())


@pytest.mark.parametrize("origin", ["url", "mirror"])
@pytest.mark.parametrize("case", CASES, ids=[c.fmt for c in CASES])
def test_each_layout_from_a_server_or_a_mirror_is_checked_one_way(case, origin, http_server, tmp_path, monkeypatch,
                                                                     data_dir):
    url = http_server.url(case.path)
    http_server.files[case.path] = case.body
    true_sha = _sha(case.body)
    mirror = archive = None
    if origin == "mirror":
        mirror = tmp_path / "mirror"
        mirror.mkdir()
        archive = mirror / upstream_name(url)
        archive.write_bytes(case.body)
        del http_server.files[case.path]  # the mirror alone has it

    # A pin that matches: verified, converted.
    _catalogue(tmp_path, monkeypatch, case, [url], sha=true_sha)
    g = ensure_dataset(case.name, progress=False, mirror=mirror)
    assert (g.n, g.m) == (case.n, case.m)
    src = _source(case.name, data_dir)
    assert (src["origin"], src["sha256"], src["bytes"]) == (origin, true_sha, len(case.body))
    assert (src["checksum"], src["sha256_verified"], src["format"]) == ("verified", True, case.fmt)
    if origin == "url":
        assert src["url"] == url and "path" not in src
        assert src["download_s"] >= 0 and src["download_bytes_per_s"] > 0
        assert store.read_meta(case.name, data_dir)["times"]["download_s"] >= src["download_s"]
        assert not (data_dir / store.DOWNLOADS).exists()  # removed after the build
    else:
        assert (src["path"], src["upstream_url"]) == (str(archive), url) and "url" not in src
        assert "download_s" not in src and http_server.log == []
        assert "download_s" not in store.read_meta(case.name, data_dir)["times"]

    # A pin that differs: refused in one line, both hashes and the header named.
    _catalogue(tmp_path, monkeypatch, case, [url], sha=WRONG)
    with pytest.raises(ChecksumMismatch) as exc:
        ensure_dataset(case.name, force=True, progress=False, mirror=mirror)
    msg = str(exc.value)
    where = f"(downloaded from {url})" if origin == "url" else "(mirror)"
    assert msg.startswith(f"{case.name}: sha256 of ") and f" {where} is {true_sha}, the catalogue pins {WRONG}; " in msg
    assert f"; its header still matches the catalogue ({case.header}: n " in msg
    assert ", so it may be a re-compressed copy of the same graph: check it, then add --accept-checksum" in msg
    assert _source(case.name, data_dir)["checksum"] == "verified"  # the cached graph is untouched
    if origin == "url":
        assert msg.endswith("; the download was deleted") and not (data_dir / store.DOWNLOADS).exists()
    else:
        assert archive.read_bytes() == case.body

    # Accepted: used, and the decision recorded.
    g = ensure_dataset(case.name, force=True, progress=False, mirror=mirror, accept_checksum=True)
    assert (g.n, g.m) == (case.n, case.m)
    src = _source(case.name, data_dir)
    assert (src["checksum"], src["pinned_sha256"], src["header_match"]) == ("accepted-mismatch", WRONG, True)
    assert src["sha256"] == true_sha and src["sha256_verified"] is False
    assert src["header"].startswith(f"{case.header}: n ")

    # A header that does not match the catalogue says so.
    _catalogue(tmp_path, monkeypatch, case, [url], sha=WRONG, m=1000)
    with pytest.raises(ChecksumMismatch) as exc:
        ensure_dataset(case.name, force=True, progress=False, mirror=mirror)
    msg = str(exc.value)
    assert "; its header does not match: m 6" in msg and "against 1,000 expected" in msg
    assert ", so it is another graph or a damaged file: --accept-checksum would use it all the same" in msg
    ensure_dataset(case.name, force=True, progress=False, mirror=mirror, accept_checksum=True)
    assert _source(case.name, data_dir)["header_match"] is False
    if origin == "mirror":
        assert archive.read_bytes() == case.body and sorted(p.name for p in mirror.iterdir()) == [archive.name]


def test_an_archive_given_with_file_is_read_in_place(http_server, tmp_path, monkeypatch, data_dir):
    case = CASES[1]
    url = http_server.url(case.path)
    given = tmp_path / "elsewhere" / "my-copy.tar.gz"  # any name: a --file need not be the upstream one
    given.parent.mkdir()
    given.write_bytes(case.body)
    _catalogue(tmp_path, monkeypatch, case, [url], sha=_sha(case.body))
    assert ensure_dataset(case.name, progress=False, archive=given).m == case.m
    src = _source(case.name, data_dir)
    assert (src["origin"], src["path"], src["checksum"]) == ("file", str(given), "verified")
    assert "upstream_url" not in src and http_server.log == []
    same_name = tmp_path / upstream_name(url)
    same_name.write_bytes(case.body)
    ensure_dataset(case.name, force=True, progress=False, archive=same_name)
    assert _source(case.name, data_dir)["upstream_url"] == url
    assert given.read_bytes() == case.body and same_name.read_bytes() == case.body
    with pytest.raises(UserError, match=f"^{tmp_path / 'absent.tar.gz'}: no such file \\(dataset 'mesh-tiny'\\)$"):
        ensure_dataset(case.name, force=True, progress=False, archive=tmp_path / "absent.tar.gz")
    with pytest.raises(UserError, match=f"^{tmp_path}: a folder, not an archive"):
        ensure_dataset(case.name, force=True, progress=False, archive=tmp_path)


def test_the_mirror_comes_from_the_argument_else_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv(MIRROR_ENV, raising=False)
    assert mirror_dir(None) is None
    env, arg = tmp_path / "env", tmp_path / "arg"
    env.mkdir()
    arg.mkdir()
    monkeypatch.setenv(MIRROR_ENV, str(env))
    assert mirror_dir(None) == env and mirror_dir(arg) == arg
    with pytest.raises(UserError, match=f"^{tmp_path / 'none'}: no such mirror folder \\(--mirror\\)$"):
        mirror_dir(tmp_path / "none")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv(MIRROR_ENV, str(blocker))
    with pytest.raises(UserError, match=f"^{blocker}: cannot use as the mirror folder \\(\\$GPUBFS_MIRROR\\): a file, not a folder$"):
        mirror_dir(None)
    assert mirror_dir(tmp_path / "new" / "sub", create=True) == tmp_path / "new" / "sub"
    assert (tmp_path / "new" / "sub").is_dir() and list((tmp_path / "new" / "sub").iterdir()) == []


def test_find_in_mirror_tries_each_urls_basename_in_order(tmp_path):
    entry = DatasetEntry("g", "download", urls=("http://a/x/one.tar.gz", "https://b/two.tar.gz"), format="mtx")
    assert find_in_mirror(entry, None) is None
    assert find_in_mirror(entry, tmp_path) is None
    (tmp_path / "one.tar.gz").mkdir()  # a folder of that name is no archive
    (tmp_path / "two.tar.gz").write_bytes(b"2")
    assert find_in_mirror(entry, tmp_path) == (tmp_path / "two.tar.gz", "https://b/two.tar.gz")
    (tmp_path / "one.tar.gz").rmdir()
    (tmp_path / "one.tar.gz").write_bytes(b"1")
    assert find_in_mirror(entry, str(tmp_path)) == (tmp_path / "one.tar.gz", "http://a/x/one.tar.gz")
    assert find_in_mirror(DatasetEntry("r", "generated", generator="gnm"), tmp_path) is None
    assert upstream_name("https://h/MM/x%20y.tar.gz?dl=1") == "x y.tar.gz"


def test_a_graph_missing_from_the_mirror_is_downloaded(http_server, tmp_path, monkeypatch, data_dir, capsys):
    case = CASES[0]
    url = http_server.url(case.path)
    http_server.files[case.path] = case.body
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    monkeypatch.setenv(MIRROR_ENV, str(mirror))
    _catalogue(tmp_path, monkeypatch, case, [url])
    assert ensure_dataset(case.name).m == case.m
    assert f"{case.name}: not in the mirror {mirror} (looked for snap-tiny.txt.gz); downloading" in capsys.readouterr().err
    assert _source(case.name, data_dir)["origin"] == "url"
    gone = http_server.url("/data/gone.txt.gz")
    _catalogue(tmp_path, monkeypatch, case, [gone])
    with pytest.raises(UserError) as exc:
        ensure_dataset(case.name, force=True, progress=False)
    assert str(exc.value) == f"cannot download {gone}: HTTP 404 Not Found (and the mirror {mirror} holds no gone.txt.gz)"


def test_a_failing_url_hands_over_but_a_checksum_mismatch_is_final(http_server, tmp_path, monkeypatch, data_dir):
    case = CASES[0]
    other = gzip.compress(SNAP, mtime=2)  # the same graph, compressed again
    http_server.files["/b/snap-tiny.txt.gz"] = other
    http_server.files["/c/snap-tiny.txt.gz"] = case.body
    urls = [http_server.url(p) for p in ("/a/snap-tiny.txt.gz", "/b/snap-tiny.txt.gz", "/c/snap-tiny.txt.gz")]
    _catalogue(tmp_path, monkeypatch, case, urls, sha=_sha(case.body))
    with pytest.raises(ChecksumMismatch, match=f"is {_sha(other)}, the catalogue pins {_sha(case.body)}"):
        ensure_dataset(case.name, progress=False)
    assert [path for path, _ in http_server.log] == ["/a/snap-tiny.txt.gz", "/b/snap-tiny.txt.gz"]
    _nothing_cached(data_dir)
    del http_server.files["/b/snap-tiny.txt.gz"]
    http_server.log.clear()
    assert ensure_dataset(case.name, progress=False).m == case.m
    assert _source(case.name, data_dir)["url"] == urls[2]


def test_an_earlier_fetchs_hash_is_checked_for_a_mirror_copy_of_the_same_url(http_server, tmp_path, monkeypatch,
                                                                              data_dir):
    case = CASES[0]
    url = http_server.url(case.path)
    http_server.files[case.path] = case.body
    _catalogue(tmp_path, monkeypatch, case, [url])  # no pin: the first fetch records
    ensure_dataset(case.name, progress=False)
    assert _source(case.name, data_dir)["checksum"] == "recorded"
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "snap-tiny.txt.gz").write_bytes(gzip.compress(SNAP, mtime=7))
    with pytest.raises(ChecksumMismatch) as exc:
        ensure_dataset(case.name, force=True, progress=False, mirror=mirror)
    assert f", an earlier fetch recorded {_sha(case.body)}; its header still matches the catalogue" in str(exc.value)
    ensure_dataset(case.name, force=True, progress=False, mirror=mirror, accept_checksum=True)
    src = _source(case.name, data_dir)
    assert (src["checksum"], src["recorded_sha256"]) == ("accepted-mismatch", _sha(case.body))
    # The hash recorded for one URL says nothing about another URL's archive.
    http_server.files["/elsewhere/snap-tiny.txt.gz"] = gzip.compress(SNAP, mtime=9)
    _catalogue(tmp_path, monkeypatch, case, [http_server.url("/elsewhere/snap-tiny.txt.gz")])
    ensure_dataset(case.name, force=True, progress=False)
    assert _source(case.name, data_dir)["checksum"] == "recorded"
    ensure_dataset(case.name, force=True, progress=False)
    assert _source(case.name, data_dir)["checksum"] == "verified"


def test_a_users_own_file_is_not_held_to_its_earlier_hash(tmp_path, data_dir):
    f = tmp_path / "mine.txt"
    f.write_text("0 1\n1 2\n")
    add_user_dataset("mine", "snap", file=f, progress=False)
    f.write_text("0 1\n1 2\n2 3\n")  # edited by its owner
    assert add_user_dataset("mine", "snap", file=f, force=True, progress=False).m == 3
    src = _source("mine", data_dir)
    assert (src["origin"], src["file"], src["path"], src["checksum"]) == ("file", str(f), str(f), "recorded")


def test_a_cached_graph_is_returned_without_looking_at_any_archive(http_server, tmp_path, monkeypatch, data_dir,
                                                                   capsys):
    case = CASES[0]
    http_server.files[case.path] = case.body
    _catalogue(tmp_path, monkeypatch, case, [http_server.url(case.path)], sha=_sha(case.body))
    ensure_dataset(case.name, progress=False)
    junk = tmp_path / "junk.gz"
    junk.write_bytes(b"junk")
    monkeypatch.setenv(MIRROR_ENV, str(tmp_path / "no-such-mirror"))
    capsys.readouterr()
    assert ensure_dataset(case.name, archive=junk).m == case.m
    assert f"{case.name}: already cached; add --force to rebuild it from {junk}" in capsys.readouterr().err
    assert ensure_dataset(case.name, progress=False).m == case.m  # the broken mirror setting is not even looked at
    with pytest.raises(UserError, match=f"^{tmp_path / 'no-such-mirror'}: no such mirror folder \\(\\$GPUBFS_MIRROR\\)$"):
        ensure_dataset(case.name, force=True, progress=False)


def test_file_applies_to_catalogue_downloads_only(tmp_path, monkeypatch, data_dir):
    write_catalogue(tmp_path / "gen.yaml", """  rnd:
    kind: generated
    generator: gnm
    params: {n: 10, m: 20}
""", monkeypatch)
    with pytest.raises(UserError, match="^dataset 'rnd' is generated: it is built from no catalogue archive, so --file"):
        ensure_dataset("rnd", archive=tmp_path / "x", progress=False)
    _nothing_cached(data_dir)


# ---------------------------------------------------------------- hostile archives
def test_a_mirror_that_is_no_folder_is_one_line(tmp_path, monkeypatch, data_dir):
    case = CASES[0]
    _catalogue(tmp_path, monkeypatch, case, ["http://127.0.0.1:9/x.txt.gz"])
    blocker = tmp_path / "mirror"
    blocker.write_text("x")
    with pytest.raises(UserError, match=f"^{blocker}: cannot use as the mirror folder \\(--mirror\\): a file, not a folder$"):
        ensure_dataset(case.name, progress=False, mirror=blocker)
    _nothing_cached(data_dir)


def test_an_unreadable_archive_is_one_line_and_caches_nothing(tmp_path, monkeypatch, data_dir):
    case = CASES[1]
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    bad = mirror / "mesh-tiny.tar.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00" + os.urandom(64))
    url = f"http://127.0.0.1:9{case.path}"
    _catalogue(tmp_path, monkeypatch, case, [url])  # nothing to compare with: the reader finds it out
    with pytest.raises(UserError, match=f"^{bad}: not a readable tar archive"):
        ensure_dataset(case.name, progress=False, mirror=mirror)
    _nothing_cached(data_dir)
    _catalogue(tmp_path, monkeypatch, case, [url], sha=_sha(case.body))
    with pytest.raises(ChecksumMismatch, match=f"; its header cannot be read \\({bad}: not a readable tar archive.*\\): check it"):
        ensure_dataset(case.name, progress=False, mirror=mirror)
    _nothing_cached(data_dir)
    assert bad.is_file()


def test_an_archive_without_read_permission_is_one_line(tmp_path, monkeypatch, data_dir):
    from gpubfs_cli.datasets import acquire

    case = CASES[0]
    locked = tmp_path / "snap-tiny.txt.gz"
    locked.write_bytes(case.body)
    locked.chmod(0)
    if os.geteuid() == 0:  # root reads a file whatever its mode: refuse as the kernel would
        def refuse(path):
            raise PermissionError(13, "Permission denied", str(path))

        monkeypatch.setattr(acquire, "sha256_file", refuse)
    _catalogue(tmp_path, monkeypatch, case, ["http://127.0.0.1:9/x.txt.gz"])
    with pytest.raises(UserError, match=f"^{case.name}: cannot read {locked} \\(given with --file\\): Permission denied$"):
        ensure_dataset(case.name, progress=False, archive=locked)
    _nothing_cached(data_dir)


def test_a_truncated_archive_is_one_line_and_caches_nothing(tmp_path, monkeypatch, data_dir):
    case = CASES[0]
    pairs = b"".join(b"%d\t%d\n" % (i % 5, i * 7919 % 5) for i in range(40_000))
    whole = gzip.compress(b"# Nodes: 5 Edges: 40000\n" + pairs, mtime=1)
    cut = whole[:200]  # the header and a few pairs survive
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "snap-tiny.txt.gz").write_bytes(cut)
    url = f"http://127.0.0.1:9{case.path}"
    _catalogue(tmp_path, monkeypatch, case, [url], m=40_000)
    with pytest.raises(UserError, match=f"^{mirror / 'snap-tiny.txt.gz'}: truncated or corrupt gzip data"):
        ensure_dataset(case.name, progress=False, mirror=mirror)
    _nothing_cached(data_dir)
    # Pinned: its header, read from the first block, still matches; accepted, the reader refuses it.
    _catalogue(tmp_path, monkeypatch, case, [url], sha=_sha(whole), m=40_000)
    with pytest.raises(ChecksumMismatch, match="its header still matches the catalogue \\(# Nodes: 5 Edges: 40000: n and m as expected\\)"):
        ensure_dataset(case.name, progress=False, mirror=mirror)
    with pytest.raises(UserError, match="truncated or corrupt gzip data"):
        ensure_dataset(case.name, progress=False, mirror=mirror, accept_checksum=True)
    _nothing_cached(data_dir)
    assert (mirror / "snap-tiny.txt.gz").read_bytes() == cut


# ---------------------------------------------------------------- filling a mirror
def _all_cases_catalogue(http_server, tmp_path, monkeypatch, sha: dict[str, str]) -> None:
    body = ""
    for case in CASES:
        http_server.files[case.path] = case.body
        body += f"""  {case.name}:
    kind: download
    urls: [{http_server.url(case.path)}]
    format: {case.fmt}
{case.lines}    expected: {{n: {case.n}, m: {case.m}}}
    sha256: '{sha.get(case.name, _sha(case.body))}'
"""
    body += """  rnd:
    kind: generated
    generator: gnm
    params: {n: 10, m: 20}
"""
    write_catalogue(tmp_path / f"all-{next(_names)}.yaml", body, monkeypatch)


def test_filling_a_mirror_downloads_each_archive_once_under_its_upstream_name(http_server, tmp_path, monkeypatch,
                                                                              data_dir):
    _all_cases_catalogue(http_server, tmp_path, monkeypatch, {})
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    for case in CASES:
        filled = fill_mirror(case.name, mirror, progress=False)
        a = filled.archive
        assert filled.downloaded and (a.path, a.checksum, a.bytes) == (mirror / case.path.rsplit("/", 1)[1], "verified", len(case.body))
        assert a.path.read_bytes() == case.body
    assert sorted(p.name for p in mirror.iterdir()) == sorted(c.path.rsplit("/", 1)[1] for c in CASES)
    assert fill_mirror("rnd", mirror).skipped == "generated on the node, nothing to download"
    http_server.log.clear()
    again = [fill_mirror(case.name, mirror, progress=False) for case in CASES]
    assert http_server.log == [] and [f.downloaded for f in again] == [False] * 3
    assert [f.archive.checksum for f in again] == ["verified"] * 3
    _nothing_cached(data_dir)  # nothing converted
    # The filled mirror then serves the build, without the network.
    http_server.files.clear()
    g = ensure_dataset(CASES[2].name, progress=False, mirror=mirror)
    assert (g.n, g.m) == (CASES[2].n, CASES[2].m) and _source(CASES[2].name, data_dir)["origin"] == "mirror"


def test_filling_a_mirror_deletes_a_refused_download_but_not_a_file_already_there(http_server, tmp_path, monkeypatch):
    case = CASES[1]
    _all_cases_catalogue(http_server, tmp_path, monkeypatch, {case.name: WRONG})
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    with pytest.raises(ChecksumMismatch, match=f"the catalogue pins {WRONG}; its header still matches.*; the download was deleted$"):
        fill_mirror(case.name, mirror, progress=False)
    assert list(mirror.iterdir()) == []
    placed = mirror / "mesh-tiny.tar.gz"
    placed.write_bytes(case.body)
    with pytest.raises(ChecksumMismatch) as exc:
        fill_mirror(case.name, mirror, progress=False)
    assert f"sha256 of {placed} (mirror) is {_sha(case.body)}" in str(exc.value) and "deleted" not in str(exc.value)
    assert placed.read_bytes() == case.body
    filled = fill_mirror(case.name, mirror, progress=False, accept_checksum=True)
    assert (filled.archive.checksum, filled.downloaded) == ("accepted-mismatch", False)
    assert filled.archive.source()["pinned_sha256"] == WRONG


def test_load_catalogue_sees_each_test_catalogue(tmp_path, monkeypatch):
    """The fresh-file-per-catalogue helper above relies on this."""
    _catalogue(tmp_path, monkeypatch, CASES[0], ["http://x/a.txt.gz"])
    first = load_catalogue().get(CASES[0].name).urls
    _catalogue(tmp_path, monkeypatch, CASES[0], ["http://x/b.txt.gz"])
    assert (first, load_catalogue().get(CASES[0].name).urls) == (("http://x/a.txt.gz",), ("http://x/b.txt.gz",))


def test_a_kept_download_is_checked_not_fetched_again(http_server, tmp_path, monkeypatch, data_dir):
    case = CASES[0]
    http_server.files[case.path] = case.body
    _catalogue(tmp_path, monkeypatch, case, [http_server.url(case.path)], sha=_sha(case.body))
    ensure_dataset(case.name, progress=False, keep_download=True)
    kept = data_dir / store.DOWNLOADS / case.name / "snap-tiny.txt.gz"
    assert kept.read_bytes() == case.body
    http_server.log.clear()
    ensure_dataset(case.name, force=True, progress=False, keep_download=True)
    src = _source(case.name, data_dir)
    assert http_server.log == [] and src["checksum"] == "verified" and "download_s" not in src
    assert "download_s" not in store.read_meta(case.name, data_dir)["times"]  # no network rate to derive
    kept.write_bytes(b"stale")  # a copy that fails the pin is fetched afresh
    ensure_dataset(case.name, force=True, progress=False)
    assert [p for p, _ in http_server.log] == [case.path] and "download_s" in _source(case.name, data_dir)
    assert not (data_dir / store.DOWNLOADS).exists()
