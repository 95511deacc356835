"""Generators at small scale: exact counts, degree properties, determinism, parameter errors."""

from __future__ import annotations

import numpy as np
import pytest

from gpubfs_cli.errors import UserError
from gpubfs_cli.graph.build import build_csr
from gpubfs_cli.graph.generators import DEVICE_FAMILIES, FAMILIES, check, generate, rng
from gpubfs_cli.graph.generators import gnm as gnm_mod
from gpubfs_cli.graph.generators import kronecker as kron_mod
from gpubfs_cli.graph.generators import rmat as rmat_mod
from gpubfs_cli.graph.generators import small_world as sw_mod

SMALL = {
    "rmat": {"n": 1024, "m": 8192},
    "gnm": {"n": 1000, "m": 8000},
    "kronecker": {"scale": 10, "edgefactor": 8},
    "lattice": {"dims": [6, 5, 4]},
    "luo_scalefree": {"n": 20000},
    "forest_fire": {"n": 3000},
    "small_world": {"n": 1000, "k": 4, "p": 0.3},
    "geometric": {"n": 2000},
}


def degrees(e) -> np.ndarray:
    return build_csr(e, self_loops="keep", duplicates="keep").out_degrees()


# ---- random numbers ---------------------------------------------------------------

def test_below_is_floor_of_x_times_n_over_2_64():
    xs = np.array([0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1, 0x0123456789ABCDEF], dtype=np.uint64)
    for n in (1, 2, 3, 1000, 2_000_000, 2**31 - 1, 2**32 - 1):
        got = rng.below(xs.copy(), n, np)
        want = [(int(x) * n) >> 64 for x in xs]
        assert got.tolist() == want


def test_draws_depend_only_on_index():
    key = rng.stream_key(5, 1, 2)
    whole = rng.draws_range(key, 0, 1000, np)
    part = rng.draws(key, np.array([999, 3, 500], dtype=np.uint64), np)
    assert part.tolist() == whole[[999, 3, 500]].tolist()
    assert rng.stream_key(5, 1, 2) != rng.stream_key(5, 1, 3) != rng.stream_key(6, 1, 2)
    u = rng.unit53(whole, np)
    assert 0.0 <= u.min() and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.03


def test_permutation_is_a_permutation_and_seeded():
    p1 = rng.permutation(rng.stream_key(1, 9), 5000, np)
    assert np.array_equal(np.sort(p1), np.arange(5000))
    assert np.array_equal(p1, rng.permutation(rng.stream_key(1, 9), 5000, np))
    assert not np.array_equal(p1, rng.permutation(rng.stream_key(2, 9), 5000, np))


# ---- every family: records, range, determinism --------------------------------------

@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_same_seed_same_edges_other_seed_other_edges(family):
    a = generate(family, SMALL[family], 1)
    b = generate(family, SMALL[family], 1)
    assert np.array_equal(a.src, b.src) and np.array_equal(a.dst, b.dst)
    assert a.src.dtype == np.int32 and a.dst.dtype == np.int32
    assert 0 <= a.src.min() and max(a.src.max(), a.dst.max()) < a.n
    if family != "lattice":  # no randomness
        c = generate(family, SMALL[family], 2)
        assert len(c.src) != len(a.src) or not (np.array_equal(a.src, c.src) and np.array_equal(a.dst, c.dst))


@pytest.mark.parametrize("family", DEVICE_FAMILIES)
def test_size_is_what_generate_makes_and_sizes_the_gpu_memory(family):
    from gpubfs_cli.graph.generators import device_bytes, size

    params = dict(SMALL[family], **({"diagonal": True} if family == "lattice" else {}))
    e = generate(family, params, 3)
    assert size(family, params) == (e.n, e.num_records)
    n, records = e.n, e.num_records
    assert device_bytes(family, params) == 8 * records + 40 * n + (1 << 30)


def test_size_of_the_largest_kronecker_graphs_is_exact():
    from gpubfs_cli.graph.generators import device_bytes, size

    assert size("kronecker", {"scale": 27, "edgefactor": 16}) == (1 << 27, 1 << 31)
    assert size("kronecker", {"scale": 30, "edgefactor": 64}) == (1 << 30, 1 << 36)
    assert device_bytes("kronecker", {"scale": 27, "edgefactor": 16}) == 8 * 2**31 + 40 * 2**27 + 2**30
    with pytest.raises(UserError, match="unknown device generator family 'forest_fire'"):
        size("forest_fire", SMALL["forest_fire"])


def test_unknown_family_and_bad_params_name_the_key():
    with pytest.raises(UserError, match="unknown generator family 'rmatt'.*rmat"):
        generate("rmatt", {}, 1)
    with pytest.raises(UserError, match="missing parameter 'm'"):
        generate("gnm", {"n": 10}, 1)
    with pytest.raises(UserError, match="parameter 'n' must be an integer"):
        generate("rmat", {"n": "big", "m": 10}, 1)
    with pytest.raises(UserError, match="unknown parameter 'edge_factor'"):
        generate("kronecker", {"scale": 4, "edge_factor": 16}, 1)
    with pytest.raises(UserError, match="parameter 'dims'"):
        generate("lattice", {"dims": [3]}, 1)
    with pytest.raises(UserError, match="parameter 'p' must be a number in"):
        generate("small_world", {"n": 100, "k": 2, "p": 1.5}, 1)
    with pytest.raises(UserError, match="seed"):
        generate("gnm", {"n": 10, "m": 10}, -1)
    assert check("rmat", {"n": 16, "m": 4})["d"] == pytest.approx(0.25)


# ---- the device (array) path, run with numpy -------------------------------------

class NumpyUnderAnotherName:
    """numpy that is not `numpy`: generate() then takes the array path it takes for cupy."""

    def __getattr__(self, name):
        return getattr(np, name)


ARRAY_PATH_CASES = [
    ("rmat", {"n": 1000, "m": 30_000}),
    ("rmat", {"n": 4096, "m": 20_000, "a": 0.57, "b": 0.19, "c": 0.19}),
    ("rmat", {"n": 64, "m": 10_000, "gtgraph_b_quirk": False, "self_loops": True}),
    ("gnm", {"n": 3, "m": 10_000}),
    ("gnm", {"n": 1000, "m": 30_000, "directed": False, "self_loops": True}),
    ("kronecker", {"scale": 12, "edgefactor": 4, "directed": True}),
    ("lattice", {"dims": [20, 30, 7], "diagonal": True}),
    ("luo_scalefree", {"n": 30_000}),
    ("small_world", {"n": 5000, "k": 4, "p": 0.3}),
    ("forest_fire", {"n": 500}),
]


@pytest.mark.parametrize(("family", "params"), ARRAY_PATH_CASES, ids=[f"{f}-{i}" for i, (f, _) in enumerate(ARRAY_PATH_CASES)])
def test_array_path_equals_cpu_path(family, params, monkeypatch):
    for mod in (rmat_mod, kron_mod, gnm_mod, sw_mod):
        monkeypatch.setattr(mod, "CHUNK", 4999)  # several chunks, ragged last one
    cpu = generate(family, params, 3)
    dev = generate(family, params, 3, xp=NumpyUnderAnotherName())
    assert (dev.n, dev.directed) == (cpu.n, cpu.directed)
    assert np.array_equal(dev.src, cpu.src) and np.array_equal(dev.dst, cpu.dst)
    assert dev.src.dtype == cpu.src.dtype == np.int32


def test_array_path_cases_cover_every_device_family():
    assert set(DEVICE_FAMILIES) <= {f for f, _ in ARRAY_PATH_CASES}


# ---- R-MAT ------------------------------------------------------------------------

RMAT_CONFIGS = [
    (0.45, 0.15, 0.15, 0.25, 0.05, True, False),
    (0.45, 0.15, 0.15, 0.25, 0.0, False, False),
    (0.57, 0.19, 0.19, 0.05, 0.05, False, True),
]


@pytest.mark.parametrize("n", [2, 1000, 1024])
@pytest.mark.parametrize("cfg", RMAT_CONFIGS)
def test_rmat_numba_equals_array_version(n, cfg):
    key = rng.stream_key(3, rmat_mod.STREAM)
    steps = rmat_mod.steps_of(n)
    m = 20000
    s1, d1 = np.empty(m, np.int32), np.empty(m, np.int32)
    rmat_mod._rmat_numba(np.uint64(key), np.asarray(steps, np.int64), 0, m, *cfg, s1, d1)
    s2, d2 = rmat_mod.rmat_arrays(key, steps, m, cfg, np, chunk=7000)
    assert np.array_equal(s1, s2) and np.array_equal(d1, d2)
    assert cfg[6] or not np.any(s1 == d1)


def test_rmat_counts_and_skew():
    n, m = 2**12, 2**18
    e = generate("rmat", {"n": n, "m": m, "vary": 0.0}, 4)
    assert e.directed and e.num_records == m and not np.any(e.src == e.dst)
    # first level: P(u in top half) = a + b = 0.6, P(v in left half) = a + c = 0.6 (less the
    # redrawn self-loops, which are a + d = 0.7 likely on each level: a small shift)
    top = np.mean(e.src < n // 2)
    left = np.mean(e.dst < n // 2)
    assert 0.59 < top < 0.61 and 0.59 < left < 0.61
    deg = np.bincount(e.src, minlength=n)
    # vertex 0 is the heaviest: m * (a + b)**12 = 571 expected arcs, 9x the average
    assert deg[0] == deg.max() and abs(deg[0] - m * 0.6**12) < 4 * np.sqrt(m * 0.6**12)


def test_rmat_non_power_of_two_reaches_2_to_levels_ids():
    n = 1000  # steps 500, 250, ..., 1: 9 levels, 512 reachable ids, GTgraph's behaviour
    e = generate("rmat", {"n": n, "m": 200_000}, 1)
    reach = np.zeros(1, np.int64)
    for s in rmat_mod.steps_of(n):
        reach = np.union1d(reach, reach + s)
    assert len(reach) == 512
    used = np.union1d(e.src, e.dst)
    assert np.isin(used, reach).all() and len(used) > 500


def test_rmat_gtgraph_b_quirk_favours_b_on_deep_levels():
    base = {"n": 2**10, "m": 2**17, "a": 0.45, "b": 0.15, "c": 0.15}
    plain = generate("rmat", {**base, "gtgraph_b_quirk": False}, 1)
    quirk = generate("rmat", {**base, "gtgraph_b_quirk": True}, 1)
    # last level (9th): quadrant b or d sets bit 0 of v; b grows ~2.5 % a level: 0.42 vs 0.40
    assert np.mean(quirk.dst & 1) > np.mean(plain.dst & 1) + 0.012
    same = generate("rmat", {**base, "vary": 0.0, "gtgraph_b_quirk": True}, 1)
    other = generate("rmat", {**base, "vary": 0.0, "gtgraph_b_quirk": False}, 1)
    assert np.array_equal(same.dst, other.dst)


# ---- G(n, M) ----------------------------------------------------------------------

def test_gnm_counts_and_near_poisson_degrees():
    n, m = 20_000, 400_000
    e = generate("gnm", {"n": n, "m": m}, 7)
    assert e.directed and e.num_records == m and not np.any(e.src == e.dst)
    out = np.bincount(e.src, minlength=n)
    inn = np.bincount(e.dst, minlength=n)
    for deg in (out, inn):
        assert deg.mean() == 20.0
        assert 0.9 < deg.var() / deg.mean() < 1.1  # Poisson: variance = mean
    g = build_csr(e, duplicates="keep")
    assert g.m == m  # duplicates kept (GTgraph)
    u = generate("gnm", {"n": n, "m": m, "directed": False, "self_loops": True}, 7)
    assert not u.directed and np.any(u.src == u.dst)  # n/m self-loops expected: 20


# ---- Kronecker --------------------------------------------------------------------

def test_kronecker_numba_equals_array_version_and_counts():
    key = rng.stream_key(2, kron_mod.STREAM)
    th = (0.76, 0.19 / 0.24, 0.57 / 0.76)
    s1, d1 = np.empty(50_000, np.int32), np.empty(50_000, np.int32)
    kron_mod._kron_numba(np.uint64(key), 12, 0, 50_000, *th, s1, d1)
    s2, d2 = kron_mod.kron_arrays(key, 12, 50_000, th, np, chunk=17_000)
    assert np.array_equal(s1, s2) and np.array_equal(d1, d2)
    e = generate("kronecker", {"scale": 12, "edgefactor": 16}, 2)
    assert e.n == 4096 and e.num_records == 16 * 4096 and not e.directed


def test_kronecker_permutes_labels_only():
    plain = generate("kronecker", {"scale": 11, "edgefactor": 16, "permute": False}, 3)
    perm = generate("kronecker", {"scale": 11, "edgefactor": 16}, 3)
    dp = np.bincount(np.concatenate([plain.src, plain.dst]), minlength=plain.n)
    dq = np.bincount(np.concatenate([perm.src, perm.dst]), minlength=perm.n)
    assert np.array_equal(np.sort(dp), np.sort(dq))  # same degree sequence
    assert dp.argmax() == 0 and dq.argmax() != 0  # unpermuted: vertex 0 is the hub
    # the initiator: P(top half) = a + b = 0.76 before permuting
    assert 0.75 < np.mean(plain.src < plain.n // 2) < 0.77


# ---- lattices ---------------------------------------------------------------------

def test_lattice_2d_exact_degrees_and_counts():
    nx, ny = 7, 5
    e = generate("lattice", {"dims": [nx, ny]}, 0)
    g = build_csr(e)
    assert g.n == 35 and g.m == 2 * ((nx - 1) * ny + nx * (ny - 1))
    deg = g.out_degrees()
    assert np.bincount(deg).tolist() == [0, 0, 4, 2 * (nx - 2) + 2 * (ny - 2), (nx - 2) * (ny - 2)]
    assert sorted(g.neighbors(1 + nx * 1).tolist()) == [1, nx, nx + 2, 1 + 2 * nx]
    assert e.info["center"] == 3 + nx * 2


def test_lattice_3d_and_diagonal_like_merrill():
    nx, ny, nz = 6, 5, 4
    e = generate("lattice", {"dims": [nx, ny, nz]}, 0)
    g = build_csr(e)
    deg = g.out_degrees()
    assert g.m == 2 * (5 * 5 * 4 + 6 * 4 * 4 + 6 * 5 * 3)
    assert np.count_nonzero(deg == 6) == 4 * 3 * 2 and deg.min() == 3
    d = generate("lattice", {"dims": [nx, ny, nz], "diagonal": True}, 0)
    gd = build_csr(d, self_loops="keep", duplicates="drop")
    assert gd.m == g.m + g.n and np.array_equal(gd.out_degrees(), deg + 1)
    # grid7pt.300's count by the same formula: 7 * 300**3 - 6 * 300**2 = 188,460,000
    n = 300
    assert 2 * 3 * (n - 1) * n * n + n**3 == 188_460_000


# ---- Luo's scale-free -------------------------------------------------------------

def test_luo_scalefree_hubs_and_degrees():
    n = 100_000
    e = generate("luo_scalefree", {"n": n}, 5)
    g = build_csr(e)
    deg = g.out_degrees()
    h = 100
    assert np.all(deg[:h] == 1000)
    rest = deg[h:]
    assert rest.max() == 7 and rest.min() == 6 and np.count_nonzero(rest == 7) == h * 1000 - (n - h)
    assert abs(rest.mean() - 6.0) < 0.002
    assert g.m == 2 * h * 1000 + 5 * (n - h) == e.num_records * 2  # no duplicates, no loops


# ---- small world ------------------------------------------------------------------

def test_small_world_ring_then_rewired():
    n, k = 2000, 5
    ring = build_csr(generate("small_world", {"n": n, "k": k, "p": 0.0}, 1))
    assert np.all(ring.out_degrees() == 2 * k) and ring.m == 2 * n * k
    e = generate("small_world", {"n": n, "k": k, "p": 0.3}, 1)
    dist = (e.dst.astype(np.int64) - e.src) % n
    rewired = np.mean(dist > k)
    assert 0.28 < rewired < 0.32 and not np.any(dist == 0)
    g = build_csr(e)
    assert 2 * n * k - 20 <= g.m <= 2 * n * k  # a few coinciding pairs dropped
    assert abs(g.out_degrees().mean() - 2 * k) < 0.02


# ---- forest fire ------------------------------------------------------------------

def test_forest_fire_structure():
    n = 3000
    e = generate("forest_fire", {"n": n}, 11)
    assert e.directed
    assert np.all(e.src > e.dst)  # a new node links to older nodes only
    out = np.bincount(e.src, minlength=n)
    assert out[0] == 0 and np.all(out[1:] >= 1) and out[1] == 1  # ambassador at least
    keys = e.src.astype(np.int64) * n + e.dst
    assert len(np.unique(keys)) == len(keys)  # a node burns once per fire
    inn = np.bincount(e.dst, minlength=n)
    assert inn.max() > 10 * inn.mean()  # heavy-tailed in-degree
    nob = generate("forest_fire", {"n": n, "f": 0.35, "b": 0.0}, 11)
    assert nob.num_records < e.num_records  # backward burning adds links


def test_records_bound_is_exact_for_device_families_and_bounds_the_geometric_graph():
    from gpubfs_cli.graph.generators import records_bound, size

    params = SMALL["rmat"]
    assert records_bound("rmat", params) == size("rmat", params)
    for k in (1, 2, 3):
        e = generate("geometric", {"n": 3000, "k": k}, 5)
        n, bound = records_bound("geometric", {"n": 3000, "k": k})
        assert n == e.n and e.num_records <= bound < 1.6 * (k + 1) * e.num_records  # a bound, and not a loose one
    with pytest.raises(UserError, match="'forest_fire' has no bound on its edge count"):
        records_bound("forest_fire", SMALL["forest_fire"])
