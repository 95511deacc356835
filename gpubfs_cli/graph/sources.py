"""Source vertices for a graph: one list per graph, which every strategy runs from.

They depend on the graph alone (its degrees, its name, a seed), so they live with the
graph: the runner and auto.bfs's depth probe draw them alike.

Random sources are drawn with a seeded numpy Generator among vertices of
out-degree >= 1, always without replacement: asked for more than there are, the run
starts once from each of them (and says so: a repeated source adds no information); the list is
drawn once per graph and every strategy runs on it, so comparisons are paired. The
generator is seeded with (seed, CRC-32 of the graph's name), so two graphs of the
same size do not get the same vertex ids; a caller may give the name to seed with
(a dataset's weights option keeps the plain graph's sources: paired rows).
Explicit sources (`--source V`) replace random ones, and so does a dataset's fixed
source (meta.json `fixed_source`, e.g. the centre of Luo's grids) unless explicit
sources were given.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gpubfs_cli.errors import UserError
from gpubfs_cli.graph.csr import CSRGraph


@dataclass(frozen=True)
class SourceList:
    vertices: list[int]
    origin: str  # "random", "explicit" or "fixed_source"
    note: str | None = None  # what the user should know: fewer sources than asked for


def random_sources(graph: CSRGraph, count: int, seed: int, name: str | None = None) -> list[int]:
    """`count` distinct sources among vertices of out-degree >= 1 (all vertices if none has
    an edge); every candidate once, shuffled, when there are fewer than `count`. `name`
    (default the graph's) seeds the draw with `seed`."""
    if count < 1:
        raise UserError(f"sources: {count} is not a positive count")
    if graph.n == 0:
        raise UserError(f"graph {graph.name or '(unnamed)'} has no vertices to start from")
    candidates = np.flatnonzero(graph.out_degrees() >= 1)
    if len(candidates) == 0:
        candidates = np.arange(graph.n)
    rng = np.random.default_rng([seed, zlib.crc32((graph.name if name is None else name).encode())])
    # A prefix of one seeded permutation: the first k of `--sources N` are the
    # list `--sources k` gives, so a short CPU run pairs with a long GPU run.
    picked = candidates[rng.permutation(len(candidates))[:count]]
    return [int(v) for v in picked]


def check_vertices(graph: CSRGraph, vertices: Sequence[int], what: str) -> list[int]:
    out = []
    for v in vertices:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise UserError(f"{what}: {v!r} is not a vertex id (expected an integer)")
        if not 0 <= int(v) < graph.n:
            raise UserError(
                f"{what}: vertex {v} is out of range for {graph.name or 'the graph'} "
                f"(0 <= v < {graph.n:,})"
            )
        out.append(int(v))
    return out


def fixed_source_of(meta: dict | None, name: str = "") -> int | None:
    """The dataset's fixed source from its meta.json, or None.

    meta["fixed_source"] (a vertex id) when the dataset layer resolved it; else the
    catalogue entry's value: a vertex id, or 'center', which the lattice generator
    recorded as input_info.center.
    """
    meta = meta or {}
    value = meta.get("fixed_source")
    if value is None:
        value = (meta.get("entry") or {}).get("fixed_source")
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if value == "center":
        center = (meta.get("input_info") or {}).get("center")
        if isinstance(center, int) and not isinstance(center, bool):
            return center
    raise UserError(
        f"dataset {name}: meta.json fixed_source {value!r} does not name a vertex "
        "(re-fetch it with --force, or run with --source V)"
    )


def choose_sources(
    graph: CSRGraph,
    *,
    count: int = 100,
    seed: int = 0,
    explicit: Sequence[int] | None = None,
    meta: dict | None = None,
    explicit_from: str = "--source",
    name: str | None = None,
) -> SourceList:
    """The sources every strategy runs from on `graph`: explicit > fixed_source > random.
    `explicit_from` is what an error in the explicit ones names (the flag, or a config's key);
    `name` seeds the random draw (random_sources)."""
    if explicit:
        return SourceList(check_vertices(graph, explicit, explicit_from), "explicit")
    fixed = fixed_source_of(meta, graph.name)
    if fixed is not None:
        vertices = check_vertices(graph, [fixed], f"{graph.name} meta.json fixed_source")
        note = None
        if count > 1:
            note = (f"runs from its one fixed source, vertex {vertices[0]:,} (the dataset's fixed_source), "
                    f"not {count} random sources")
        return SourceList(vertices, "fixed_source", note)
    vertices = random_sources(graph, count, seed, name)
    note = None
    if len(vertices) < count:
        note = (f"{count} sources asked for, but only {len(vertices):,} vertices have an out-edge: "
                f"runs from each of them once")
    return SourceList(vertices, "random", note)
