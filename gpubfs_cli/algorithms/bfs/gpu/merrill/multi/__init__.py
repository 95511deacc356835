"""The pieces of merrill.multi_gpu (Merrill et al. PPoPP'12, section 6): partitioning,
the exchange bookkeeping and the per-rank level loop (pure array code, numpy or CuPy),
the communicators (NCCL, or threads for the CPU simulation) and the rank processes."""
