#!/usr/bin/env bash
# Session 13's device plan (issue 14), one part per call: do.bfs's mid-frontier mode (a
# team of CTAs runs mid-size top-down frontiers with its own barrier).
#   M  the do.* GPU tests; time per level on grid5pt.5000 and the path with the team's
#      size swept (levels.sh do-levels); the fixed cost of do.bfs beside merrill.hybrid
#   D  do.bfs with the mode off and on, taking turns, on the low-diameter graphs
#   V  make test-gpu without BFS-4K/Raval (carry .peers); the levels again, the fixed cost
#   G  do.yaml: do.bfs (the mode on by default) beside Gunrock on the target graphs
#   T2a T2b S as session 11
source "$(dirname "$0")/lib.sh"
part=${1:-M}
clocks "$part"
case "$part" in
M)
  step 240 do-tests python3 -m pytest -q -p no:cacheprovider -rfE -n 4 tests/algorithms/bfs/gpu/test_do.py \
    tests/algorithms/bfs/gpu/test_strategies.py -k "do."
  tail -4 logs/do-tests.log
  step 60 probe python3 scripts/barrier_probe.py
  cat logs/probe.log
  LIMIT=${LEVELS_LIMIT:-300} bash "$(dirname "$0")/levels.sh" do-levels > logs/levels.log 2>&1
  cat logs/levels.log
  step 100 fixed-cost python3 scripts/fixed_cost.py --samples 30 --only do.bfs do.top_down merrill.hybrid \
    --knobs mid_frontier=0
  cat logs/fixed-cost.log
  ;;
D)
  step 560 do-mid python3 -m gpubfs_cli run configs/experiments/do-mid.yaml
  tail -30 logs/do-mid.log
  ;;
V)
  step 560 test-gpu-1 make test-gpu PYTHON=python3 PYTEST_ARGS="$T1_ARGS"
  tail -8 logs/test-gpu-1.log
  LIMIT=${LEVELS_LIMIT:-200} bash "$(dirname "$0")/levels.sh" do-levels > logs/levels.log 2>&1
  cat logs/levels.log
  step 100 fixed-cost python3 scripts/fixed_cost.py --samples 30 --only do.bfs do.top_down merrill.hybrid \
    lbbfs.balanced_redistribution --knobs mid_frontier=0
  cat logs/fixed-cost.log
  ;;
G)
  step 400 do-gunrock python3 -m gpubfs_cli run configs/experiments/do.yaml
  tail -30 logs/do-gunrock.log
  ;;
T2a|T2b|S) bash "$(dirname "$0")/session11.sh" "$part" ;;
*) echo "unknown part $part (M D V G T2a T2b S)"; exit 2;;
esac
cat logs/steps.txt
