"""Synthetic graph generators: one module per family, all pure (params, seed, xp) -> EdgeList.

`generate(family, params, seed, xp)` is the entry point (`gpubfs fetch-dataset` calls it
for catalogue entries of kind `generated`). `xp` is numpy or cupy: every family except
forest_fire computes its edges with the same counter-based random numbers (rng.py) on
either, so CPU and GPU give byte-identical edges for the same params and seed.
forest_fire is sequential and always runs on the CPU (numba); geometric (road-like
stand-ins) needs scipy's k-d tree and also runs on the CPU.

The EdgeList is directed or not as the family defines it (GTgraph rmat/gnm and SNAP
forest fire: directed arcs; Graph 500 Kronecker, lattices, small world, Luo's
scale-free: undirected); the catalogue entry's policy (self_loops, duplicates) is
applied by build_csr afterwards.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gpubfs_cli.errors import UserError, unknown_name
from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.graph.generators import (
    forest_fire,
    geometric,
    gnm,
    kronecker,
    lattice,
    luo_scalefree,
    rmat,
    small_world,
)

_MODULES = {
    "rmat": rmat,
    "gnm": gnm,
    "kronecker": kronecker,
    "lattice": lattice,
    "luo_scalefree": luo_scalefree,
    "forest_fire": forest_fire,
    "small_world": small_world,
    "geometric": geometric,
}
FAMILIES: dict[str, Callable[..., EdgeList]] = {k: getattr(m, k) for k, m in _MODULES.items()}

# Families whose edges are computed with xp (numpy or cupy) and agree to the bit.
DEVICE_FAMILIES = ("rmat", "gnm", "kronecker", "lattice", "luo_scalefree", "small_world")


def check(family: str, params: dict | None) -> dict:
    """The family's parameters resolved with their defaults, without generating anything.

    Raises UserError like `generate` (unknown family, missing, bad or unknown key).
    """
    if family not in _MODULES:
        raise unknown_name("generator family", str(family), FAMILIES)
    return _MODULES[family].parse(params)


# Peak GPU bytes of generating: the edge list (two int32 ids per record), a vertex
# permutation (keys, indices, the sort's scratch, int32 labels) and one chunk's draws
# and masks (a few million records of 8-byte temporaries).
RECORD_BYTES = 8
VERTEX_BYTES = 40
CHUNK_BYTES = 1 << 30


def size(family: str, params: dict | None) -> tuple[int, int]:
    """(vertices, edge records) that `generate` makes, without generating (a device family)."""
    if family not in DEVICE_FAMILIES:
        raise unknown_name("device generator family", str(family), DEVICE_FAMILIES)
    return _MODULES[family].size(check(family, params))


def records_bound(family: str, params: dict | None) -> tuple[int, int]:
    """(vertices, at most this many edge records) that `generate` makes, without
    generating: a device family's exact size, else the family's own bound; UserError for
    a family that has none (its count is only known once generated)."""
    if family in DEVICE_FAMILIES:
        return size(family, params)
    bound = getattr(_MODULES.get(family), "records_bound", None)
    if bound is None:
        raise UserError(f"generator family '{family}' has no bound on its edge count before generating")
    return bound(check(family, params))


def device_bytes(family: str, params: dict | None) -> int:
    """About the most GPU memory that generating `family` with `params` holds at once."""
    n, records = size(family, params)
    return RECORD_BYTES * records + VERTEX_BYTES * n + CHUNK_BYTES


def generate(family: str, params: dict | None, seed: int, xp=np) -> EdgeList:
    """The edges of `family` with `params` and `seed`, as numpy (xp=numpy) or cupy arrays.

    Unknown family, a missing or bad parameter, or a bad seed raise UserError naming it.
    """
    fn = FAMILIES.get(family)
    if fn is None:
        raise unknown_name("generator family", str(family), FAMILIES)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise UserError(f"generator {family}: seed must be an integer >= 0 (got {seed!r})")
    return fn(params, seed, xp)


__all__ = ["FAMILIES", "DEVICE_FAMILIES", "check", "device_bytes", "generate", "size"]
