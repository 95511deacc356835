"""The GPU half: CuPy backend probe, kernel loading, device graph, strategies.

Importing this package never imports CuPy; gpubfs_cli.gpu.backend does, on demand.
"""
