"""auto.bfs: no paper of its own. It measures a graph in prepare() and hands the graph to
the registered strategy (with its knobs) that won on the most similar graph of a measured
catalogue run: the decision table gpubfs_cli/algorithms/bfs/auto_table.yaml, written by
scripts/build_auto_table.py from results files."""
