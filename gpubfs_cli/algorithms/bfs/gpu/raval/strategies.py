"""raval.bs, raval.ep, raval.wd, raval.ns, raval.hp for BFS: the paper runs BFS through the
same data-driven worklist code as SSSP (section IV), so these are the SSSP classes of
algorithms/sssp/gpu/raval/strategies.py (where the sections, adaptations and knobs are
described) registered for the BFS problem. raval.cu is compiled for BFS with
RAVAL_SSSP=0: int32 levels, every edge of weight 1, no stamps (each round's worklist is
exactly one BFS level, and a vertex is pushed by the one atomicMin that reaches it
first). Parents: any in-neighbour one level up, in one pass after the levels.
"""

from __future__ import annotations

from gpubfs_cli.algorithms.sssp.gpu.raval import strategies as sssp
from gpubfs_cli.core.strategy import register


@register
class RavalBsBfs(sssp.RavalBs):
    problem = "bfs"


@register
class RavalEpBfs(sssp.RavalEp):
    problem = "bfs"


@register
class RavalWdBfs(sssp.RavalWd):
    problem = "bfs"


@register
class RavalNsBfs(sssp.RavalNs):
    problem = "bfs"


@register
class RavalHpBfs(sssp.RavalHp):
    problem = "bfs"
