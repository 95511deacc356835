"""What every algorithm and device shares: the Answer, the Problem and Strategy
contracts, their registries, and the device a strategy runs on. Imports no CuPy and
no algorithm."""
