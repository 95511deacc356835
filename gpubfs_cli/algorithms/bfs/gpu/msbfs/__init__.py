"""Bit-parallel multi-source BFS on the GPU (after Then et al., PVLDB 2014, with Beamer's
direction optimization): gpubfs's own GPU family, kept apart from the five papers'
strategies (paper key "beyond")."""
