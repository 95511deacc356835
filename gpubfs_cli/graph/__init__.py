"""Graphs: edge lists, the CSR builder and degree statistics."""

from gpubfs_cli.graph.build import build_csr
from gpubfs_cli.graph.csr import CSRGraph, GraphStats
from gpubfs_cli.graph.edges import EdgeList

__all__ = ["CSRGraph", "EdgeList", "GraphStats", "build_csr"]
