"""Reports from results files: tables (terminal, Markdown, CSV, JSON, HTML), paper layouts
with published numbers beside measured ones, comparisons, and plots.

Flow: load.py (files -> one pool) -> aggregate.py (groups, cells) -> build.py / layouts.py
(documents of tables) -> render.py (formats); plots.py draws from the same groups;
papers.py reads configs/papers/*.yaml. command.py is what the CLI calls.
"""
