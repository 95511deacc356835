"""sssp.regions: region-local asynchronous SSSP, one persistent cooperative kernel per
traversal, regions_sssp.cu beside the launcher (strategies.py). gpubfs's own (paper key
"beyond")."""
