"""Direction-optimizing BFS (after Beamer et al., SC'12): gpubfs's own GPU family, kept
apart from the five papers' strategies (paper key "beyond")."""
