"""gpubfs: reproduce the tables of five GPU BFS papers on today's GPUs."""

__version__ = "0.1.0"
