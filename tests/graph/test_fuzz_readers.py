"""Fuzz every graph reader through `gpubfs fetch-dataset --file` (seeded, a few seconds).

Inputs: random bytes, and random truncations and mutations (bytes flipped, tokens such as
huge ids, signs, NULs and headers inserted, spans deleted, lines repeated) of the shipped
fixtures (tests/graph/io_files.py, in every compression the opener reads) and, where
present, of the small real files in ../shared/data; files are also read as the wrong
format. Whatever the input, the command either caches a graph with edges, or ends in one
line (a UserError, never a traceback) with exit code 2 and leaves nothing in the cache:
no entry, no temporary folder.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.datasets import store
from tests.conftest import SHARED_DATA
from tests.graph import io_files as f

SEED = 20261123
CASES = 200
MIN_CASES = 60  # always run, however loaded the machine: the budget cannot hollow the test out
BUDGET_S = 5.0  # past MIN_CASES, stop here; the 200 cases take about 2 to 3 s unloaded

# (format, suffix, text) of the shipped fixtures
FIXTURES = [
    ("snap", ".txt", f.snap_text()),
    ("dimacs9", ".gr", f.dimacs9_text()),
    ("gtgraph", ".gr", f.gtgraph_text()),
    ("mtx", ".mtx", f.mtx_general_text()),
    ("mtx", ".mtx", f.mtx_general_text("real")),
    ("mtx", ".mtx", f.mtx_general_text("pattern")),
    ("mtx", ".mtx", f.mtx_symmetric_text()),
    ("metis", ".graph", f.metis_text()),
    ("metis", ".graph", f.metis_text(1)),
    ("metis", ".graph", f.metis_text(11)),
    ("metis", ".graph", f.metis_text(100)),
]
SHARED = [("gapbs-4/4.el", "snap"), ("gapbs-4/4.wel", "snap"), ("gapbs-4/4.gr", "dimacs9"),
          ("gapbs-4/4.mtx", "mtx"), ("gapbs-4/4w.mtx", "mtx"), ("gtgraph-sample.gr", "gtgraph"),
          ("chesapeake.mtx", "mtx")]
FORMATS = ("snap", "dimacs9", "gtgraph", "mtx", "metis")
TOKENS = [b"0", b"1", b"-1", b"+7", b"99999999999", b"2000000000", b"18446744073709551617", b"1e5", b"0.5",
          b"nan", b"\n", b" ", b"\t", b"\r", b"#", b"%", b"a", b"p sp", b"\x00", b"\xff\xfe",
          b"# Nodes: 3 Edges: 9\n", b"%%MatrixMarket matrix coordinate pattern symmetric\n", b"\n\n\n"]


def _fixtures() -> list[tuple[str, str, bytes]]:
    out = [(fmt, suffix, text.encode()) for fmt, suffix, text in FIXTURES]
    for name, fmt in SHARED:
        path = SHARED_DATA / name
        if path.is_file():
            out.append((fmt, path.suffix, path.read_bytes()))
    return out


def _mutate(rng: random.Random, data: bytes) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        if op == 0 and b:  # truncate
            b = b[: rng.randrange(len(b) + 1)]
        elif op == 1 and b:  # flip a byte
            b[rng.randrange(len(b))] = rng.randrange(256)
        elif op == 2:  # insert a token
            i = rng.randrange(len(b) + 1)
            b[i:i] = rng.choice(TOKENS)
        elif op == 3 and b:  # delete a span
            i = rng.randrange(len(b))
            del b[i : i + rng.randint(1, 12)]
        elif op == 4:  # replace a line by another
            lines = bytes(b).split(b"\n")
            lines[rng.randrange(len(lines))] = rng.choice(lines)
            b = bytearray(b"\n".join(lines))
        else:  # a number made huge or negative
            lines = bytes(b).split(b"\n")
            i = rng.randrange(len(lines))
            lines[i] = lines[i].replace(b"1", rng.choice([b"-1", b"4294967296", b"99999999999999"]), 1)
            b = bytearray(b"\n".join(lines))
    return bytes(b)


def _case(rng: random.Random, fixtures, folder: Path) -> tuple[Path, str, list[str]]:
    fmt, suffix, data = rng.choice(fixtures)
    roll = rng.random()
    if roll < 0.1:
        data, fmt = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))), rng.choice(FORMATS)
    elif roll < 0.9:
        data = _mutate(rng, data)
    if rng.random() < 0.08:
        fmt = rng.choice(FORMATS)  # the wrong reader
    compression = rng.choice(["plain"] * 5 + ["gz", "bz2", "tar.gz"])
    path = f.write(folder, "g", suffix, data, compression)
    if compression != "plain" and rng.random() < 0.35:
        raw = path.read_bytes()
        path.write_bytes(raw[: rng.randrange(len(raw) + 1)])
    flags = [flag for flag, p in (("--undirected", 0.3), ("--compact-ids", 0.3)) if rng.random() < p]
    return path, fmt, flags


def test_fuzz_every_reader(tmp_path):
    rng = random.Random(SEED)
    fixtures = _fixtures()
    runner = CliRunner()
    start = time.monotonic()
    outcomes = {"cached": 0, "refused": 0}
    for i in range(CASES):
        if i >= MIN_CASES and time.monotonic() - start > BUDGET_S:
            break
        folder = tmp_path / f"case{i}"
        folder.mkdir()
        path, fmt, flags = _case(rng, fixtures, folder)
        cache = folder / "cache"
        result = runner.invoke(app, ["fetch-dataset", "g", "--file", str(path), "--format", fmt, *flags, "--dir", str(cache)])
        what = f"case {i}: {path.name} as {fmt} {flags}: {path.read_bytes()[:120]!r}"
        assert result.exception is None or isinstance(result.exception, SystemExit), f"{what}\n{result.output}"
        assert "Traceback" not in result.output, what
        if result.exit_code == 0:
            outcomes["cached"] += 1
            assert [p.name for p in cache.iterdir()] == ["g"], what
            g = store.load_graph("g", cache)
            assert g.m > 0 and g.n > 0, what
        else:
            outcomes["refused"] += 1
            assert result.exit_code == 2, f"{what}\n{result.output}"
            errors = [ln for ln in result.stderr.strip().splitlines() if ln.startswith("error:")]
            assert len(errors) == 1 and result.stderr.strip().splitlines()[-1] == errors[0], f"{what}\n{result.stderr}"
            assert "\n" not in errors[0]
            assert not cache.exists() or list(cache.iterdir()) == [], f"{what}: left {list(cache.iterdir())}"
    assert outcomes["cached"] and outcomes["refused"], outcomes  # both ends were exercised


@pytest.mark.parametrize("fmt", FORMATS)
def test_random_bytes_in_every_format(tmp_path, fmt):
    """A few fixed binary blobs per format, compressed and not (quick, deterministic)."""
    rng = random.Random(f"{SEED}-{fmt}")
    runner = CliRunner()
    for i, compression in enumerate(["plain", "gz", "bz2", "tar.gz"]):
        folder = tmp_path / f"b{i}"
        folder.mkdir()
        path = f.write(folder, "g", ".bin", bytes(rng.randrange(256) for _ in range(512)), compression)
        cache = folder / "cache"
        result = runner.invoke(app, ["fetch-dataset", "g", "--file", str(path), "--format", fmt, "--dir", str(cache)])
        assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
        assert result.stderr.strip().splitlines()[-1].startswith(f"error: {path}"), result.stderr
        assert not cache.exists() or list(cache.iterdir()) == []
