"""peer.gunrock (SSSP): Gunrock's SSSP binary (the sssp example of gunrock/gunrock
"essentials", built by the user for the GPU at hand) on the weighted graph exported from
the cache. The same user-facing name as the BFS peer: the registry keeps names per problem.

prepare() writes the graph as Matrix Market with its weights (`wmtx`, graph/io/export.py:
`coordinate integer`, the weight in the third column; Gunrock parses it as double and
keeps it as float32). plan_sources() runs the binary once over every source, twice in a
row like the peer's run.sh (the first pass warms up); traverse(source) answers with the
second pass's time for that source from the metrics JSON's `process_times` (ms, CUDA events
around Gunrock's enact(): the initial frontier and every advance/filter iteration;
parsing, upload and per-run set-up excluded). The running and parsing are the BFS peer's
(bfs/peer/gunrock_common.py).

Gunrock returns no distances, so nothing is checked by gpubfs: `--validate` compares ONLY
the last source with Gunrock's own CPU Dijkstra (exact float equality; stdout `Number of
errors : N`); that source's sample is valid (N = 0) or wrong-answer, every other one
valid = null, and each sample's counter peer_checked says which (peer_errors: N on the
checked one). Samples carry timed_by: peer.gunrock. gpubfs's own measures (reach, largest
distance, edges) come from the baseline's answer for the same source.

Gunrock's SSSP is a frontier Bellman-Ford (advance with atomicMin on float32 distances, no
buckets) and keeps weights and distances in float32: sums past 2^24 are rounded, on its GPU
and CPU sides alike, so its check cannot see it.

Knobs: binary (the binary or the folder holding it; else $GPUBFS_GUNROCK_SSSP; with neither
the cell is unavailable, saying which to set), load_balance (the advance's load balance:
block_mapped, Gunrock's default, thread_mapped or merge_path; others are refused as
run.sh refuses them), check_all (every source checked by Gunrock: bfs/peer/gunrock_common.py).
"""

from __future__ import annotations

from gpubfs_cli.algorithms.bfs.peer.gunrock_common import (
    CHECKED_CAVEAT,
    RUN_CAVEAT,
    GunrockKnobs,
    GunrockPeer,
)
from gpubfs_cli.core.strategy import register

ENV = "GPUBFS_GUNROCK_SSSP"


@register
class GunrockSssp(GunrockPeer):
    problem = "sssp"
    section = "peer: Gunrock essentials SSSP (frontier Bellman-Ford, float32), timed by itself"
    summary = "Gunrock's SSSP binary on the exported weighted graph, from the same sources"
    caveats = (
        "times are Gunrock's own (CUDA events around its enact(), its process_times), not gpubfs's timer",
        CHECKED_CAVEAT,
        "weights and distances are float32 in Gunrock: exact only below 2^24",
        RUN_CAVEAT,
    )
    Knobs = GunrockKnobs
    env = ENV
    example = "sssp"
    export_format = "wmtx"
