"""The classic GPU BFS columns (Harish, static virtual warps, edge-parallel COO, SpMV): one classic.cu."""
