"""Benchmark harness: sources, runner, timing, statistics, results files, environment."""
