"""GTgraph generator output (.gr): DIMACS 9 syntax, as Bader-Research/GTgraph writes it.

Differences that matter: its comment lines carry tabs, a graph written "on the fly"
can leave a whitespace-only line behind (both are skipped by the DIMACS 9 reader), and
duplicate arcs are kept: they stay in the EdgeList and the CSR builder decides.
"""

from __future__ import annotations

from gpubfs_cli.graph.edges import EdgeList
from gpubfs_cli.graph.io import dimacs9
from gpubfs_cli.graph.io.text import TextReader

NAME = "gtgraph"
SUFFIXES = (".gr",)
SUMMARY = "GTgraph output: DIMACS 9 syntax with tabbed comments; duplicate arcs kept"


def read(reader: TextReader, directed: bool | None = None) -> EdgeList:
    return dimacs9.read(reader, directed, fmt=NAME)
