"""gpubfs's Python API: load a graph, traverse it with any registered strategy, run a run
config as `gpubfs run` does, and read results files into a table (docs/api.md).

    import gpubfs
    g = gpubfs.load_graph("smoke-gnm")
    answer = gpubfs.bfs(g, 0, "cpu.scipy", check=True)
    doc = gpubfs.run("smoke", datasets=["smoke-grid"], strategies=["cpu.*"], sources=2)
    rows = gpubfs.read_results(doc.path)        # pandas.DataFrame(rows)

The implementation is gpubfs_cli's; this package is its public face and imports it
lazily: `import gpubfs` loads neither numpy nor CuPy nor any strategy, each function
imports what it calls. Bad input raises UserError, one line, as the command line says it.
"""

from __future__ import annotations

from gpubfs.graphs import load_graph
from gpubfs.runs import RunDocument, read_results, run
from gpubfs.traverse import bfs, sssp, strategies
from gpubfs_cli import __version__
from gpubfs_cli.errors import UserError

__all__ = ["RunDocument", "UserError", "__version__", "bfs", "load_graph", "read_results", "run", "sssp",
           "strategies"]
