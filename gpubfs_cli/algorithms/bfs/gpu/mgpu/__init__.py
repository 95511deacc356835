"""mgpu.*: gpubfs's own multi-GPU BFS (direction-optimizing, one process per GPU, NCCL)."""
