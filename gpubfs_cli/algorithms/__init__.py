"""The algorithms gpubfs measures, one folder each: its Problem, references, checks and strategies."""
