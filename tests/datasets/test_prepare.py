"""ensure_dataset end to end against the loopback server (with a stand-in reader)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from gpubfs_cli.datasets import prepare, store
from gpubfs_cli.datasets.prepare import add_user_dataset, ensure_dataset
from gpubfs_cli.errors import UserError
from tests.datasets.conftest import tar_gz, write_catalogue

# A 5-cycle plus a chord, each undirected edge once, one duplicate and one self-loop.
EDGES = b"# tiny\n0 1\n1 2\n2 3\n3 4\n4 0\n0 2\n0 2\n3 3\n"


def _entry(url: str, extra: str = "") -> str:
    return f"""  tiny:
    papers: [bfs4k]
    kind: download
    urls: [{url}]
    format: snap
    directed: false
    expected: {{n: 5, m: 12, note: "test table"}}
{extra}"""


@pytest.fixture
def served(http_server, tmp_path, monkeypatch, stand_in_reader, data_dir):
    http_server.files["/tiny.txt"] = EDGES
    write_catalogue(tmp_path / "cat.yaml", _entry(http_server.url("/tiny.txt")), monkeypatch)
    return http_server


def test_fetch_builds_caches_and_records_checksum(served, data_dir):
    g = ensure_dataset("tiny", progress=False)
    assert (g.n, g.m, g.directed) == (5, 12, False)
    assert list(g.neighbors(0)) == [1, 2, 4]
    meta = store.read_meta("tiny", data_dir)
    assert meta["source"]["url"] == served.url("/tiny.txt")
    assert meta["source"]["sha256"] == hashlib.sha256(EDGES).hexdigest()
    assert meta["source"]["sha256_verified"] is False  # first fetch: recorded, not checked
    assert meta["expected"] == {"n": 5, "m": 12, "note": "test table", "n_diff": 0, "m_diff": 0}
    assert meta["policy"]["self_loops"] == "drop" and meta["policy"]["symmetrize"] is True
    assert not (data_dir / store.DOWNLOADS / "tiny").exists()  # the download is removed after the build
    # Cached now: a second call does not touch the network.
    served.log.clear()
    assert ensure_dataset("tiny", progress=False).m == 12
    assert served.log == []


def test_refetch_verifies_recorded_checksum(served, data_dir):
    ensure_dataset("tiny", progress=False)
    changed = EDGES + b"1 3\n"
    served.files["/tiny.txt"] = changed
    recorded = hashlib.sha256(EDGES).hexdigest()
    with pytest.raises(UserError, match=f"^tiny: sha256 of .*/tiny.txt \\(downloaded from .*/tiny.txt\\) is "
                                        f"{hashlib.sha256(changed).hexdigest()}, an earlier fetch recorded {recorded}; "
                                        "the header gives no counts: check it"):
        ensure_dataset("tiny", force=True, progress=False)
    assert store.load_graph("tiny", data_dir).m == 12  # the cached graph is untouched
    served.files["/tiny.txt"] = EDGES
    assert ensure_dataset("tiny", force=True, progress=False).m == 12
    assert store.read_meta("tiny", data_dir)["source"]["sha256_verified"] is True


def test_catalogue_checksum_is_verified(http_server, tmp_path, monkeypatch, stand_in_reader, data_dir):
    http_server.files["/tiny.txt"] = EDGES
    write_catalogue(tmp_path / "c.yaml", _entry(http_server.url("/tiny.txt"), f"    sha256: '{'0' * 64}'\n"), monkeypatch)
    with pytest.raises(UserError, match=f"is {hashlib.sha256(EDGES).hexdigest()}, the catalogue pins {'0' * 64}; "
                                        ".*; the download was deleted$"):
        ensure_dataset("tiny", progress=False)
    assert not store.is_cached("tiny", data_dir) and not (data_dir / "tiny").exists()


def test_404_leaves_no_cache_entry(http_server, tmp_path, monkeypatch, stand_in_reader, data_dir):
    url = http_server.url("/gone.txt")
    write_catalogue(tmp_path / "c.yaml", _entry(url), monkeypatch)
    with pytest.raises(UserError) as exc:
        ensure_dataset("tiny", progress=False)
    assert str(exc.value) == f"cannot download {url}: HTTP 404 Not Found"
    assert not (data_dir / "tiny").exists()


def test_second_url_used_when_first_fails(http_server, tmp_path, monkeypatch, stand_in_reader, data_dir):
    http_server.files["/tiny.txt"] = EDGES
    body = _entry(http_server.url("/gone.txt")).replace(
        f"urls: [{http_server.url('/gone.txt')}]",
        f"urls: [{http_server.url('/gone.txt')}, {http_server.url('/tiny.txt')}]",
    )
    write_catalogue(tmp_path / "c.yaml", body, monkeypatch)
    assert ensure_dataset("tiny", progress=False).m == 12
    assert store.read_meta("tiny", data_dir)["source"]["url"] == http_server.url("/tiny.txt")


def test_off_by_more_than_one_percent_warns(served, tmp_path, monkeypatch, capsys, data_dir):
    write_catalogue(tmp_path / "c2.yaml", _entry(served.url("/tiny.txt")).replace("m: 12", "m: 14"), monkeypatch)
    ensure_dataset("tiny", progress=False)
    err = capsys.readouterr().err
    assert "warning: tiny: m = 12 but the paper lists 14 (test table): off by -2 (-14.3%)" in err
    assert store.read_meta("tiny", data_dir)["expected"]["m_diff"] == -2


def test_policies_keep_self_loops_and_duplicates(served, tmp_path, monkeypatch, data_dir):
    body = _entry(served.url("/tiny.txt")).replace("directed: false", "directed: true\n    self_loops: keep\n    duplicates: keep")
    write_catalogue(tmp_path / "c3.yaml", body, monkeypatch)
    g = ensure_dataset("tiny", progress=False)
    assert g.directed is True and g.m == 8  # every record as given
    assert list(g.neighbors(0)) == [1, 2, 2] and list(g.neighbors(3)) == [3, 4]


def test_multiplicity_expands_values(http_server, tmp_path, monkeypatch, stand_in_reader, data_dir):
    http_server.files["/multi.txt"] = b"0 1 3\n1 2 1\n2 2 2\n"
    body = _entry(http_server.url("/multi.txt")).replace(
        "directed: false", "directed: false\n    self_loops: keep\n    duplicates: keep\n    multiplicity: true"
    )
    write_catalogue(tmp_path / "c.yaml", body, monkeypatch)
    g = ensure_dataset("tiny", progress=False)
    # (0,1) x3 and (1,2) x1 in both directions = 8; a self-loop is one entry: (2,2) x2 = 2.
    assert g.m == 10
    assert list(g.neighbors(0)) == [1, 1, 1]
    assert list(g.neighbors(2)) == [1, 2, 2]


def test_expand_multiplicity_rejects_fractions():
    from gpubfs_cli.graph import EdgeList

    e = EdgeList(np.array([0]), np.array([1]), 2, False, np.array([1.5]))
    with pytest.raises(UserError, match="whole numbers"):
        prepare.expand_multiplicity(e, "x")


def test_user_graph_from_file_and_url(http_server, tmp_path, stand_in_reader, data_dir):
    f = tmp_path / "mine.el"
    f.write_bytes(EDGES)
    g = add_user_dataset("mine", "snap", file=f, undirected=True, progress=False)
    assert (g.n, g.m, g.directed) == (5, 12, False)
    meta = store.read_meta("mine", data_dir)
    assert meta["kind"] == "user" and meta["source"]["file"] == str(f.resolve())
    assert meta["source"]["sha256"] == hashlib.sha256(EDGES).hexdigest()
    # Found again by name, from meta.json (it is in no catalogue).
    assert ensure_dataset("mine", progress=False).m == 12
    assert ensure_dataset("mine", force=True, progress=False).m == 12

    http_server.files["/x.txt"] = EDGES
    g = add_user_dataset("web", "snap", url=http_server.url("/x.txt"), progress=False)
    assert g.directed is True and g.m == 6  # the format's default (directed), loops and duplicates dropped
    with pytest.raises(UserError, match="already cached from another source"):
        add_user_dataset("web", "snap", file=f, progress=False)


def test_user_graph_errors(tmp_path, data_dir):
    with pytest.raises(UserError, match=r"unknown format 'metiz' \(did you mean: metis"):
        add_user_dataset("x", "metiz", file=tmp_path / "a")
    with pytest.raises(UserError, match="no such file"):
        add_user_dataset("x", "metis", file=tmp_path / "absent.graph")
    with pytest.raises(UserError, match="'road-FLA' is a catalogue dataset"):
        add_user_dataset("road-FLA", "metis", file=tmp_path / "a")
    with pytest.raises(UserError, match="exactly one of --url and --file"):
        add_user_dataset("x", "metis")


def test_generated_entry_and_seed_variant(tmp_path, monkeypatch, data_dir):
    calls = []

    def fake_generate(family, params, seed, gpu_xp=None, note=None):
        calls.append((family, params, seed))
        rng = np.random.default_rng(seed)
        from gpubfs_cli.graph import EdgeList

        return EdgeList(rng.integers(0, 50, 200), rng.integers(0, 50, 200), 50, False)

    monkeypatch.setattr(prepare, "_generate", fake_generate)
    write_catalogue(tmp_path / "g.yaml", """  rnd:
    papers: [merrill]
    kind: generated
    generator: gnm
    params: {n: 50, m: 200}
    seed: 7
""", monkeypatch)
    a = ensure_dataset("rnd", progress=False)
    b = ensure_dataset("rnd", seed=8, progress=False)
    assert calls == [("gnm", {"n": 50, "m": 200}, 7), ("gnm", {"n": 50, "m": 200}, 8)]
    assert store.cached_keys(data_dir) == ["rnd", "rnd@seed=8"]
    assert not np.array_equal(np.asarray(a.col_indices), np.asarray(b.col_indices))
    assert store.read_meta("rnd@seed=8", data_dir)["source"] == {"generator": "gnm", "params": {"n": 50, "m": 200}, "seed": 8}
    assert ensure_dataset("rnd@seed=8", progress=False).m == b.m and len(calls) == 2
    with pytest.raises(UserError, match="not generated: --seed does not apply"):
        write_catalogue(tmp_path / "g2.yaml", _entry("http://127.0.0.1:1/x"), monkeypatch)
        ensure_dataset("tiny", seed=3, progress=False)




def test_real_reader_suitesparse_tarball_with_multiplicity(http_server, tmp_path, monkeypatch, data_dir):
    """The kron_g500 path: a SuiteSparse-style tar.gz member, integer symmetric values as multiplicities."""
    mtx = b"%%MatrixMarket matrix coordinate integer symmetric\n4 4 4\n2 1 3\n3 1 1\n4 3 2\n4 4 1\n"
    http_server.files["/multi.tar.gz"] = tar_gz("multi/multi.mtx", mtx)
    write_catalogue(tmp_path / "c.yaml", f"""  multi:
    papers: [merrill]
    kind: download
    urls: [{http_server.url('/multi.tar.gz')}]
    format: mtx
    member: multi/multi.mtx
    directed: false
    self_loops: keep
    duplicates: keep
    multiplicity: true
    expected: {{n: 4, m: 13}}
""", monkeypatch)
    g = ensure_dataset("multi", progress=False)
    # off-diagonal 3 + 1 + 2 = 6 edges, both directions = 12; the loop (4,4) once = 1
    assert (g.n, g.m) == (4, 13)
    assert list(g.neighbors(0)) == [1, 1, 1, 2] and list(g.neighbors(3)) == [2, 2, 3]


def test_real_reader_snap_gzip(http_server, tmp_path, monkeypatch, data_dir, shared_data):
    http_server.files["/p2p.txt.gz"] = (shared_data / "p2p-Gnutella08.txt.gz").read_bytes()
    write_catalogue(tmp_path / "c.yaml", f"""  p2p:
    papers: [bfs4k]
    kind: download
    urls: [{http_server.url('/p2p.txt.gz')}]
    format: snap
    compact_ids: false
    directed: true
    expected: {{n: 6301, m: 20777, note: "SNAP header"}}
""", monkeypatch)
    g = ensure_dataset("p2p", progress=False)
    assert (g.n, g.m, g.directed) == (6301, 20777, True)
    meta = store.read_meta("p2p", data_dir)
    assert meta["source"]["sha256"] == "cb3019062be21e55b03f19a73e88edf34693bafb68ae581621cc7a037fa604a9"
    assert meta["expected"]["m_diff"] == 0


def test_changed_catalogue_entry_warns_on_cached_graph(served, tmp_path, monkeypatch, capsys, data_dir):
    ensure_dataset("tiny", progress=False)
    body = _entry(served.url("/tiny.txt")).replace("directed: false", "directed: false\n    self_loops: keep")
    write_catalogue(tmp_path / "c4.yaml", body, monkeypatch)
    assert ensure_dataset("tiny", progress=False).m == 12  # still the cached graph
    assert "warning: tiny: the catalogue changed self_loops since it was cached" in capsys.readouterr().err
    assert ensure_dataset("tiny", force=True, progress=False).m == 13  # the loop (3,3) kept, once


def test_a_graph_is_generated_on_the_gpu_only_through_the_callers_gpu_xp(monkeypatch, capsys):
    """The dataset layer imports no GPU code: it generates on the array module its caller
    hands in (gpu_xp), and on the CPU without one, when gpu_xp fails (a broken CuPy) or
    when generating there fails (out of GPU memory)."""
    from gpubfs_cli.graph import generators

    gpu = object()
    used = []

    def generate(family, params, seed, xp):
        used.append(xp)
        if xp is gpu and params.get("gpu_fails"):
            raise MemoryError("out of GPU memory")
        return (family, params, seed)

    def broken():
        raise ImportError("a broken CuPy")

    monkeypatch.setattr(generators, "generate", generate)
    assert prepare._generate("gnm", {"n": 4}, 1) == ("gnm", {"n": 4}, 1) and used == [np]
    assert prepare._generate("gnm", {}, 1, lambda: gpu) and used[-1] is gpu
    assert prepare._generate("gnm", {}, 1, lambda: None) and used[-1] is np  # no usable GPU
    assert prepare._generate("gnm", {}, 1, broken) and used[-1] is np
    assert prepare._generate("gnm", {"gpu_fails": True}, 1, lambda: gpu) and used[-2:] == [gpu, np]
    assert "generating gnm on the GPU failed (MemoryError); generating on the CPU" in capsys.readouterr().err


def _gen_entry(tmp_path, monkeypatch, name: str = "rnd") -> None:
    write_catalogue(tmp_path / "gen.yaml", f"""  {name}:
    papers: [merrill]
    kind: generated
    generator: gnm
    params: {{n: 50, m: 200}}
    seed: 7
""", monkeypatch)


def _nothing_cached(data_dir, key: str) -> None:
    assert not store.is_cached(key, data_dir)
    left = [p.name for p in data_dir.iterdir()] if data_dir.is_dir() else []
    assert not [p for p in left if p.startswith(".tmp-") or p == key], left


class OutOfMemoryError(MemoryError):
    """CuPy's OutOfMemoryError: same name, module and attributes."""

    __module__ = "cupy.cuda.memory"

    def __init__(self, size: int, total: int):
        super().__init__(f"Out of memory allocating {size:,} bytes (allocated so far: {total:,} bytes).")
        self._size, self._total = size, total


@pytest.mark.parametrize("step", ["generate", "build", "write"])
def test_out_of_host_memory_is_one_line_and_caches_nothing(step, tmp_path, monkeypatch, data_dir):
    """A MemoryError in any step of a fetch: one UserError line with the dataset, what
    ran out, the step and the sizes; no graph, no temporary folder left behind."""
    from gpubfs_cli.graph import memory

    _gen_entry(tmp_path, monkeypatch)
    monkeypatch.setattr(memory, "available_memory", lambda: 9_100_000_000)

    def fail(*args, **kwargs):
        return np.empty(1 << 50)  # numpy's own MemoryError: 8 PiB asked

    if step == "generate":
        monkeypatch.setattr(prepare, "_generate", fail)
        doing = "generating gnm"
    elif step == "build":
        monkeypatch.setattr(prepare, "build_csr", fail)
        doing = "building the CSR"
    else:
        real = store.checksum.save

        def save(path, arr):
            if str(path).endswith("col_indices.npy"):
                fail()
            return real(path, arr)

        monkeypatch.setattr(store.checksum, "save", save)
        doing = "writing the cache"
    with pytest.raises(UserError) as info:
        ensure_dataset("rnd", progress=False)
    text = str(info.value)
    assert text == (f"dataset 'rnd': out of host memory while {doing} "
                    "(9007199.3 GB asked, 9.1 GB available); the cache is unchanged")
    assert "\n" not in text
    _nothing_cached(data_dir, "rnd")


def test_out_of_gpu_memory_past_the_fallbacks_is_one_line(tmp_path, monkeypatch, data_dir):
    _gen_entry(tmp_path, monkeypatch)

    def fail(*args, **kwargs):
        raise OutOfMemoryError(17_200_000_000, 68_700_000_000)

    monkeypatch.setattr(prepare, "build_csr", fail)
    with pytest.raises(UserError, match=r"^dataset 'rnd': out of GPU memory while building the CSR "
                                        r"\(17\.2 GB asked, 68\.7 GB held by this process\); the cache is unchanged$"):
        ensure_dataset("rnd", progress=False)
    _nothing_cached(data_dir, "rnd")


def test_other_errors_are_not_taken_for_memory(tmp_path, monkeypatch, data_dir):
    _gen_entry(tmp_path, monkeypatch)
    monkeypatch.setattr(prepare, "build_csr", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        ensure_dataset("rnd", progress=False)
    _nothing_cached(data_dir, "rnd")


class _Device:
    """numpy as the GPU's array module, with a free memory to report and a pool."""

    def __init__(self, free: int):
        import types

        self.released = 0
        self.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(memGetInfo=lambda: (free, 80 * 10**9)))

    def get_default_memory_pool(self):
        import types

        def free_all_blocks():
            self.released += 1

        return types.SimpleNamespace(free_bytes=lambda: 0, free_all_blocks=free_all_blocks)

    def __getattr__(self, name):
        return getattr(np, name)


def test_an_edge_list_larger_than_the_free_gpu_memory_is_generated_on_the_cpu(monkeypatch):
    from gpubfs_cli.graph import generators

    params = {"n": 1000, "m": 5000}
    want = generators.generate("gnm", params, 3)
    used, said = [], []
    real = generators.generate

    def generate(family, p, seed, xp):
        used.append(xp)
        return real(family, p, seed, xp)

    monkeypatch.setattr(generators, "generate", generate)
    roomy = _Device(free=generators.device_bytes("gnm", params))
    got = prepare._generate("gnm", params, 3, lambda: roomy, note=said.append)
    assert used == [roomy] and not said
    assert np.array_equal(got.src, want.src) and np.array_equal(got.dst, want.dst)
    small = _Device(free=generators.device_bytes("gnm", params) - 1)
    got = prepare._generate("gnm", params, 3, lambda: small, note=said.append)
    assert used[-1] is np and np.array_equal(got.src, want.src)
    assert said == ["generating on the CPU: the edge list needs about 1.1 GB of GPU memory, 1.1 GB is free"]


def test_a_failed_gpu_generation_frees_the_pool_before_the_cpu_try(monkeypatch, capsys):
    from gpubfs_cli.graph import generators

    device = _Device(free=10**12)

    def generate(family, p, seed, xp):
        if xp is device:
            raise OutOfMemoryError(10**10, 7 * 10**10)
        return "cpu edges"

    monkeypatch.setattr(generators, "generate", generate)
    assert prepare._generate("gnm", {"n": 10, "m": 10}, 1, lambda: device) == "cpu edges"
    assert device.released == 1
    assert "generating gnm on the GPU failed (OutOfMemoryError); generating on the CPU" in capsys.readouterr().err


def test_a_generated_graph_built_in_parts_is_the_graph_built_whole(tmp_path, monkeypatch, data_dir, capsys):
    """The dataset layer's build in parts (a host reading of little free memory) caches
    the same arrays as the build in one part, and says so in its progress."""
    from gpubfs_cli.graph import build as build_mod
    from gpubfs_cli.graph import memory

    write_catalogue(tmp_path / "k.yaml", """  kron:
    papers: [merrill]
    kind: generated
    generator: kronecker
    params: {scale: 10, edgefactor: 16}
    seed: 2
""", monkeypatch)
    whole = ensure_dataset("kron")
    offsets, cols = np.array(whole.row_offsets), np.array(whole.col_indices)
    monkeypatch.setattr(memory, "available_memory", lambda: 0)
    monkeypatch.setattr(build_mod, "HOST_PART_MIN", 5000)
    monkeypatch.setattr(build_mod, "CHUNK_RECORDS", 3001)
    capsys.readouterr()
    parts = ensure_dataset("kron", force=True)
    assert "kron: building the CSR on the CPU in 8 parts of at most 4,645 entries" in capsys.readouterr().err
    assert np.array_equal(parts.row_offsets, offsets) and np.array_equal(parts.col_indices, cols)


def test_a_graph_whose_conversion_cannot_fit_is_refused_before_its_download(http_server, tmp_path, monkeypatch,
                                                                            data_dir):
    """The plan from the catalogue's n and m (datasets/footprint.py) against the host's
    available memory: over it, one line and no request at all."""
    big = _entry(http_server.url("/big.txt")).replace("{n: 5, m: 12", "{n: 50000000, m: 1000000000")
    write_catalogue(tmp_path / "cat.yaml", big, monkeypatch)
    monkeypatch.setattr(prepare, "available_memory", lambda: 4 * 10**9)
    with pytest.raises(UserError, match=r"dataset 'tiny': its conversion needs about \d+ GB of host memory "
                                        r"\(n = 50,000,000, m = 1,000,000,000\), 4.0 GB is available; "
                                        r"nothing was downloaded"):
        ensure_dataset("tiny", progress=False)
    assert http_server.log == [] and not store.is_cached("tiny")
    monkeypatch.setattr(prepare, "available_memory", lambda: 10**12)
    http_server.files["/big.txt"] = b"0 1\n1 2\n"
    assert ensure_dataset("tiny", progress=False).n == 3  # with room, it is fetched (and warned about)
    assert http_server.log == [("/big.txt", None)]
