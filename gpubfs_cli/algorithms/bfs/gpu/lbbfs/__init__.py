"""Load-balanced breadth-first search on GPUs (work redistribution by merge-path expand,
then neighbour gathering): four couplings of the two phases over one persistent kernel."""
