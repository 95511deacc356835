"""gpubfs fetch-dataset / list datasets / export through the real CLI (CliRunner)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from gpubfs_cli.datasets import store

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def _one_line_error(result, starts: str) -> None:
    assert result.exit_code == 2, result.output
    # Progress lines may come first; the error is one line, the last.
    lines = result.stderr.strip().splitlines()
    assert [ln for ln in lines if ln.startswith("error:")] == lines[-1:], result.stderr
    assert lines[-1].startswith(f"error: {starts}"), lines[-1]
    assert "Traceback" not in result.output


@pytest.fixture
def delaunay(shared_data, tmp_path):
    """delaunay_n15.graph (METIS) fetched into a fresh cache under tmp_path."""
    d = tmp_path / "cache"
    res = run("fetch-dataset", "delaunay", "--file", shared_data / "delaunay_n15.graph", "--format", "metis", "--dir", d)
    assert res.exit_code == 0, res.output
    return d, res


def test_fetch_file_metis(delaunay, shared_data):
    d, res = delaunay
    assert "delaunay: n = 32,768, m = 196,548 (undirected)" in res.stdout
    g = store.load_graph("delaunay", d)
    assert (g.n, g.m, g.directed) == (32768, 196548, False)
    meta = store.read_meta("delaunay", d)
    assert meta["kind"] == "user" and meta["source"]["format"] == "metis"
    assert meta["source"]["sha256"] == "ae5f9f3449dac27285d45b7256e4950ba0e06d2ccf4719381c4aa4f338cd7489"
    assert meta["stats"]["n"] == 32768 and meta["stats"]["isolated"] == 0
    # Cached: the same command again is a no-op that prints the same line.
    again = run("fetch-dataset", "delaunay", "--dir", d)
    assert again.exit_code == 0 and "n = 32,768, m = 196,548" in again.stdout


def test_list_datasets_json(delaunay):
    d, _ = delaunay
    res = run("list", "datasets", "--json", "--dir", d)
    assert res.exit_code == 0, res.output
    rows = {r["name"]: r for r in json.loads(res.stdout)}
    mine = rows["delaunay"]
    assert mine["cached"] is True and (mine["n"], mine["m"]) == (32768, 196548)
    assert mine["stats"]["max_degree"] == max(np.diff(store.load_graph("delaunay", d).row_offsets))
    assert mine["kind"] == "user" and mine["size_bytes"] > 196548 * 4
    europe = rows["europe.osm"]
    assert europe["cached"] is False and (europe["n"], europe["m"]) == (50912018, 108109320)
    assert europe["papers"] == ["merrill", "bfs4k"] and "stats" not in europe
    table = run("list", "datasets", "--dir", d)
    assert table.exit_code == 0 and "delaunay" in table.stdout and "europe.osm" in table.stdout


@pytest.mark.parametrize("fmt, reader_fmt", [("mtx", "mtx"), ("el", "snap")])
def test_export_round_trip(delaunay, tmp_path, fmt, reader_fmt):
    d, _ = delaunay
    out = tmp_path / f"delaunay.{fmt}"
    res = run("export", "delaunay", out, "--format", fmt, "--dir", d)
    assert res.exit_code == 0, res.output
    assert f"wrote {out}" in res.stdout
    back = run("fetch-dataset", "again", "--file", out, "--format", reader_fmt, "--dir", d)
    assert back.exit_code == 0, back.output
    a, b = store.load_graph("delaunay", d), store.load_graph("again", d)
    np.testing.assert_array_equal(a.row_offsets, b.row_offsets)
    np.testing.assert_array_equal(a.col_indices, b.col_indices)


def test_unknown_dataset(tmp_path):
    _one_line_error(run("fetch-dataset", "europe.osn", "--dir", tmp_path), "unknown dataset 'europe.osn' (did you mean: europe.osm")
    _one_line_error(run("export", "hugebubles-00020", tmp_path / "x.mtx", "--dir", tmp_path), "unknown dataset 'hugebubles-00020' (did you mean: hugebubbles-00020")
    _one_line_error(run("export", "europe.osm", tmp_path / "x.mtx", "--dir", tmp_path), "dataset 'europe.osm' is not cached")
    _one_line_error(run("fetch-dataset", "--paper", "merril", "--dir", tmp_path), "unknown paper 'merril' (did you mean: merrill")
    _one_line_error(run("fetch-dataset", "--dir", tmp_path), "name a dataset")


def test_bad_format(shared_data, tmp_path):
    f = shared_data / "delaunay_n15.graph"
    _one_line_error(run("fetch-dataset", "x", "--file", f, "--format", "metiss", "--dir", tmp_path), "unknown format 'metiss' (did you mean: metis")
    _one_line_error(run("fetch-dataset", "x", "--file", f, "--dir", tmp_path), "--url/--file need --format")
    _one_line_error(run("fetch-dataset", "x", "--format", "metis", "--dir", tmp_path), "--format/--undirected/--compact-ids apply only")
    _one_line_error(run("export", "x", tmp_path / "x.csv", "--format", "csv", "--dir", tmp_path), "unknown export format 'csv'")
    # A file that is not in the format it is said to be: the reader's one line, no cache entry.
    _one_line_error(run("fetch-dataset", "x", "--file", shared_data / "chesapeake.mtx", "--format", "metis", "--dir", tmp_path), f"{shared_data / 'chesapeake.mtx'}:")
    assert not (tmp_path / "x").exists()


def test_missing_file(tmp_path):
    _one_line_error(
        run("fetch-dataset", "x", "--file", tmp_path / "absent.graph", "--format", "metis", "--dir", tmp_path),
        f"{tmp_path / 'absent.graph'}: no such file",
    )


# ---------------------------------------------------------------- hostile inputs
def _nothing_cached(d):
    """The cache holds no graph and no temporary (the folder itself may exist, empty)."""
    assert not d.exists() or list(d.iterdir()) == [], list(d.iterdir())


def test_sparse_ids_are_refused_with_the_compact_hint(tmp_path):
    """The 17-byte SNAP file `0 1 / 1 2000000000` asked for 2 billion vertices (24 GB, then
    killed, a 15 GB temporary folder left): now one line that says how to compact ids."""
    f = tmp_path / "sparse.txt"
    f.write_text("0 1\n1 2000000000\n")
    assert f.stat().st_size == 17
    d = tmp_path / "cache"
    _one_line_error(run("fetch-dataset", "sparse", "--file", f, "--format", "snap", "--dir", d),
                    f"{f}:2: node id 2,000,000,000 (n = largest id + 1) gives 2,000,000,001 vertices")
    _nothing_cached(d)
    res = run("fetch-dataset", "sparse", "--file", f, "--format", "snap", "--compact-ids", "--dir", d)
    assert res.exit_code == 0, res.output
    assert "sparse: n = 3, m = 2 (directed)" in res.stdout
    assert store.read_meta("sparse", d)["policy"]["compact_ids"] is True
    huge = tmp_path / "huge.txt"
    huge.write_text("1 99999999999\n")
    _one_line_error(run("fetch-dataset", "huge", "--file", huge, "--format", "snap", "--dir", d),
                    f"{huge}:1: node id 99,999,999,999 (n = largest id + 1) gives 100,000,000,000 vertices, over the")
    assert [p.name for p in d.iterdir()] == ["sparse"]


@pytest.mark.parametrize(("fmt", "text"), [
    ("snap", ""), ("snap", "# only a comment\n"), ("dimacs9", "p sp 4 0\n"),
    ("mtx", "%%MatrixMarket matrix coordinate pattern general\n4 4 0\n"), ("metis", "2 0\n\n\n"),
])
def test_a_graph_with_no_edges_is_refused(tmp_path, fmt, text):
    f = tmp_path / f"empty.{fmt}"
    f.write_text(text)
    d = tmp_path / "cache"
    _one_line_error(run("fetch-dataset", "empty", "--file", f, "--format", fmt, "--dir", d), f"{f}: holds no edges")
    _nothing_cached(d)


def test_only_self_loops_is_no_graph(tmp_path):
    f = tmp_path / "loops.txt"
    f.write_text("0 0\n1 1\n")
    d = tmp_path / "cache"
    _one_line_error(run("fetch-dataset", "loops", "--file", f, "--format", "snap", "--dir", d),
                    "dataset 'loops': the graph has no edges after 2 records (all self-loops, which are dropped)")
    _nothing_cached(d)


def test_truncated_snap_file_is_refused(shared_data, tmp_path):
    lines = (shared_data / "CA-GrQc.txt").read_text().splitlines(keepends=True)
    f = tmp_path / "CA-GrQc.txt"
    f.write_text("".join(lines[:8979]))
    d = tmp_path / "cache"
    _one_line_error(run("fetch-dataset", "grqc", "--file", f, "--format", "snap", "--dir", d),
                    f"{f}:8980: line 3 declares 28980 edges; the file holds 8975")
    _nothing_cached(d)


def test_user_graph_cannot_take_a_generated_graphs_seed_slot(tmp_path):
    f = tmp_path / "g.txt"
    f.write_text("0 1\n1 2\n")
    d = tmp_path / "cache"
    for name in ("smoke-rmat@seed=3", "mine@seed=1", "a@b"):
        _one_line_error(run("fetch-dataset", name, "--file", f, "--format", "snap", "--dir", d),
                        f"'{name}' cannot name your graph: '@' is kept for generated graphs")
    _nothing_cached(d)


def test_unusable_cache_folder(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    _one_line_error(run("fetch-dataset", "smoke-grid", "--dir", blocker), f"{blocker}: cannot use as the dataset cache (--dir): a file, not a folder")
    _one_line_error(run("fetch-dataset", "smoke-grid", "--dir", blocker / "sub"), f"{blocker / 'sub'}: cannot use as the dataset cache")
    if os.path.isdir("/proc/self"):
        _one_line_error(run("fetch-dataset", "smoke-grid", "--dir", "/proc/data"), "/proc/data: cannot use as the dataset cache")
    assert blocker.read_text() == "x"


@pytest.fixture
def tiny_cache(tmp_path):
    f = tmp_path / "tiny.txt"
    f.write_text("0 1\n1 2\n2 0\n")
    d = tmp_path / "cache"
    assert run("fetch-dataset", "tiny", "--file", f, "--format", "snap", "--dir", d).exit_code == 0
    return d


def test_export_to_places_it_must_not_replace(tiny_cache, tmp_path):
    import stat

    target = tmp_path / "keep.mtx"
    target.write_text("mine")
    link = tmp_path / "link.mtx"
    link.symlink_to(target)
    fifo = tmp_path / "fifo.mtx"
    os.mkfifo(fifo)
    for path, part in ((link, "is a symbolic link"), (fifo, "is a FIFO"), (tmp_path, "is a folder"),
                       (target / "x.mtx", "no such folder")):
        _one_line_error(run("export", "tiny", path, "--dir", tiny_cache), str(path.parent if part == "no such folder" else path))
    if os.path.isdir("/proc/self"):
        _one_line_error(run("export", "tiny", "/proc/x.mtx", "--dir", tiny_cache), "/proc/x.mtx: cannot write the export in /proc")
    assert target.read_text() == "mine" and link.is_symlink() and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_export_written_meanwhile_by_another_command_is_refused_not_replaced(tiny_cache, tmp_path, monkeypatch):
    """Two exports racing for one PATH: the file the other wrote after this one's first
    check is refused at publishing, untouched, and no temporary is left."""
    from gpubfs_cli.graph.io import export

    target = tmp_path / "t.el"
    real = export._write_text

    def other_writes_first(graph, f, fmt, comment):
        target.write_text("the other export")
        return real(graph, f, fmt, comment)

    monkeypatch.setattr(export, "_write_text", other_writes_first)
    _one_line_error(run("export", "tiny", target, "--format", "el", "--dir", tiny_cache),
                    f"{target}: already exists; give --force to replace it, or another PATH")
    assert target.read_text() == "the other export"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    res = run("export", "tiny", target, "--format", "el", "--dir", tiny_cache, "--force")
    assert res.exit_code == 0, res.output
    assert target.read_text().startswith("0 1\n")


def test_fetch_dataset_hands_the_dataset_layer_the_gpu(monkeypatch, tmp_path):
    """fetch-dataset passes gpu.backend.cupy_if_usable down, so a generated graph is made
    on the GPU when one is usable (the dataset layer does not import the GPU layer)."""
    from gpubfs_cli.datasets import prepare
    from gpubfs_cli.gpu import backend
    from gpubfs_cli.graph import EdgeList, build_csr

    calls = []

    def ensure(name, data_dir=None, **kwargs):
        calls.append(kwargs)
        return build_csr(EdgeList(np.array([0]), np.array([1]), 2, False), name=name)

    monkeypatch.setattr(prepare, "ensure_dataset", ensure)
    res = run("fetch-dataset", "default-grid", "--dir", tmp_path / "cache")
    assert res.exit_code == 0, res.output
    assert [c["gpu_xp"] for c in calls] == [backend.cupy_if_usable]


def test_fetch_out_of_memory_is_one_line_and_caches_nothing(monkeypatch, tmp_path):
    """Memory running out while a graph is made: one error line, exit 2, no traceback,
    nothing under the cache's name and no temporary folder."""
    from gpubfs_cli.datasets import prepare
    from tests.datasets.conftest import write_catalogue

    write_catalogue(tmp_path / "gen.yaml", """  big:
    papers: [merrill]
    kind: generated
    generator: gnm
    params: {n: 50, m: 200}
    seed: 1
""", monkeypatch)
    monkeypatch.setattr(prepare, "build_csr", lambda *a, **k: np.empty(1 << 50))
    cache = tmp_path / "cache"
    res = run("fetch-dataset", "big", "--dir", cache)
    _one_line_error(res, "dataset 'big': out of host memory while building the CSR (9007199.3 GB asked")
    assert res.stderr.strip().splitlines()[-1].endswith("; the cache is unchanged")
    assert not store.is_cached("big", cache) and not [p for p in cache.iterdir() if p.name != ".downloads"]


# ---------------------------------------------------------------- a catalogue graph's archive
# The real New York road graph (../shared/data/README.md): re-compressed, so its sha256 is
# not the upstream pin, while its header matches the catalogue.
UPSTREAM_SHA = "7b2446c7ffe6179efbc42af6812448e8cb782f12968ca2bb1d50d979343056d4"
NY_SHA = "5c9d7d163afba2a8fb537ddfbe7a24d03a4d2d595d7b11eba1aff686eeac5c37"
NY_PATH = "/~challenge9/data/USA-road-d/USA-road-d.NY.gr.gz"
NY_HEADER = "its header still matches the catalogue (p sp 264346 733846: n and m as expected)"
NOWHERE = "http://127.0.0.1:9"  # nothing listens: only a mirror or --file can serve


@pytest.fixture
def ny(shared_data, monkeypatch):
    path = shared_data / "USA-road-d.NY.gr.gz"
    if not path.is_file():
        pytest.skip(f"{path} not found (the New York road graph: ../shared/data/README.md)")
    monkeypatch.delenv("GPUBFS_MIRROR", raising=False)
    return path


@pytest.fixture
def server():
    from tests.datasets.conftest import LoopbackServer

    s = LoopbackServer()
    yield s
    s.close()


def _ny_catalogue(tmp_path, monkeypatch, url: str, sha: str = UPSTREAM_SHA) -> None:
    from tests.datasets.conftest import write_catalogue

    write_catalogue(tmp_path / f"ny-{sha[:6]}.yaml", f"""  USA-road-d.NY:
    papers: [luo]
    aliases: [New York]
    kind: download
    urls: [{url}]
    format: dimacs9
    sha256: {sha}
    weights: true
    directed: false
    expected: {{n: 264346, m: 733846}}
  luo-grid:
    papers: [luo]
    kind: generated
    generator: lattice
    params: {{dims: [4, 4, 4]}}
""", monkeypatch)


def test_ny_from_a_server_is_refused_then_accepted(ny, server, tmp_path, monkeypatch):
    server.files[NY_PATH] = ny.read_bytes()
    url = server.url(NY_PATH)
    _ny_catalogue(tmp_path, monkeypatch, url)
    d = tmp_path / "cache"
    res = run("fetch-dataset", "USA-road-d.NY", "--dir", d)
    download = d / ".downloads" / "USA-road-d.NY" / "USA-road-d.NY.gr.gz"
    _one_line_error(res, f"USA-road-d.NY: sha256 of {download} (downloaded from {url}) is {NY_SHA}, the catalogue "
                         f"pins {UPSTREAM_SHA}; {NY_HEADER}, so it may be a re-compressed copy of the same graph: "
                         "check it, then add --accept-checksum to use it (recorded in the results); the download was deleted")
    _nothing_cached(d)
    res = run("fetch-dataset", "New York", "--accept-checksum", "--dir", d)
    assert res.exit_code == 0, res.output
    assert "USA-road-d.NY: n = 264,346, m = 730,100 (undirected)" in res.stdout
    src = store.read_meta("USA-road-d.NY", d)["source"]
    assert (src["origin"], src["url"], src["sha256"], src["bytes"]) == ("url", url, NY_SHA, ny.stat().st_size)
    assert (src["checksum"], src["pinned_sha256"], src["header_match"]) == ("accepted-mismatch", UPSTREAM_SHA, True)
    assert src["sha256_verified"] is False and src["download_bytes_per_s"] > 0
    assert not (d / ".downloads").exists()


def test_ny_with_its_own_sha_pinned_needs_no_flag(ny, server, tmp_path, monkeypatch):
    server.files[NY_PATH] = ny.read_bytes()
    _ny_catalogue(tmp_path, monkeypatch, server.url(NY_PATH), sha=NY_SHA)
    d = tmp_path / "cache"
    res = run("fetch-dataset", "USA-road-d.NY", "--dir", d)
    assert res.exit_code == 0, res.output
    src = store.read_meta("USA-road-d.NY", d)["source"]
    assert (src["checksum"], src["sha256_verified"], src["origin"]) == ("verified", True, "url")
    assert "pinned_sha256" not in src and "header_match" not in src


def test_ny_from_a_mirror_is_read_in_place(ny, tmp_path, monkeypatch):
    import shutil

    mirror = tmp_path / "mirror"
    mirror.mkdir()
    copy = mirror / "USA-road-d.NY.gr.gz"
    shutil.copyfile(ny, copy)
    before = (copy.stat().st_mtime_ns, copy.stat().st_size)
    url = NOWHERE + NY_PATH
    _ny_catalogue(tmp_path, monkeypatch, url)
    d = tmp_path / "cache"
    monkeypatch.setenv("GPUBFS_MIRROR", str(mirror))
    _one_line_error(run("fetch-dataset", "USA-road-d.NY", "--dir", d),
                    f"USA-road-d.NY: sha256 of {copy} (mirror) is {NY_SHA}, the catalogue pins {UPSTREAM_SHA}; {NY_HEADER}, "
                    "so it may be a re-compressed copy")
    _nothing_cached(d)
    monkeypatch.delenv("GPUBFS_MIRROR")
    res = run("fetch-dataset", "USA-road-d.NY", "--mirror", mirror, "--accept-checksum", "--dir", d)
    assert res.exit_code == 0, res.output
    assert "USA-road-d.NY: n = 264,346, m = 730,100 (undirected)" in res.stdout
    src = store.read_meta("USA-road-d.NY", d)["source"]
    assert (src["origin"], src["path"], src["upstream_url"]) == ("mirror", str(copy), url)
    assert (src["checksum"], src["header_match"], src["bytes"]) == ("accepted-mismatch", True, ny.stat().st_size)
    assert [p.name for p in mirror.iterdir()] == [copy.name]
    assert (copy.stat().st_mtime_ns, copy.stat().st_size) == before


def test_ny_from_file(ny, tmp_path, monkeypatch):
    url = NOWHERE + NY_PATH
    _ny_catalogue(tmp_path, monkeypatch, url)
    d = tmp_path / "cache"
    _one_line_error(run("fetch-dataset", "USA-road-d.NY", "--file", ny, "--format", "metis", "--dir", d),
                    "dataset 'USA-road-d.NY' is dimacs9 in the catalogue: --format metis contradicts it (leave --format out)")
    _one_line_error(run("fetch-dataset", "USA-road-d.NY", "--file", ny, "--undirected", "--dir", d),
                    "--undirected/--compact-ids do not apply to catalogue dataset 'USA-road-d.NY'")
    _one_line_error(run("fetch-dataset", "USA-road-d.NY", "--file", ny, "--dir", d),
                    f"USA-road-d.NY: sha256 of {ny} (given with --file) is {NY_SHA}, the catalogue pins {UPSTREAM_SHA}; {NY_HEADER}")
    _nothing_cached(d)
    res = run("fetch-dataset", "USA-road-d.NY", "--file", ny, "--format", "dimacs9", "--accept-checksum", "--dir", d)
    assert res.exit_code == 0, res.output
    src = store.read_meta("USA-road-d.NY", d)["source"]
    assert (src["origin"], src["path"], src["upstream_url"]) == ("file", str(ny), url)
    assert (src["checksum"], src["header_match"]) == ("accepted-mismatch", True)
    assert store.read_meta("USA-road-d.NY", d)["kind"] == "download"
    again = run("fetch-dataset", "USA-road-d.NY", "--file", ny, "--dir", d)
    assert again.exit_code == 0 and "USA-road-d.NY: already cached; add --force to rebuild it from" in again.stderr


def test_ny_download_only_fills_a_mirror_once(ny, server, tmp_path, monkeypatch):
    server.files[NY_PATH] = ny.read_bytes()
    _ny_catalogue(tmp_path, monkeypatch, server.url(NY_PATH))
    mirror = tmp_path / "mirror"
    d = tmp_path / "cache"
    res = run("fetch-dataset", "--paper", "luo", "--download-only", "--mirror", mirror, "--dir", d)
    assert res.exit_code == 2, res.output
    errors = [ln for ln in res.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 2 and errors[0].startswith(f"error: USA-road-d.NY: sha256 of {mirror / 'USA-road-d.NY.gr.gz'} (downloaded from")
    assert errors[0].endswith("; the download was deleted")
    assert errors[1] == "error: 1 of 2 datasets not mirrored: USA-road-d.NY (why: above)"
    assert "luo-grid: skipped (generated on the node, nothing to download)" in res.stdout
    assert list(mirror.iterdir()) == []
    res = run("fetch-dataset", "--paper", "luo", "--download-only", "--mirror", mirror, "--accept-checksum", "--dir", d)
    assert res.exit_code == 0, res.output
    line = f"USA-road-d.NY: {mirror / 'USA-road-d.NY.gr.gz'} (3.7 MB), sha256 {NY_SHA}, accepted-mismatch"
    assert f"{line}, downloaded" in res.stdout
    assert (mirror / "USA-road-d.NY.gr.gz").read_bytes() == ny.read_bytes()
    server.log.clear()
    monkeypatch.setenv("GPUBFS_MIRROR", str(mirror))
    res = run("fetch-dataset", "USA-road-d.NY", "--download-only", "--accept-checksum", "--dir", d)
    assert res.exit_code == 0, res.output
    assert f"{line}, already in the mirror" in res.stdout and server.log == []
    assert not d.exists()  # nothing converted


def test_download_only_and_mirror_mistakes_are_one_line(tmp_path, monkeypatch):
    monkeypatch.delenv("GPUBFS_MIRROR", raising=False)
    d = tmp_path / "cache"
    _one_line_error(run("fetch-dataset", "USA-road-d.NY", "--download-only", "--dir", d),
                    "--download-only needs the mirror folder to fill: give --mirror DIR or set GPUBFS_MIRROR")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    _one_line_error(run("fetch-dataset", "USA-road-d.NY", "--download-only", "--mirror", blocker),
                    f"{blocker}: cannot use as the mirror folder (--mirror): a file, not a folder")
    _one_line_error(run("fetch-dataset", "USA-road-d.NY", "--mirror", blocker, "--dir", d),
                    f"{blocker}: cannot use as the mirror folder (--mirror): a file, not a folder")
    monkeypatch.setenv("GPUBFS_MIRROR", str(tmp_path / "absent"))
    _one_line_error(run("fetch-dataset", "USA-road-d.NY", "--dir", d),
                    f"{tmp_path / 'absent'}: no such mirror folder ($GPUBFS_MIRROR)")
    _one_line_error(run("fetch-dataset", "x", "--file", blocker, "--format", "snap", "--download-only"),
                    "--download-only fills the mirror from the catalogue's URLs: it takes no --url/--file")
    _nothing_cached(d)
    assert blocker.read_text() == "x"


# ---------------------------------------------------------------- broken links in the cache
@pytest.mark.parametrize("kind", ["loops", "points nowhere"])
def test_a_graph_folder_that_is_a_broken_link_is_one_line_in_every_command(tmp_path, kind):
    """run, list datasets, fetch-dataset (--force too) and export each say what the
    folder is and to remove it, before any graph is built; nothing says 'unknown'."""
    cache = tmp_path / "cache"
    cache.mkdir()
    folder = cache / "smoke-grid"
    folder.symlink_to("smoke-grid" if kind == "loops" else tmp_path / "unmounted")
    why = f"dataset 'smoke-grid': {folder} is a symbolic link that {kind}; remove it, then gpubfs fetch-dataset smoke-grid"
    for args in (("fetch-dataset", "smoke-grid"), ("fetch-dataset", "smoke-grid", "--force"),
                 ("export", "smoke-grid", tmp_path / "g.mtx")):
        res = run(*args, "--dir", cache)
        _one_line_error(res, why)
        assert "generating" not in res.output  # refused before the work
    res = run("run", "-d", "smoke-grid", "-s", "cpu.sequential", "--dir", cache, "--out", tmp_path / "r.json")
    assert why in res.output and "Traceback" not in res.output and "Not a directory" not in res.output
    res = run("list", "datasets", "--json", "--dir", cache)
    assert res.exit_code == 0, res.output
    row = {r["name"]: r for r in json.loads(res.stdout)}["smoke-grid"]
    assert (row["cached"], row["broken"]) == (False, why)
    assert folder.is_symlink()


def test_an_empty_array_in_the_cache_is_one_line_not_aborted(tiny_cache, tmp_path):
    (tiny_cache / "tiny" / "row_offsets.npy").write_bytes(b"")
    why = (f"dataset 'tiny': {tiny_cache / 'tiny' / 'row_offsets.npy'}: unreadable as a cached array: empty "
           "(0 bytes); add it again with: gpubfs fetch-dataset tiny --file FILE --format FORMAT --force")
    _one_line_error(run("export", "tiny", tmp_path / "g.mtx", "--dir", tiny_cache), why)
    res = run("list", "datasets", "--dir", tiny_cache)
    assert res.exit_code == 0 and "broken: dataset 'tiny'" in res.stdout, res.output
    rows = {r["name"]: r for r in json.loads(run("list", "datasets", "--json", "--dir", tiny_cache).stdout)}
    assert (rows["tiny"]["cached"], rows["tiny"]["broken"]) == (False, why)


@pytest.mark.parametrize("fmt", ["mtx", "sg"])
def test_export_to_dash_writes_standard_output_the_files_bytes(tiny_cache, tmp_path, fmt):
    import subprocess
    import sys

    assert run("export", "tiny", tmp_path / f"tiny.{fmt}", "--format", fmt, "--dir", tiny_cache).exit_code == 0
    done = subprocess.run([sys.executable, "-m", "gpubfs_cli", "export", "tiny", "-", "--format", fmt,
                           "--dir", tiny_cache], cwd=tmp_path, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (tmp_path / f"tiny.{fmt}").read_bytes()
    assert b"wrote standard output" in done.stderr and not (tmp_path / "-").exists()
