"""msbfs.bfs's direction rule replayed on the host from a pass's distances (no GPU).

The kernel decides each level from counts its warps add up: n_f (the vertices some
source's frontier holds), m_f (their out-edges) and m_u (the in-edges of the vertices that
some source of the batch has not reached yet). Top-down -> bottom-up when
``m_f * alpha > m_u``, back when ``n_f * beta < n``, alpha and beta in thousandths
(msbfs.cu). From the batch's BFS distances the same counts, and so the same directions,
follow: the emulated tests check the kernel's counted directions against this replay, and
scripts/msbfs_directions.py replays passes of a results file under other thresholds.
"""

from __future__ import annotations

import numpy as np

# alpha and beta in thousandths, as the kernel reads them
from gpubfs_cli.algorithms.bfs.gpu.msbfs.strategies import MILLI


def pass_counts(dist: np.ndarray, out_deg: np.ndarray, in_deg: np.ndarray,
                m_in: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(n_f, m_f, m_u) per level of the pass whose sources' distances are the rows of
    `dist` (sources x vertices, -1 unreached): the frontier's vertices and out-edges, and
    the in-edges of the vertices not reached by every source at that level's rule."""
    dist = np.asarray(dist)
    levels = int(dist.max()) + 1
    out_deg, in_deg = np.asarray(out_deg, dtype=np.int64), np.asarray(in_deg, dtype=np.int64)
    # the level by which every source has reached v (-1: some source never does)
    everyone = np.where((dist >= 0).all(axis=0), dist.max(axis=0), -1)
    # level L's rule sees m_u less the vertices every source has reached by distance L
    # (their last source labelled them in level L - 1, whose warps counted them out)
    m_u = m_in - np.cumsum(np.bincount(everyone[everyone >= 0], weights=in_deg[everyone >= 0],
                                       minlength=levels).astype(np.int64))
    n_f, m_f = np.zeros(levels, dtype=np.int64), np.zeros(levels, dtype=np.int64)
    for L in range(levels):
        frontier = (dist == L).any(axis=0)
        n_f[L], m_f[L] = int(frontier.sum()), int(out_deg[frontier].sum())
    return n_f, m_f, m_u


def directions(n_f, m_f, m_u, n: int, alpha: float, beta: float, bottom_up: bool = True) -> list[int]:
    """The direction of each level (1 bottom-up) as msbfs.cu decides it from the counts."""
    if not bottom_up:
        return [0] * len(n_f)
    a, b = round(float(alpha) * MILLI), round(float(beta) * MILLI)
    bu, out = False, []
    for nf, mf, mu in zip(np.asarray(n_f).tolist(), np.asarray(m_f).tolist(), np.asarray(m_u).tolist(), strict=True):
        if not bu and mf * a > mu * MILLI:
            bu = True
        elif bu and nf * b < n * MILLI:
            bu = False
        out.append(int(bu))
    return out
