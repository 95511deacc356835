"""SSSP edge weights: the rule (deterministic, symmetric, in range), its record in
meta.json, lazy weights for caches without weights.npy, and file weights kept."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from gpubfs_cli.datasets import prepare, store
from gpubfs_cli.datasets.catalogue import load_catalogue, parse_catalogue
from gpubfs_cli.datasets.prepare import add_user_dataset, ensure_dataset
from gpubfs_cli.datasets.weights import DEFAULT_RANGE, ensure_weights, recorded_meta
from gpubfs_cli.errors import UserError
from gpubfs_cli.graph import EdgeList, build_csr
from gpubfs_cli.graph.weights import HASH, WeightRule, pair_weights, rule_weights

from .conftest import write_catalogue


def _lookup(g, u, v):
    lo, hi = int(g.row_offsets[u]), int(g.row_offsets[u + 1])
    j = lo + int(np.searchsorted(g.col_indices[lo:hi], v))
    return int(g.weights[j])


def test_pair_weights_deterministic_symmetric_in_range():
    rng = np.random.default_rng(0)
    u, v = rng.integers(0, 10**9, 100_000), rng.integers(0, 10**9, 100_000)
    w = pair_weights(u, v, 0, 100, 5)
    np.testing.assert_array_equal(w, pair_weights(u, v, 0, 100, 5))
    np.testing.assert_array_equal(w, pair_weights(v, u, 0, 100, 5))
    assert w.min() == 0 and w.max() == 100
    assert abs(np.bincount(w).std() / np.bincount(w).mean()) < 0.05  # near-uniform
    assert (w != pair_weights(u, v, 0, 100, 6)).mean() > 0.9  # the seed matters
    one = pair_weights(np.array([3]), np.array([7]), 1, 100, 0)
    assert 1 <= int(one[0]) <= 100
    assert pair_weights(np.array([0, 1]), np.array([0, 1]), 7, 7, 0).tolist() == [7, 7]


def test_rule_weights_symmetric_and_independent_of_how_the_graph_was_built():
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, 300, 2000), rng.integers(0, 300, 2000)
    a = build_csr(EdgeList(src, dst, 300, False))
    order = rng.permutation(2000)
    b = build_csr(EdgeList(dst[order], src[order], 300, False))  # other order, reversed pairs
    rule = WeightRule(0, 255, 3)
    wa = rule_weights(a, rule)
    np.testing.assert_array_equal(wa, rule_weights(b, rule))
    rows = np.repeat(np.arange(300), np.diff(a.row_offsets))
    np.testing.assert_array_equal(wa, pair_weights(rows, a.col_indices, rule.lo, rule.hi, rule.seed))  # one formula
    assert wa.dtype == np.int32
    # every entry (u, v) has the weight of its mirror (v, u): keys u * n + v are sorted
    rows = np.repeat(np.arange(300), np.diff(a.row_offsets))
    keys = rows * 300 + a.col_indices
    mirror = np.searchsorted(keys, a.col_indices.astype(np.int64) * 300 + rows)
    np.testing.assert_array_equal(keys[mirror], a.col_indices.astype(np.int64) * 300 + rows)
    np.testing.assert_array_equal(wa[mirror], wa)


def test_catalogue_states_a_rule_for_every_graph():
    cat = load_catalogue()
    expected = {"rmat": (0, 100), "gnm": (0, 100), "kronecker": (0, 255)}
    for e in cat.entries.values():
        if e.kind == "generated" and e.generator == "geometric":  # Euclidean lengths, kept
            assert e.weights and e.weight_range is None, e.name
        elif e.kind == "generated":
            assert e.weight_range == expected.get(e.generator, (1, 100)), e.name
        elif e.format == "dimacs9":
            assert e.weights and e.weight_range is None, e.name
        else:
            assert not e.weights, e.name
    assert cat.get("kron_g500-logn20").weight_range == (0, 255)
    assert cat.get("rmat20").weight_range == (0, 100) and cat.get("ER23").weight_range == (0, 100)
    assert cat.get("luo-grid-1M").weight_range == DEFAULT_RANGE


@pytest.mark.parametrize(
    "value, message",
    [("[1]", "expected [lo, hi]"), ("[5, 2]", "expected 0 <= lo <= hi"), ("[-1, 3]", "expected 0 <= lo <= hi"),
     ("[1, 2.5]", "expected [lo, hi]")],
)
def test_bad_weight_range_is_one_line(value, message):
    body = f"datasets:\n  g:\n    kind: generated\n    generator: gnm\n    weight_range: {value}\n"
    with pytest.raises(UserError, match=re.escape(f"c.yaml: dataset 'g': key 'weight_range': {message}")):
        parse_catalogue(body, "c.yaml")
    body = "datasets:\n  r:\n    kind: download\n    urls: [http://x/y]\n    format: dimacs9\n" \
           "    weights: true\n    weight_range: [1, 2]\n"
    with pytest.raises(UserError, match="not allowed with 'weights: true'"):
        parse_catalogue(body, "c.yaml")


def _fake_generate(family, params, seed, gpu_xp=None, note=None):
    rng = np.random.default_rng(seed)
    return EdgeList(rng.integers(0, 60, 300), rng.integers(0, 60, 300), 60, False)


GENERATED = """  rnd:
    kind: generated
    generator: gnm
    params: {{n: 60, m: 300}}
    weight_range: {range}
    seed: 7
    directed: false
"""


def test_generated_graph_gets_weights_lazily_and_records_the_rule(tmp_path, monkeypatch, data_dir):
    monkeypatch.setattr(prepare, "_generate", _fake_generate)
    write_catalogue(tmp_path / "a.yaml", GENERATED.format(range="[0, 10]"), monkeypatch)
    g = ensure_dataset("rnd", progress=False)
    folder = data_dir / "rnd"
    rule = {"rule": "hash", "hash": HASH, "range": [0, 10], "seed": 7}
    assert store.read_meta("rnd")["weights"] == rule  # recorded at build, made on first use
    assert g.weights is None and not (folder / "weights.npy").exists()

    w = ensure_weights(g).weights
    np.testing.assert_array_equal(w, rule_weights(g, WeightRule(0, 10, 7)))
    assert w.dtype == np.int32 and w.min() >= 0 and w.max() <= 10
    meta = store.read_meta("rnd")
    assert meta["weights"] == {**rule, "file": "weights.npy", "dtype": "int32"}
    assert meta["files"]["weights.npy"] == (folder / "weights.npy").stat().st_size
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no temporary left

    again = ensure_weights(store.load_graph("rnd"))
    assert isinstance(again.weights, np.memmap)  # read back, not recomputed
    np.testing.assert_array_equal(again.weights, w)
    # rule weights are never loaded without their rule being checked
    assert store.load_graph("rnd").weights is None

    # a changed rule in the catalogue is noticed and the weights are made again
    write_catalogue(tmp_path / "b.yaml", GENERATED.format(range="[50, 60]"), monkeypatch)
    w2 = ensure_weights(store.load_graph("rnd")).weights
    assert w2.min() >= 50 and w2.max() <= 60
    assert store.read_meta("rnd")["weights"]["range"] == [50, 60]

    # a seed variant uses its own seed
    b = ensure_dataset("rnd", seed=8, progress=False)
    ensure_weights(b)
    assert store.read_meta("rnd@seed=8")["weights"]["seed"] == 8


def test_cache_from_before_weights_gets_them_without_rebuild(tmp_path, monkeypatch, data_dir):
    monkeypatch.setattr(prepare, "_generate", _fake_generate)
    write_catalogue(tmp_path / "a.yaml", GENERATED.format(range="[1, 100]"), monkeypatch)
    g = ensure_dataset("rnd", progress=False)
    meta_path = data_dir / "rnd" / "meta.json"
    meta = json.loads(meta_path.read_text())
    del meta["weights"]  # as written before this change
    meta_path.write_text(json.dumps(meta))
    rows_before = (data_dir / "rnd" / "row_offsets.npy").stat().st_mtime_ns

    w = ensure_weights(store.load_graph("rnd")).weights
    np.testing.assert_array_equal(w, rule_weights(g, WeightRule(1, 100, 7)))
    assert (data_dir / "rnd" / "row_offsets.npy").stat().st_mtime_ns == rows_before
    assert store.read_meta("rnd")["weights"]["file"] == "weights.npy"


GR = """c parallel arcs 1->2 with weights 9 and 4; 2->3 weight 0
p sp 4 5
a 1 2 9
a 2 1 9
a 1 2 4
a 2 3 0
a 3 4 7
"""


def _road_entry(url, weights=True):
    return f"""  road:
    kind: download
    urls: [{url}]
    format: dimacs9
    directed: false
    weights: {'true' if weights else 'false'}
"""


def test_dimacs_weights_are_kept(tmp_path, monkeypatch, data_dir):
    gr = tmp_path / "road.gr"
    gr.write_text(GR)
    write_catalogue(tmp_path / "a.yaml", _road_entry(gr.as_uri()), monkeypatch)
    g = ensure_dataset("road", progress=False)
    assert store.read_meta("road")["weights"] == {"rule": "file"}
    assert g.weights is not None and g.weights.dtype == np.int32
    assert (_lookup(g, 0, 1), _lookup(g, 1, 0)) == (4, 4)  # the lightest parallel arc
    assert (_lookup(g, 1, 2), _lookup(g, 2, 1), _lookup(g, 2, 3)) == (0, 0, 7)
    assert g.m == 6
    assert ensure_weights(g) is g


def test_dimacs_cached_without_weights_asks_for_a_rebuild(tmp_path, monkeypatch, data_dir):
    gr = tmp_path / "road.gr"
    gr.write_text(GR)
    write_catalogue(tmp_path / "a.yaml", _road_entry(gr.as_uri(), weights=False), monkeypatch)
    ensure_dataset("road", progress=False)
    meta_path = data_dir / "road" / "meta.json"
    meta = json.loads(meta_path.read_text())
    del meta["weights"]  # cached before `weights: true` and before weight records
    meta_path.write_text(json.dumps(meta))
    write_catalogue(tmp_path / "b.yaml", _road_entry(gr.as_uri()), monkeypatch)
    with pytest.raises(UserError, match="cached without the weights of its file; rebuild it: "
                                        "gpubfs fetch-dataset road --force"):
        ensure_weights(store.load_graph("road"))


def test_user_graphs_keep_file_weights_or_get_the_default_rule(tmp_path, data_dir):
    wel = tmp_path / "g.wel"
    wel.write_text("0 1 5.0\n1 2 2.5\n")
    g = add_user_dataset("mine", "snap", file=wel, progress=False)
    assert g.weights.tolist() == [5.0, 2.5]  # real weights kept as they are
    assert store.read_meta("mine")["weights"] == {"rule": "file"}

    el = tmp_path / "g.el"
    el.write_text("0 1\n1 2\n2 0\n")
    g = add_user_dataset("plain", "snap", file=el, progress=False)
    assert store.read_meta("plain")["weights"] == {"rule": "hash", "hash": HASH, "range": [1, 100], "seed": 0}
    w = ensure_weights(g).weights
    np.testing.assert_array_equal(w, rule_weights(g, WeightRule(1, 100, 0)))


def test_no_weights_and_no_rule_is_one_line(tmp_path, data_dir):
    g = build_csr(EdgeList(np.array([0]), np.array([1]), 2, True), name="nowhere")
    with pytest.raises(UserError, match="graph 'nowhere' has no edge weights and no rule"):
        ensure_weights(g, data_dir)
    el = tmp_path / "g.el"
    el.write_text("0 1\n")
    add_user_dataset("old", "snap", file=el, progress=False)
    meta_path = data_dir / "old" / "meta.json"
    meta = json.loads(meta_path.read_text())
    del meta["weights"]  # a user graph cached before weights were kept
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(UserError) as exc:
        ensure_weights(store.load_graph("old"))
    assert "no rule to make them" in str(exc.value) and "--force" in str(exc.value)
    assert "\n" not in str(exc.value)


def test_dropped_duplicates_keep_the_lightest_weight_within_rows_only():
    # row 0: 1, 1, 2; row 1: 2 (same column as row 0's last, another row); row 2: none; row 3: 0, 0
    src = np.array([0, 0, 0, 1, 3, 3])
    dst = np.array([1, 1, 2, 2, 0, 0])
    w = np.array([7, 3, 5, 4, 9, 8])
    merged = build_csr(EdgeList(src, dst, 4, True, w), duplicates="drop", keep_weights=True)
    assert merged.row_offsets.tolist() == [0, 2, 3, 3, 4]
    assert merged.col_indices.tolist() == [1, 2, 2, 0]
    assert merged.weights.tolist() == [3, 5, 4, 8]
    rows = np.repeat(np.arange(4), np.diff(merged.row_offsets))
    again = build_csr(EdgeList(rows, merged.col_indices, 4, True, merged.weights), keep_weights=True)
    assert again.weights.tolist() == merged.weights.tolist()


def test_rule_option_gives_a_file_weighted_graph_the_rule_beside_its_own(tmp_path, monkeypatch, data_dir):
    gr = tmp_path / "road.gr"
    gr.write_text(GR)
    write_catalogue(tmp_path / "a.yaml", _road_entry(gr.as_uri()), monkeypatch)
    plain = ensure_dataset("road", progress=False)
    folder = data_dir / "road"
    own = (folder / "weights.npy").read_bytes()
    arrays = {f: (folder / f).stat().st_mtime_ns for f in ("row_offsets.npy", "col_indices.npy")}

    def no_build(*args, **kwargs):
        raise AssertionError("the option must not build the graph again")

    monkeypatch.setattr(prepare, "build_dataset", no_build)
    g = ensure_dataset("road@weights=rule", progress=False)
    assert g.name == "road@weights=rule" and g.weights is None  # the cached CSR, weights to come
    np.testing.assert_array_equal(g.col_indices, plain.col_indices)
    assert not (data_dir / "road@weights=rule").exists()

    w = ensure_weights(g).weights
    rule = WeightRule(*DEFAULT_RANGE, 0)  # a download's: the default range, seed 0
    np.testing.assert_array_equal(w, rule_weights(g, rule))
    assert (folder / "weights.npy").read_bytes() == own  # the file's weights never overwritten
    meta = store.read_meta("road")
    assert meta["weights"] == {"rule": "file"}
    assert meta["rule_weights"] == {**rule.to_dict(), "file": "weights-rule.npy", "dtype": "int32"}
    assert {f: (folder / f).stat().st_mtime_ns for f in arrays} == arrays
    again = ensure_weights(ensure_dataset("road@weights=rule", progress=False))
    assert isinstance(again.weights, np.memmap)  # read back, not recomputed
    np.testing.assert_array_equal(again.weights, w)

    # the plain name (and @weights=file) keep the file's distances; the records say which
    for name in ("road", "road@weights=file"):
        same = ensure_dataset(name, progress=False)
        assert same.name == "road" and (_lookup(same, 0, 1), _lookup(same, 3, 2)) == (4, 7)
    assert recorded_meta("road")["weights"] == {"rule": "file"}
    assert recorded_meta("road@weights=rule")["weights"] == rule.to_dict()
    # checked on load like the graph's other arrays: a changed byte is one line
    data = bytearray((folder / "weights-rule.npy").read_bytes())
    data[-1] ^= 1
    (folder / "weights-rule.npy").write_bytes(bytes(data))
    with pytest.raises(UserError, match=r"weights-rule\.npy does not match the sha256 recorded"):
        ensure_dataset("road@weights=rule", progress=False)


def test_weights_option_on_a_rule_weighted_graph_and_bad_values(tmp_path, monkeypatch, data_dir):
    monkeypatch.setattr(prepare, "_generate", _fake_generate)
    write_catalogue(tmp_path / "a.yaml", GENERATED.format(range="[0, 10]"), monkeypatch)
    assert ensure_dataset("rnd@weights=rule", progress=False).name == "rnd"  # its normal rule
    assert ensure_dataset("rnd@seed=8@weights=rule", progress=False).name == "rnd@seed=8"
    with pytest.raises(UserError) as exc:
        ensure_dataset("rnd@weights=file", progress=False)
    assert str(exc.value) == ("dataset 'rnd' has no weights of its own (SSSP weights it by its rule): "
                              "@weights=file does not apply; name it rnd or rnd@weights=rule")
    with pytest.raises(UserError, match=r"^dataset 'rnd@weights=miles': @weights=miles is not an option; "
                                        r"expected @weights=file .*, @weights=rule .* or @weights=graph500"):
        ensure_dataset("rnd@weights=miles", progress=False)
    with pytest.raises(UserError, match=r"^dataset 'rnd@weights=rule@weights=file': @weights= is given twice$"):
        ensure_dataset("rnd@weights=rule@weights=file", progress=False)


def test_graph500_option_gives_any_graph_uniform_weights_in_units_of_2_to_the_minus_24(tmp_path, monkeypatch,
                                                                                       data_dir):
    """NAME@weights=graph500: the Graph 500 SSSP kernel's weights in [0, 1) as integers k
    (weight k / 2^24, a float32 exactly), cached apart from the graph's own, the unit
    recorded; the plain name keeps its rule's weights."""
    monkeypatch.setattr(prepare, "_generate", _fake_generate)
    write_catalogue(tmp_path / "a.yaml", GENERATED.format(range="[0, 10]"), monkeypatch)
    plain = ensure_weights(ensure_dataset("rnd", progress=False))
    g = ensure_dataset("rnd@weights=graph500", progress=False)
    assert g.name == "rnd@weights=graph500" and g.weights is None
    w = ensure_weights(g).weights
    seed = store.read_meta("rnd")["source"]["seed"]
    np.testing.assert_array_equal(w, rule_weights(g, WeightRule(0, 2**24 - 1, seed)))
    assert w.dtype == np.int32 and 0 <= w.min() and w.max() < 2**24
    assert len(np.unique(w)) > 0.45 * len(w)  # each edge both ways; 24 bits: hardly two edges alike
    np.testing.assert_array_equal((w.astype(np.float32) * np.float32(2**-24)).astype(np.float64) * 2**24, w)
    assert plain.weights.max() <= 10  # the plain graph's own rule, untouched
    record = recorded_meta("rnd@weights=graph500")["weights"]
    assert record == {**WeightRule(0, 2**24 - 1, seed).to_dict(), "unit": 2.0**-24}
    assert store.read_meta("rnd")["graph500_weights"]["file"] == "weights-graph500.npy"
    again = ensure_weights(ensure_dataset("rnd@weights=graph500", progress=False))
    assert isinstance(again.weights, np.memmap)  # read back, not recomputed
    assert ensure_weights(ensure_dataset("rnd@seed=8@weights=graph500", progress=False)).weights is not None
