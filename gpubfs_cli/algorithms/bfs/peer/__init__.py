"""Peers: other projects' BFS binaries run on gpubfs's exported graphs and sources, timed
and checked by themselves (docs/peers.md)."""
