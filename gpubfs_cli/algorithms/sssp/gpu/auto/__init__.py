"""auto.sssp: no paper of its own. It measures a graph in prepare() and hands the graph to
the registered SSSP strategy (with its knobs) that won on the most similar graph of a
measured run: the decision table gpubfs_cli/algorithms/sssp/auto_table.yaml, written by
scripts/build_auto_table.py --problem sssp from results files."""
