"""Raval et al., "Dynamic Load Balancing Strategies for Graph Applications on GPUs": raval.bs,
.ep, .wd, .ns, .hp for SSSP (strategies.py), one raval.cu for SSSP and BFS (base.py loads
it); the BFS classes in algorithms/bfs/gpu/raval reuse these."""
