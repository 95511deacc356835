"""Peers: other projects' SSSP binaries run on gpubfs's exported graphs and sources, timed
and checked by themselves (docs/peers.md)."""
