"""Luo, Wong, Hwu (DAC 2010): UIUC-BFS, hierarchical queues and kernels."""
