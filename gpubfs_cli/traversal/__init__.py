"""Traversals: BfsResult, the Strategy contract and registry, the CPU baseline, validation."""
