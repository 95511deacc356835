#!/usr/bin/env bash
# The next device session's plan (issues 14, 17), one part per call, most needed first.
# Session 8 left: T2 unfinished (cut at 470 s on a cold machine, 1,440 passed, none
# failed), the sanitizer not run, do.bfs's small-frontier exit cost not found, the
# growth rule and the parallel first touch of cpu.parallel_* not measured.
#   T1 make test-gpu without BFS-4K/Raval (~270 s)
#   T2a T2b make test-gpu's BFS-4K/Raval half (1,481 tests, over 470 s cold at -n 8): the
#      BFS files (909 tests), then Raval's SSSP (572), each in one call
#   S2 make test-gpu-sanitize (four sanitizer processes at once)
#   S  the small-frontier exit probe (parked CTAs x counters);
#      fixed cost with the launch floor
#   L  time per level (small-frontier and growth variants); do.yaml beside Gunrock
#   P  cpu-parallel on the 16-core host; merrill.hybrid at every CTA size
#   C1 C2 the auto held-out check: session7.sh C and A (about 900 s together)
source "$(dirname "$0")/lib.sh"
part=${1:-T1}
clocks "$part"
T2_ARGS="-p no:cacheprovider -rfE --maxfail=30 -n 8 --durations=12"
TARGETS=g500-s20-ef16,uniform-n21-e26,kron_g500-logn20-gen
case "$part" in
T1)
  step 560 test-gpu-1 make test-gpu PYTHON=python3 PYTEST_ARGS="$T1_ARGS"
  tail -8 logs/test-gpu-1.log
  ;;
T2a)
  step 580 test-gpu-2a make test-gpu PYTHON=python3 \
    PYTEST_ARGS="$T2_ARGS tests/algorithms/bfs/gpu/test_bfs4k.py tests/algorithms/bfs/gpu/test_raval.py"
  tail -20 logs/test-gpu-2a.log
  ;;
T2b)
  step 580 test-gpu-2b make test-gpu PYTHON=python3 PYTEST_ARGS="$T2_ARGS tests/algorithms/sssp/gpu/test_raval.py"
  tail -20 logs/test-gpu-2b.log
  ;;
S2)
  # The first try (one sanitizer process) was cut at 360 s; four at once took 315 s
  # (merrill.multi_gpu's NCCL set-up alone 242 s); six now.
  step 420 sanitize make test-gpu-sanitize PYTHON=python3 SANITIZE_ARGS="--jobs 6"
  tail -4 logs/sanitize.log
  ;;
S)
  # Does the mode's per-entry cost (+29 us, session 8) grow with the parked CTAs, and is
  # it in the timing build only?
  printf '%s\n' 'name: do-small-probe' 'datasets: [g500-s20-ef16]' 'strategies:' \
    '  - {name: do.bfs, knobs: {small_frontier: [512, 0], blocks_per_sm: [0, 1], counters: [false, true]}}' \
    'sources: 30' 'seed: 0' 'warmup: 2' 'validate: all' 'require_gpu: true' > /tmp/do-small-probe.yaml
  step 100 do-small-probe python3 -m gpubfs_cli run /tmp/do-small-probe.yaml --out results/do-small-probe.json
  python3 -m gpubfs_cli report results/do-small-probe.json --format md 2>&1 | head -20
  step 90 fixed-cost python3 scripts/fixed_cost.py --samples 30 --floor --json results/fixed_cost.json \
    --only do.bfs merrill.hybrid lbbfs.hybrid
  cat logs/fixed-cost.log
  ;;
L)
  LIMIT=240 bash scripts/device/levels.sh > logs/levels.log 2>&1
  tail -16 logs/levels.log
  step 240 do-warm python3 -m gpubfs_cli run configs/experiments/do.yaml -d $TARGETS --sources 50 --out results/do-warm.json
  python3 -m gpubfs_cli report results/do-warm.json --format md > logs/do-warm-report.md 2>&1
  head -40 logs/do-warm-report.md
  ;;
P)
  (nproc; lscpu | head -20) > logs/cpu.txt 2>&1
  step 200 cpu-parallel python3 -m gpubfs_cli run configs/experiments/cpu-parallel.yaml --out results/cpu-parallel.json
  tail -24 logs/cpu-parallel.log
  step 360 merrill-cta python3 -m gpubfs_cli run configs/experiments/merrill-cta.yaml --out results/merrill-cta.json
  python3 -m gpubfs_cli report results/merrill-cta.json --metric gteps --format md > logs/merrill-cta-report.md 2>&1
  head -30 logs/merrill-cta-report.md
  ;;
C1|C2)
  echo "run scripts/device/session7.sh C, then A (the catalogue with auto.bfs), then scripts/build_auto_table.py --check"
  ;;
*) echo "unknown part $part (T1 T2a T2b S S2 L P C1 C2)"; exit 2;;
esac
cat logs/steps.txt
