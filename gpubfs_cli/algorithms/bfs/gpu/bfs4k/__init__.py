"""Busato, Bombieri, "BFS-4K: an efficient implementation of BFS for Kepler GPU
architectures" (IEEE TPDS 2015): one strategy, bfs4k.bfs4k, every technique a knob."""
