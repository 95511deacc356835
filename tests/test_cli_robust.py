"""Hostile inputs and surroundings, through the CLI: a broken cache entry (repaired by
--force, listed as broken, harmless to other datasets), cached ids out of range (one
line, no crash), output that cannot be written (a full device, a closed pipe),
fetch --paper going on past a failed download, and where the cache and results live."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.datasets import store

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def gpubfs(*args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gpubfs_cli", *map(str, args)], cwd=ROOT, text=True,
                          capture_output=kwargs.pop("capture_output", "stdout" not in kwargs), **kwargs)


@pytest.fixture(scope="module")
def two_graphs(tmp_path_factory):
    """smoke-rmat and smoke-grid cached (copied fresh into each test's cache)."""
    d = tmp_path_factory.mktemp("cache")
    res = cli("fetch-dataset", "smoke-rmat", "smoke-grid", "--dir", d)
    assert res.exit_code == 0, res.output
    return d


@pytest.fixture
def cache(two_graphs, tmp_path):
    import shutil

    d = tmp_path / "cache"
    shutil.copytree(two_graphs, d)
    return d


# ---- a broken meta.json ------------------------------------------------------------

def test_force_replaces_a_broken_entry(cache):
    (cache / "smoke-grid" / "meta.json").write_text("{bad")
    res = cli("fetch-dataset", "smoke-grid", "--dir", cache)
    assert res.exit_code == 2
    assert res.stderr.splitlines() == [
        f"error: {cache / 'smoke-grid' / 'meta.json'}: unreadable (Expecting property name enclosed in double "
        "quotes: line 1 column 2 (char 1)); re-fetch with: gpubfs fetch-dataset smoke-grid --force"]
    res = cli("fetch-dataset", "smoke-grid", "--force", "--dir", cache)
    assert res.exit_code == 0, res.output
    assert res.stdout == "smoke-grid: n = 13,824, m = 79,488 (undirected)\n"
    assert store.read_meta("smoke-grid", cache)["n"] == 13_824


def test_list_shows_a_broken_entry_and_the_rest(cache):
    (cache / "smoke-grid" / "meta.json").write_text("null")
    (cache / "mine").mkdir()
    (cache / "mine" / "row_offsets.npy").write_bytes(b"")
    (cache / "mine" / "meta.json").write_text("[]")
    res = cli("list", "datasets", "--json", "--dir", cache)
    assert res.exit_code == 0, res.output
    rows = {r["name"]: r for r in json.loads(res.stdout)}
    assert rows["smoke-rmat"]["cached"] is True and rows["smoke-rmat"]["broken"] is None
    grid, mine = rows["smoke-grid"], rows["mine"]
    assert grid["cached"] is False and grid["broken"].endswith(
        "meta.json: expected a JSON object, found null; re-fetch with: gpubfs fetch-dataset smoke-grid --force")
    assert mine["cached"] is False and "add it again with: gpubfs fetch-dataset mine --file" in mine["broken"]
    res = cli("list", "datasets", "--dir", cache)
    assert res.exit_code == 0 and "Traceback" not in res.output
    broken = [line for line in res.stdout.splitlines() if line.startswith("broken: ")]
    assert broken == [f"broken: {grid['broken']}", f"broken: {mine['broken']}"]


def test_run_on_healthy_datasets_is_unaffected(cache, tmp_path):
    (cache / "smoke-grid" / "meta.json").write_text('{"format_version": 1, "n": "x", "m": 3}')
    res = cli("run", "-d", "smoke-rmat", "-s", "cpu.sequential", "--sources", 2, "--dir", cache,
              "--out", tmp_path / "a.json")
    assert res.exit_code == 0, res.output
    res = cli("run", "-d", "smoke-rmat,smoke-grid", "-s", "cpu.sequential", "--sources", 2, "--dir", cache,
              "--out", tmp_path / "b.json")
    assert res.exit_code == 1 and "Traceback" not in res.output
    doc = json.loads((tmp_path / "b.json").read_text())
    assert doc["datasets"]["smoke-rmat"]["status"] == "ok"
    assert "smoke-grid/meta.json: 'n' must be a whole number" in doc["datasets"]["smoke-grid"]["reason"]


def test_an_unknown_name_is_still_one_line_beside_a_broken_entry(cache, tmp_path):
    (cache / "mine").mkdir()
    (cache / "mine" / "row_offsets.npy").write_bytes(b"")
    (cache / "mine" / "meta.json").write_text("null")
    res = cli("run", "-d", "nosuch", "-s", "cpu.sequential", "--dir", cache, "--out", tmp_path / "r.json")
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert res.stderr.splitlines()[-1].startswith("error: command line: datasets[0]: unknown dataset 'nosuch'")


# ---- ids out of range --------------------------------------------------------------

@pytest.mark.parametrize("strategy", ["cpu.sequential", "cpu.scipy"])
def test_an_id_out_of_range_is_refused_not_a_crash(cache, tmp_path, strategy):
    path = cache / "smoke-rmat" / "col_indices.npy"
    cols = np.load(path)
    cols[5] = 10**9
    np.save(path, cols)
    res = gpubfs("run", "-d", "smoke-rmat", "-s", strategy, "--sources", 2, "--dir", cache, "--out", tmp_path / "r.json")
    assert res.returncode == 1, res.stderr  # a crash would be -11 (SIGSEGV)
    assert f"{path}: vertex id 1,000,000,000 at entry 5 is outside [0, 4,096)" in res.stderr
    assert "Traceback" not in res.stderr


# ---- output that cannot be written ------------------------------------------------

COMMANDS = [["--version"], ["-h"], ["info"], ["list", "datasets", "--json"], ["list", "strategies"],
            ["fetch-dataset", "smoke-rmat"]]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_a_full_device_is_one_line(args, cache):
    with open("/dev/full", "w") as full:
        res = gpubfs(*args, *(["--dir", cache] if args[0] in ("list", "fetch-dataset") and args[1] != "strategies" else []),
                     stdout=full, stderr=subprocess.PIPE)
    assert res.returncode == 1
    assert res.stderr == "error: cannot write output: No space left on device\n"


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_a_closed_pipe_ends_quietly(args, cache):
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte, as `| head -0`
    try:
        res = gpubfs(*args, *(["--dir", cache] if args[0] in ("list", "fetch-dataset") and args[1] != "strategies" else []),
                     stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert (res.returncode, res.stderr) == (141, "")


def test_a_pipe_closed_midway_ends_quietly(cache):
    proc = subprocess.Popen(f"{sys.executable} -m gpubfs_cli list datasets --dir {cache} | head -1",
                            shell=True, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=60)
    assert len(out.splitlines()) == 1 and err == ""


# ---- errors that cannot be written -------------------------------------------------

UNKNOWN = "error: unknown dataset 'nosuch' (valid: "


def _stderr_to(target, *args, **kwargs) -> subprocess.CompletedProcess:
    return gpubfs(*args, stdout=subprocess.PIPE, stderr=target, **kwargs)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_full_device_for_errors_is_one_line_on_stdout(cache):
    with open("/dev/full", "w") as full:
        res = _stderr_to(full, "fetch-dataset", "nosuch", "--dir", cache)
        assert res.returncode == 1
        (line,) = res.stdout.splitlines()
        assert line.startswith("error: cannot write to stderr (No space left on device); the last message "
                               f"lost: {UNKNOWN}")
        usage = _stderr_to(full, "nosuch-command")  # click's own usage error, made one line
        assert (usage.returncode, usage.stdout) == (1, "error: cannot write to stderr (No space left on device); "
                                                       "the last message lost: error: python -m gpubfs_cli: no such "
                                                       "command 'nosuch-command' (python -m gpubfs_cli --help)\n")
        quiet = _stderr_to(full, "--version")  # nothing written there: nothing lost
        assert (quiet.returncode, quiet.stdout) == (0, "gpubfs 0.1.0\n")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_command_goes_on_when_its_notes_cannot_be_written(tmp_path):
    """Progress notes lost on the way do not lose the work: the graph is cached, stdout
    says what it says, and one more line there says that stderr failed."""
    d = tmp_path / "cache"
    with open("/dev/full", "w") as full:
        res = _stderr_to(full, "fetch-dataset", "smoke-grid", "--dir", d)
    assert res.returncode == 1 and "Traceback" not in res.stdout
    first, last = res.stdout.splitlines()
    assert first == "smoke-grid: n = 13,824, m = 79,488 (undirected)"
    assert last.startswith("error: cannot write to stderr (No space left on device); the last message lost: "
                           f"smoke-grid: cached in {d / 'smoke-grid'} (")
    assert store.load_graph("smoke-grid", d).m == 79_488


def test_a_closed_pipe_for_errors_is_one_line_on_stdout(cache):
    read, write = os.pipe()
    os.close(read)
    try:
        res = _stderr_to(write, "fetch-dataset", "nosuch", "--dir", cache)
    finally:
        os.close(write)
    assert res.returncode == 1
    (line,) = res.stdout.splitlines()
    assert line.startswith(f"error: cannot write to stderr (Broken pipe); the last message lost: {UNKNOWN}")


def test_a_closed_stderr_is_one_line_on_stdout(cache):
    res = gpubfs("fetch-dataset", "nosuch", "--dir", cache, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                 preexec_fn=lambda: os.close(2))  # as `2>&-`
    assert res.returncode == 1
    (line,) = res.stdout.splitlines()
    assert line.startswith(f"error: cannot write to stderr (it is closed); the last message lost: {UNKNOWN}")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_neither_stream_writable_is_exit_1_without_a_hang(cache):
    with open("/dev/full", "w") as full:
        for args in (["fetch-dataset", "nosuch"], ["list", "datasets"]):
            res = gpubfs(*args, "--dir", cache, stdout=full, stderr=full, timeout=60)
            assert res.returncode == 1


# ---- fetch --paper goes on past failures -----------------------------------------

def test_fetch_paper_fetches_every_dataset_then_lists_the_failures(tmp_path, monkeypatch):
    cat = tmp_path / "cat.yaml"
    cat.write_text("""datasets:
  gone1:
    papers: [bfs4k]
    kind: download
    urls: [http://127.0.0.1:1/gone1.txt]
    format: snap
  grid:
    papers: [bfs4k]
    kind: generated
    generator: lattice
    params: {dims: [4, 4]}
  gone2:
    papers: [bfs4k]
    kind: download
    urls: [http://127.0.0.1:1/gone2.txt]
    format: snap
  grid2:
    papers: [bfs4k]
    kind: generated
    generator: lattice
    params: {dims: [5, 5]}
""")
    monkeypatch.setenv("GPUBFS_CATALOGUE", str(cat))
    d = tmp_path / "cache"
    res = cli("fetch-dataset", "--paper", "bfs4k", "--dir", d)
    assert res.exit_code == 2 and "Traceback" not in res.output
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert errors[0].startswith("error: gone1: cannot download http://127.0.0.1:1/gone1.txt")
    assert errors[1].startswith("error: gone2: cannot download http://127.0.0.1:1/gone2.txt")
    assert errors[2:] == ["error: 2 of 4 datasets not fetched: gone1, gone2 (why: above)"]
    assert res.stdout.splitlines() == ["grid: n = 16, m = 48 (undirected)", "grid2: n = 25, m = 80 (undirected)"]
    assert store.cached_keys(d) == ["grid", "grid2"]


# ---- where things live ------------------------------------------------------------

def test_info_says_where_the_cache_and_the_results_are(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUBFS_DATA_DIR", str(tmp_path / "env"))
    monkeypatch.delenv("GPUBFS_RESULTS_DIR", raising=False)
    res = cli("info")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert f"datasets: {tmp_path / 'env'} (from $GPUBFS_DATA_DIR; --dir DIR on a command or $GPUBFS_DATA_DIR " \
           "sets it)" in lines
    assert any(line.startswith(f"results: {Path('results').resolve()} (a checkout: ./results of the working "
                               "folder; $GPUBFS_RESULTS_DIR sets it; gpubfs run writes") for line in lines)
    paths = json.loads(cli("info", "--json", "--dir", tmp_path / "flag").stdout)["paths"]
    assert paths == {"data_dir": str(tmp_path / "flag"), "data_dir_from": "--dir",
                     "results_dir": str(Path("results").resolve()), "results_dir_from": "checkout"}


def test_readme_says_where_the_cache_and_the_results_are():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "GPUBFS_DATA_DIR" in text and "--dir" in text and "./datasets" in text
    assert "results/" in text and "--out" in text
