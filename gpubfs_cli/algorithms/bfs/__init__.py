"""Breadth-first search: the problem (references, checks, metrics), CPU baselines and GPU families."""
