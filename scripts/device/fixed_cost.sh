#!/usr/bin/env bash
# Issue 14, section 3 (fixed cost per traversal) on the H100, from the repo root:
#   1. scripts/fixed_cost.py: every GPU strategy from a vertex of a 2-vertex component,
#      median of 50 after warm-up, against the 30 us target (logs/fixed-cost.log, and
#      the samples in results/fixed_cost.json);
#   2. the GPU tests that a warm traverse() allocates no device memory
#      (tests/gpu/test_fixed_cost.py, every registered GPU strategy).
source "$(dirname "$0")/lib.sh"
nvidia-smi > logs/nvidia-smi.txt 2>&1
step 400 fixed-cost python3 scripts/fixed_cost.py --samples 50 --json results/fixed_cost.json
cat logs/fixed-cost.log
step 500 fixed-cost-test env GPUBFS_REQUIRE_GPU=1 python3 -m pytest -q -p no:cacheprovider -rfE tests/gpu/test_fixed_cost.py
tail -30 logs/fixed-cost-test.log
