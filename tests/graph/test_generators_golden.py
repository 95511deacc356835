"""Golden digests: every generator family at a small size and a fixed seed, hashed.

A cached graph is named by its catalogue entry and seed, so a generator whose random
stream changes silently changes every cached graph (and every number measured on it).
These digests change only when the edges do: a changed digest means a changed stream,
which needs a new cache key or a deliberate update of this table, never a quiet edit.

The digests cannot move with numpy's version: the generators draw from their own
counter-based splitmix64 (generators/rng.py: integer arithmetic and exact float64
conversions, no numpy Generator or PCG64 stream), their permutations sort unique keys
(any sort algorithm gives one order), and the arrays are hashed in a fixed dtype and
byte order. The weights rule (datasets/weights.py) is hashed the same way.

To update after a deliberate change: `python tests/graph/test_generators_golden.py`
prints the table.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from gpubfs_cli.graph.build import build_csr
from gpubfs_cli.graph.generators import FAMILIES, generate
from gpubfs_cli.graph.weights import WeightRule, rule_weights

SEED = 7
# (family, params): each family once at its defaults, and the options that take
# another path through its stream.
CASES = {
    "rmat": ("rmat", {"n": 512, "m": 4096}),
    "rmat-noquirk-novary-loops": ("rmat", {"n": 512, "m": 4096, "gtgraph_b_quirk": False, "vary": 0.0,
                                           "self_loops": True}),
    "gnm": ("gnm", {"n": 500, "m": 3000}),
    "gnm-undirected-loops": ("gnm", {"n": 500, "m": 3000, "directed": False, "self_loops": True}),
    "kronecker": ("kronecker", {"scale": 9, "edgefactor": 8}),
    "kronecker-directed-unpermuted": ("kronecker", {"scale": 9, "edgefactor": 8, "directed": True,
                                                    "permute": False}),
    "lattice": ("lattice", {"dims": [6, 5, 4]}),
    "lattice-diagonal": ("lattice", {"dims": [7, 6], "diagonal": True}),
    "luo_scalefree": ("luo_scalefree", {"n": 3000}),
    "forest_fire": ("forest_fire", {"n": 1500}),
    "small_world": ("small_world", {"n": 600, "k": 4, "p": 0.3}),
    "geometric": ("geometric", {"n": 800}),
}

GOLDEN = {
    'forest_fire': {'edges': 'bb852110e235fc0ae02b', 'row_offsets': 'd1fecda4d3ff73de88c6', 'col_indices': '556d5d1ec75f08d7b157', 'weights': 'dd334a3443fc4b67a04f', 'n_m': '1500 5000 1'},
    'geometric': {'edges': '4a0deb89c22892accd58', 'row_offsets': 'f32859366cb24ede8ab1', 'col_indices': 'f29185a539a0e098327a', 'weights': '52c4f1f5f52f0d35279f', 'n_m': '800 2148 0'},
    'gnm': {'edges': 'b85fa83203ec9b64dd4e', 'row_offsets': 'acb7211043645fef1833', 'col_indices': 'c982f7d83d51d7201f63', 'weights': '58e0e79542320dea9539', 'n_m': '500 2987 1'},
    'gnm-undirected-loops': {'edges': '05df29d9ea2e1a4b6391', 'row_offsets': '5af6e25eba1305a2fbc0', 'col_indices': '07dc4bae1501c32f6bb3', 'weights': '2741045a7d04f576d6f1', 'n_m': '500 5932 0'},
    'kronecker': {'edges': '9ed9e08fd9c589deda30', 'row_offsets': 'bc5825670b85eed76dd0', 'col_indices': 'ca9befe61108fa8a096e', 'weights': 'c0c6e5c28cd489e55504', 'n_m': '512 5690 0'},
    'kronecker-directed-unpermuted': {'edges': '1fcc4c24a208ac11e435', 'row_offsets': '4a93e9f7e04544a6a154', 'col_indices': '75fb1b52554f97698835', 'weights': 'a9e343174aade9e6b4f2', 'n_m': '512 3199 1'},
    'lattice': {'edges': '92b495c576aab5ad0ee6', 'row_offsets': 'dd7f7f73481f161cefde', 'col_indices': 'a6e24d8f8226c73f752f', 'weights': '45aaa697aa5a57257cfa', 'n_m': '120 572 0'},
    'lattice-diagonal': {'edges': '70a69746a9e18a7ff815', 'row_offsets': '64a80c96869f47df477e', 'col_indices': 'b5a27088f03e3dcf87ee', 'weights': 'd444d909072b38d1e617', 'n_m': '42 142 0'},
    'luo_scalefree': {'edges': 'a933f96462382174b3bf', 'row_offsets': 'f1c73d4f0b5c1ec66c03', 'col_indices': '101e63d0e409a8a10eb8', 'weights': '10757607248eab5cdbe2', 'n_m': '3000 20984 0'},
    'rmat': {'edges': '0aebe4678512d712b9de', 'row_offsets': '95b38c467880395bdbd6', 'col_indices': '5848703fec63e186ecc7', 'weights': '88c210b4e9842bad7f18', 'n_m': '512 3955 1'},
    'rmat-noquirk-novary-loops': {'edges': '1e96e4d677524ecf9d68', 'row_offsets': '7bf5f9b02137b785064e', 'col_indices': '2845ed1184e5e0dac249', 'weights': '66a968a1d33458284783', 'n_m': '512 3779 1'},
    'small_world': {'edges': '1288d934ecf226e685ff', 'row_offsets': '90ee78379b9231ed08ce', 'col_indices': 'a8842bc2fbe246869308', 'weights': '3e1f7c877dd1ca23a89a', 'n_m': '600 4798 0'},
}


def sha(a) -> str:
    """sha256 of an integer array as little-endian int64 (whatever dtype it came in)."""
    a = np.asarray(a)
    assert a.dtype.kind in "iu"
    return hashlib.sha256(np.ascontiguousarray(a, dtype="<i8").tobytes()).hexdigest()[:20]


def digests(family: str, params: dict) -> dict[str, str]:
    e = generate(family, params, SEED)
    g = build_csr(e)
    w = rule_weights(g, WeightRule(1, 100, SEED))
    return {"edges": sha(np.concatenate([np.asarray(e.src), np.asarray(e.dst)])),
            "row_offsets": sha(g.row_offsets), "col_indices": sha(g.col_indices),
            "weights": sha(w), "n_m": f"{g.n} {g.m} {int(g.directed)}"}


def test_every_family_has_a_golden_case():
    assert {family for family, _ in CASES.values()} == set(FAMILIES)
    assert set(GOLDEN) == set(CASES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_generator_stream_is_unchanged(case):
    family, params = CASES[case]
    assert digests(family, params) == GOLDEN[case], (
        f"{case}: the generated graph changed (see this file's docstring before updating GOLDEN)"
    )


def test_the_digest_sees_a_single_changed_edge():
    family, params = CASES["gnm"]
    e = generate(family, params, SEED)
    g = build_csr(e)
    cols = g.col_indices.copy()
    cols[-1] = (cols[-1] + 1) % g.n
    assert sha(cols) != sha(g.col_indices)
    assert sha(g.col_indices.astype(np.int32)) == sha(g.col_indices.astype(np.int64))


if __name__ == "__main__":
    for name in sorted(CASES):
        print(f"    {name!r}: {digests(*CASES[name])!r},")
