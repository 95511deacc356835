"""BFS on the CPU: the sequential baseline and the reference rows (scipy, networkx)."""
