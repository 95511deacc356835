"""SSSP on the CPU: the binary-heap Dijkstra baseline and scipy's Dijkstra as a cross-check."""
