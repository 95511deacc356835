"""Merrill, Garland, Grimshaw (PPoPP 2012): four strategies over one persistent kernel."""
