#!/usr/bin/env bash
# merrill.cu before (.ab/merrill.cu and .ab/merrill.cuh, saved from the commit before its
# gathering moved onto gpu/include/expand.cuh) against the checkout: merrill.hybrid and
# merrill.two_phase, through kernel_ab.sh. Under 4 minutes on an H100.
#   bash scripts/device/gather_ab.sh
M=gpubfs_cli/algorithms/bfs/gpu/merrill
FILES="$M/merrill.cu $M/merrill.cuh" STRATEGIES=merrill.hybrid,merrill.two_phase \
  exec bash "$(dirname "$0")/kernel_ab.sh"
