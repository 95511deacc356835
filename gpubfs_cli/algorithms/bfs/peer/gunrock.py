"""peer.gunrock: Gunrock's BFS binary (the bfs example of gunrock/gunrock "essentials", built
by the user for the GPU at hand) on the graph exported from the cache.

prepare() writes the graph as Matrix Market (graph/io/export.py) into a temporary folder;
plan_sources() runs the binary once over every source, twice in a row like the peer's
run.sh (the first pass warms up), with --validate and --export_metrics; traverse(source)
then answers with the second pass's time for that source from the metrics JSON's
`process_times` (ms, CUDA events around Gunrock's traversal, set-up excluded). A source
listed twice gets its first time. The running and parsing are shared with Gunrock's SSSP
peer (bfs/peer/gunrock_common.py).

Gunrock returns no distances, so nothing is checked by gpubfs: `--validate` compares ONLY
the last source with Gunrock's own CPU BFS (stdout `Number of errors : N`); that source's
sample is valid (N = 0) or wrong-answer, every other one valid = null, and each sample's
counter peer_checked says which (peer_errors: N on the checked one). Samples carry
timed_by: peer.gunrock. The rate's edge count comes from the baseline's answer.

Knobs: binary (the binary or the folder holding it; else $GPUBFS_GUNROCK_BFS; with neither
the cell is unavailable, saying which to set), load_balance (the advance's load balance:
block_mapped, Gunrock's default and its fastest on uniform graphs, thread_mapped, or
merge_path, its fastest on skewed ones; others are refused as run.sh refuses them),
check_all (each source but the last run once more alone, untimed, so that Gunrock checks
every sample: bfs/peer/gunrock_common.py).
"""

from __future__ import annotations

from gpubfs_cli.algorithms.bfs.peer.gunrock_common import (
    CHECKED_CAVEAT,
    RUN_CAVEAT,
    GunrockKnobs,
    GunrockPeer,
)
from gpubfs_cli.core.strategy import register

ENV = "GPUBFS_GUNROCK_BFS"


@register
class GunrockBfs(GunrockPeer):
    section = "peer: Gunrock essentials BFS (push, no direction optimization), timed by itself"
    summary = "Gunrock's BFS binary on the exported graph, from the same sources"
    caveats = (
        "times are Gunrock's own (CUDA events around its traversal, its process_times), not gpubfs's timer",
        CHECKED_CAVEAT,
        RUN_CAVEAT,
    )
    Knobs = GunrockKnobs
    env = ENV
    example = "bfs"
    export_format = "mtx"
