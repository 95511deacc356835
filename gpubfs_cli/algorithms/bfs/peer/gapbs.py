"""peer.gapbs: the GAP benchmark suite's `bfs` binary (Beamer's direction-optimizing BFS,
C++ and OpenMP, built by the user) on the graph exported from the cache, from the run's own sources, on the host of the run.

prepare() writes the graph in gapbs's serialized format (`sg`, graph/io/export.py: the
CSR as it is, loaded in a fraction of a second, where an edge list takes gapbs minutes
to read and build). plan_sources() runs the binary once per source,
`bfs -f G.sg -r SOURCE -n TRIALS -v` with OMP_NUM_THREADS set, and keeps the last
trial's `Trial Time` (gapbs's own timer around its BFS, graph loading excluded; the
trials before it warm up). gapbs prints seconds to 5 decimals, so its times are
multiples of 10 us.

gapbs returns no distances or parents to gpubfs: `-v` has gapbs check each trial's
parent tree against its own serial BFS (`Verification: PASS`), and the sample is valid
when every trial passed, wrong-answer when one failed. Its `Graph has N nodes` line is
checked against the exported graph, so a file gapbs misread is an error, not a sample.
gapbs's BFS always builds the parent tree, and one run per source is all it makes: its
samples are the distance row, and the predecessor row is `unavailable` saying so (a second
row of the same runs' times would read as a measurement it is not). Samples carry
timed_by: peer.gapbs.
The knobs, the export, the runs and their parsing are shared with peer.gapbs for SSSP
(gapbs_common.py).

Knobs: binary (path; else $GPUBFS_GAPBS_BFS; with neither the cell is unavailable, saying
which to set), threads (OMP_NUM_THREADS;
0 = numba's thread count, the one cpu.parallel_do's threads = 0 uses), trials (runs per
source; the last is the sample).
"""

from __future__ import annotations

from gpubfs_cli.algorithms.bfs.peer.gapbs_common import GapbsPeer
from gpubfs_cli.core.strategy import register

ENV = "GPUBFS_GAPBS_BFS"


@register
class GapbsBfs(GapbsPeer):
    section = "peer: GAP benchmark suite BFS (Beamer's direction-optimizing, OpenMP), timed by itself"
    summary = "gapbs's bfs binary on the exported graph, from the same sources, same threads"
    caveats = (
        "times are gapbs's own (its Trial Time, 10 us resolution), not gpubfs's timer; graph loading excluded",
        "checked by gapbs's own verifier (-v: its serial BFS), not by gpubfs",
        "gapbs always builds the parent tree: its one row (distances) is a parent-tree run; no separate predecessor row",
    )
    supports_predecessors = False
    no_predecessors_reason = ("gapbs's BFS always builds the parent tree: its distance row is that run, "
                              "so there is no separate predecessor figure")
    env = ENV
    kernel = "bfs"
    export_format = "sg"  # the CSR as it is: an edge list takes gapbs minutes to build
