"""SSSP on the GPU: one folder per strategy family, each .cu beside the Python that launches it."""
