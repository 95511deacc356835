"""GPU strategies, one module per paper. Each module imports without CuPy."""
