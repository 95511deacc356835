#!/usr/bin/env bash
# Device session 4 (issue 10, the architecture move): the GPU suite after the move, the
# smoke and Merrill configs (same distances: every answer is checked against
# cpu.sequential; results files now carry `problem`), and the per-level config that
# replaced scripts/bench_gpu_levels.py. Part A and part B fit one call each.
source "$(dirname "$0")/lib.sh"
part=${1:-A}
if [ "$part" = A ]; then
  nvidia-smi > logs/nvidia-smi.txt 2>&1
  step 30 info python3 -m gpubfs_cli info
  step 420 test-gpu make test-gpu PYTHON=python3 PYTEST_ARGS="-q -p no:cacheprovider"
  tail -3 logs/test-gpu.log
  step 60 run-smoke python3 -m gpubfs_cli run configs/experiments/smoke.yaml --out results/smoke.json
  tail -25 logs/run-smoke.log
else
  step 280 run-merrill python3 -m gpubfs_cli run configs/experiments/merrill.yaml --out results/merrill.json
  step 200 run-levels python3 -m gpubfs_cli run configs/experiments/gpu-levels.yaml --out results/gpu-levels.json
  step 60 report-merrill python3 -m gpubfs_cli report --paper merrill results/merrill.json
  step 30 report-levels python3 -m gpubfs_cli report results/gpu-levels.json --metric us_level --format md
  tail -30 logs/run-merrill.log; cat logs/report-levels.log
fi
cat logs/steps.txt
