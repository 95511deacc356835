#!/usr/bin/env bash
# Session 12's device plan (issue 14), one part per call: why auto.bfs's samples trail
# its own choice's (session 11), and whether a warm-up by time closes the gap.
#   G  scripts/device/auto_gap.py on the small graphs where the gap showed (side by side,
#      after prepare, after prepare with a 50 ms warm-up); the launch floor with 2
#      arguments beside 24 (fixed_cost.py --floor, a few strategies)
#   C0 C50  the held-out catalogue's graphs under 1 ms (every GPU strategy and auto.bfs,
#      10 sources, 2 rounds) with warmup_ms 0 / 50
#   R  the same graphs at the new default (warmup_ms 50) with 10 rounds of one source each
#   V  make test-gpu without BFS-4K/Raval (session11.sh V's first step)
source "$(dirname "$0")/lib.sh"
part=${1:-G}
clocks "$part"
SMALL=smoke-rmat,smoke-gnm,smoke-grid,default-rmat,default-uniform,Gen-ForestFire,Gen-SmallWorld,rmat20,ER20,g500-s20-ef16,lbbfs-random-d2,lbbfs-random-d4,lbbfs-random-d8,lbbfs-random-d16,lbbfs-random-d32,lbbfs-rmat-d2,lbbfs-rmat-d4,lbbfs-rmat-d8,lbbfs-rmat-d16,lbbfs-rmat-d32,luo-scalefree-1M,kron_g500-logn20-gen
case "$part" in
G)
  step 400 auto-gap python3 scripts/device/auto_gap.py \
    --graphs smoke-rmat,smoke-gnm,rmat20,Gen-ForestFire,luo-scalefree-1M,g500-s20-ef16 --sources 10 --trials 3 --warmup-ms 50
  cat logs/auto-gap.log
  step 150 floor python3 scripts/fixed_cost.py --samples 50 --floor --only do.bfs merrill.hybrid lbbfs.balanced_redistribution
  cat logs/floor.log
  ;;
C0|C50)
  sed '/^  - classic\.\*$/a\  - auto.bfs' configs/experiments/catalogue-gpu.yaml > /tmp/catalogue-auto.yaml
  step 570 "heldout-$part" timeout -s INT 550 python3 -m gpubfs_cli run /tmp/catalogue-auto.yaml -d "$SMALL" \
    --sources 10 --rounds 2 --warmup-ms "${part:1}" --out "results/heldout-$part.json"
  tail -3 "logs/heldout-$part.log"
  ;;
R)
  sed '/^  - classic\.\*$/a\  - auto.bfs' configs/experiments/catalogue-gpu.yaml > /tmp/catalogue-auto.yaml
  step 570 heldout-R timeout -s INT 550 python3 -m gpubfs_cli run /tmp/catalogue-auto.yaml -d "$SMALL" \
    --sources 10 --rounds 10 --out results/heldout-R.json
  tail -3 logs/heldout-R.log
  ;;
V)
  step 560 test-gpu-1 make test-gpu PYTHON=python3 PYTEST_ARGS="$T1_ARGS"
  tail -8 logs/test-gpu-1.log
  ;;
*) echo "unknown part $part (G C0 C50 R V)"; exit 2;;
esac
cat logs/steps.txt
