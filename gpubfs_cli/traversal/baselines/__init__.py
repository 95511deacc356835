"""CPU strategies: the sequential baseline and the reference rows (scipy, networkx)."""
