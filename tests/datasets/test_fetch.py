"""Downloads against a real HTTP server on loopback: success, resume, checksum, 404, stall."""

from __future__ import annotations

import hashlib

import pytest

from gpubfs_cli.datasets.fetch import ChecksumMismatch, download
from gpubfs_cli.errors import UserError

BODY = bytes(range(256)) * 4096  # 1 MiB, not a multiple of the read chunk's half
FAST = {"progress": False, "backoff": 0.01, "stall_timeout": 2.0}


def _sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def test_download_whole_file(http_server, tmp_path):
    http_server.files["/g.bin"] = BODY
    dest = tmp_path / "g.bin"
    got = download(http_server.url("/g.bin"), dest, **FAST)
    assert got == _sha(BODY)
    assert dest.read_bytes() == BODY
    assert not (tmp_path / "g.bin.part").exists()
    assert http_server.log == [("/g.bin", None)]


def test_resume_after_cut_connection_uses_range(http_server, tmp_path):
    http_server.files["/g.bin"] = BODY
    http_server.behaviour["/g.bin"] = "cut"
    dest = tmp_path / "g.bin"
    got = download(http_server.url("/g.bin"), dest, **FAST)
    assert got == _sha(BODY)
    assert dest.read_bytes() == BODY
    assert http_server.log == [("/g.bin", None), ("/g.bin", f"bytes={len(BODY) // 2}-")]
    assert not (tmp_path / "g.bin.part").exists()


def test_server_ignoring_range_restarts_cleanly(http_server, tmp_path):
    http_server.files["/g.bin"] = BODY
    http_server.behaviour["/g.bin"] = "norange"
    part = tmp_path / "g.bin.part"
    part.write_bytes(BODY[:1000])  # left by an earlier, interrupted run
    got = download(http_server.url("/g.bin"), tmp_path / "g.bin", **FAST)
    assert got == _sha(BODY)
    assert (tmp_path / "g.bin").read_bytes() == BODY
    assert http_server.log == [("/g.bin", "bytes=1000-")]


def test_checksum_verified_and_mismatch_named(http_server, tmp_path):
    http_server.files["/g.bin"] = BODY
    url = http_server.url("/g.bin")
    recorded = download(url, tmp_path / "a" / "g.bin", **FAST)
    # A later fetch of changed content against the recorded checksum fails, naming both.
    http_server.files["/g.bin"] = BODY[:-1] + b"x"
    dest = tmp_path / "b" / "g.bin"
    with pytest.raises(ChecksumMismatch) as exc:
        download(url, dest, expected_sha256=recorded, **FAST)
    msg = str(exc.value)
    assert url in msg and recorded in msg and _sha(BODY[:-1] + b"x") in msg
    assert "\n" not in msg
    assert not dest.exists() and not (tmp_path / "b" / "g.bin.part").exists()


def test_existing_complete_file_is_verified_not_fetched(http_server, tmp_path):
    dest = tmp_path / "g.bin"
    dest.write_bytes(BODY)
    assert download(http_server.url("/g.bin"), dest, expected_sha256=_sha(BODY), **FAST) == _sha(BODY)
    assert http_server.log == []


def test_404_is_one_line_naming_url(http_server, tmp_path):
    url = http_server.url("/missing.gz")
    with pytest.raises(UserError) as exc:
        download(url, tmp_path / "missing.gz", **FAST)
    msg = str(exc.value)
    assert msg == f"cannot download {url}: HTTP 404 Not Found"
    assert len(http_server.log) == 1  # a 404 is final: no retries
    assert list(tmp_path.iterdir()) == []


def test_unreachable_host_is_one_line(tmp_path):
    # Port 1 on loopback: nothing listens, the connection is refused at once.
    url = "http://127.0.0.1:1/g.bin"
    with pytest.raises(UserError) as exc:
        download(url, tmp_path / "g.bin", **FAST)
    assert str(exc.value).startswith(f"cannot download {url}: ")
    assert "\n" not in str(exc.value)


def test_stall_times_out_after_bounded_retries(http_server, tmp_path):
    http_server.files["/slow.bin"] = BODY
    http_server.behaviour["/slow.bin"] = "stall"
    dest = tmp_path / "slow.bin"
    with pytest.raises(UserError) as exc:
        download(http_server.url("/slow.bin"), dest, progress=False, backoff=0.01, stall_timeout=0.2, retries=1)
    msg = str(exc.value)
    assert "stalled" in msg and "2 tries" in msg and http_server.url("/slow.bin") in msg
    assert not dest.exists()  # never a partial file under the final name
    assert len(http_server.log) == 2
    # The second try resumed from the bytes the first one got.
    assert http_server.log[1][1] == "bytes=3-"
