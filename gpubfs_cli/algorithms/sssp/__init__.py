"""Single-source shortest paths: the problem (references, checks, metrics) and its CPU baselines."""
