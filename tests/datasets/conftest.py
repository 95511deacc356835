"""A real HTTP server on 127.0.0.1 for the download tests, and a tiny stand-in reader.

The server serves byte strings by path with a behaviour per path: "ok" (honours Range),
"cut" (the first plain request gets half the body, then the connection closes),
"stall" (headers and a few bytes, then silence for a bounded time), "norange" (ignores
Range). Every request is logged with its Range header. Nothing leaves the loopback.
"""

from __future__ import annotations

import gzip
import io
import tarfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from gpubfs_cli.graph.edges import EdgeList

STALL_SECONDS = 3.0  # upper bound on how long a stalled response holds its thread


def tar_gz(member: str, data: bytes) -> bytes:
    """A .tar.gz holding one file `member` (SuiteSparse's NAME/NAME.mtx layout), the same
    bytes every time (no time stamps: test ids built from it agree across workers)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo(member)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return gzip.compress(buf.getvalue(), mtime=0)


class LoopbackServer:
    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.behaviour: dict[str, str] = {}
        self.log: list[tuple[str, str | None]] = []
        self.stop = threading.Event()
        self._cut_done: set[str] = set()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_GET(self):
                path = self.path
                rng = self.headers.get("Range")
                server.log.append((path, rng))
                body = server.files.get(path)
                mode = server.behaviour.get(path, "ok")
                if body is None:
                    self.send_error(404, "Not Found")
                    return
                start = 0
                if rng and mode != "norange" and rng.startswith("bytes="):
                    start = int(rng[6:].split("-")[0])
                if start >= len(body) and start > 0:
                    self.send_error(416, "Range Not Satisfiable")
                    return
                self.send_response(206 if start else 200)
                if start:
                    self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
                self.send_header("Content-Length", str(len(body) - start))
                self.end_headers()
                if mode == "cut" and path not in server._cut_done and not start:
                    server._cut_done.add(path)
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                if mode == "stall":
                    self.wfile.write(body[:3])
                    self.wfile.flush()
                    server.stop.wait(STALL_SECONDS)
                    return
                self.wfile.write(body[start:])

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def http_server():
    server = LoopbackServer()
    yield server
    server.close()


def read_pairs(path, fmt, *, member=None, directed=None, compact_ids=False, progress=None,
               nonnegative_weights=False) -> EdgeList:
    """Stand-in reader: whitespace 'u v [w]' lines, 0-based, '#' comments (weights unchecked)."""
    rows = np.loadtxt(path, dtype=np.int64, comments="#", ndmin=2)
    src, dst = rows[:, 0], rows[:, 1]
    weights = rows[:, 2] if rows.shape[1] > 2 else None
    n = int(max(src.max(), dst.max())) + 1 if len(src) else 0
    return EdgeList(src, dst, n, True if directed is None else directed, weights, {"records": len(src)})


@pytest.fixture
def stand_in_reader(monkeypatch):
    from gpubfs_cli.datasets import prepare

    monkeypatch.setattr(prepare, "_read", read_pairs)
    return read_pairs


@pytest.fixture
def data_dir(tmp_path, monkeypatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("GPUBFS_DATA_DIR", str(d))
    return d


def write_catalogue(path: Path, body: str, monkeypatch) -> Path:
    path.write_text("datasets:\n" + body, encoding="utf-8")
    monkeypatch.setenv("GPUBFS_CATALOGUE", str(path))
    return path
