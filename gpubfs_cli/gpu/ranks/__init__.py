"""Ranks: one process per GPU for the multi-GPU strategies. Rank 0 lives in the runner's
process; group.py starts and drives ranks 1..N-1 (spawned here, or already running under
an MPI launcher), worker.py is their side, channels.py carries the orders and nccl.py is
the communicator the ranks' GPUs exchange data through."""
