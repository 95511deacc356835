"""Raval et al., "Dynamic Load Balancing Strategies for Graph Applications on GPUs", for BFS:
the SSSP strategies of algorithms/sssp/gpu/raval on unit weights (raval.cu compiled with
RAVAL_SSSP=0: int32 levels, no weights)."""
