"""Datasets: the catalogue (configs/datasets.yaml), downloads, and the CSR cache."""
