#!/usr/bin/env bash
# Device session 8 (issues 14, 17), one part per call (each under 10 minutes):
#   T1 time per level with do.bfs's new small-frontier mode (levels.sh), then make
#      test-gpu without BFS-4K/Raval
#   T2 make test-gpu's BFS-4K/Raval half; do.* GPU tests again (knob default changed);
#      fixed cost with the launch floor
#   DO do.bfs with the mode off and on against Gunrock on the three target graphs
#      (100 sources, warm L2; run once, before the default went to off)
#   P  the launch floor under the fixed cost; do.bfs's per-level profile, mode on and off
#   S  make test-gpu-sanitize; do.bfs cold L2
#   (the auto.bfs held-out check is session7.sh's C and A parts run again: not run, no device time left)
#   M  merrill.hybrid at every CTA size on the paper's graphs
source "$(dirname "$0")/lib.sh"
part=${1:-T1}
clocks "$part"
T2_ARGS="-p no:cacheprovider -rfE --maxfail=30 -n 4 tests/algorithms/bfs/gpu/test_bfs4k.py \
  tests/algorithms/bfs/gpu/test_raval.py tests/algorithms/sssp/gpu/test_raval.py"
TARGETS=g500-s20-ef16,uniform-n21-e26,kron_g500-logn20-gen
case "$part" in
T1)
  LIMIT=190 bash scripts/device/levels.sh > logs/levels.log 2>&1
  tail -14 logs/levels.log
  step 390 test-gpu-1 make test-gpu PYTHON=python3 PYTEST_ARGS="$T1_ARGS"
  tail -12 logs/test-gpu-1.log
  ;;
T2)
  step 470 test-gpu-2 make test-gpu PYTHON=python3 PYTEST_ARGS="${T2_ARGS/-n 4/-n 8}"
  tail -8 logs/test-gpu-2.log
  # do.bfs's small_frontier default went from 512 to 0 after T1: its GPU tests again
  step 80 test-gpu-do make test-gpu PYTHON=python3 PYTEST_ARGS="-p no:cacheprovider -rfE -n 4 \
    tests/algorithms/bfs/gpu/test_do.py tests/algorithms/bfs/gpu/test_strategies.py -k do."
  tail -4 logs/test-gpu-do.log
  step 40 fixed-cost python3 scripts/fixed_cost.py --samples 30 --floor --json results/fixed_cost.json \
    --only do.bfs merrill.hybrid lbbfs.hybrid
  cat logs/fixed-cost.log
  ;;
DO)
  # do.bfs with the mode off (default) and on beside Gunrock (do.top_down and merrill.hybrid: session 7)
  grep -v '^  - do.top_down$\|^  - merrill.hybrid$' configs/experiments/do.yaml > /tmp/do-ab.yaml
  step 240 do-warm python3 -m gpubfs_cli run /tmp/do-ab.yaml -d $TARGETS --sources 100 --out results/do-warm.json
  python3 -m gpubfs_cli report results/do-warm.json --format md > logs/do-warm-report.md 2>&1
  python3 -m gpubfs_cli report results/do-warm.json --metric gteps --format md >> logs/do-warm-report.md 2>&1
  head -40 logs/do-warm-report.md
  ;;
S)
  step 330 sanitize make test-gpu-sanitize PYTHON=python3
  tail -4 logs/sanitize.log
  step 130 do-cold python3 -m gpubfs_cli run configs/experiments/do.yaml --l2 cold -s do.bfs -s merrill.hybrid \
    -d $TARGETS --sources 100 --out results/do-cold.json
  python3 -m gpubfs_cli report results/do-cold.json --format md > logs/do-cold-report.md 2>&1
  head -20 logs/do-cold-report.md
  ;;
P)
  # what the small-frontier mode's exit costs on a low-diameter graph (from a source where
  # the mode cost +82 us in part DO), and the launch floor under the fixed cost
  step 60 fixed-cost python3 scripts/fixed_cost.py --samples 30 --floor --only do.bfs --json results/fixed_cost.json
  cat logs/fixed-cost.log
  printf '%s\n' 'name: do-profile' 'datasets: [g500-s20-ef16]' 'strategies:' \
    '  - {name: do.bfs, knobs: {profile: true, small_frontier: [0, 512]}}' 'fixed_sources: [480062]' \
    'warmup: 2' 'validate: all' 'require_gpu: true' > /tmp/do-profile.yaml
  step 120 do-profile python3 -m gpubfs_cli run /tmp/do-profile.yaml --out results/do-profile.json
  python3 scripts/device/do_profile.py results/do-profile.json
  ;;
M)
  step 400 merrill-cta python3 -m gpubfs_cli run configs/experiments/merrill-cta.yaml --out results/merrill-cta.json
  python3 -m gpubfs_cli report results/merrill-cta.json --format md > logs/merrill-cta-report.md 2>&1
  python3 -m gpubfs_cli report results/merrill-cta.json --metric gteps --format md >> logs/merrill-cta-report.md 2>&1
  head -30 logs/merrill-cta-report.md
  ;;
*) echo "unknown part $part (T1 T2 DO P S M)"; exit 2;;
esac
cat logs/steps.txt
