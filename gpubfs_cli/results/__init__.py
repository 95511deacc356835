"""The record of a measurement: the results file's schema, the run's journal, the status
rulebook, groups and statistics, cell keys, and what is already measured."""
