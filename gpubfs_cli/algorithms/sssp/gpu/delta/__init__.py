"""sssp.delta (delta-stepping, Meyer and Sanders) and sssp.near_far (Davidson et al.'s
near-far): one persistent cooperative kernel per traversal, delta.cu beside the
launcher (strategies.py). gpubfs's own family (paper key "beyond")."""
