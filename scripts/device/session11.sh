#!/usr/bin/env bash
# Session 11's device plan (issue 14), one part per call. The GPU change is merrill's
# in-kernel overflow rerun (no read-back per traversal), so make test-gpu runs whole
# again (V, T2a, T2b) and the sanitizer (S); then the auto table is rebuilt from a
# catalogue run (K1-K3, whose files record depth_probe) and checked on a held-out one
# (H1-H3, after the rebuilt table is in the tree).
#   V  make test-gpu without BFS-4K/Raval (~270 s); fixed cost of every GPU strategy at
#      its defaults, and again with small_frontier 512 where a strategy has the knob
#   T2a T2b make test-gpu's BFS-4K/Raval half (session9.sh's parts)
#   S  make test-gpu-sanitize (six processes)
#   K1 K2 K3 / H1 H2 H3 the catalogue (every GPU strategy and auto.bfs) in three parts,
#      10 sources, 2 rounds: the build run / the held-out run
source "$(dirname "$0")/lib.sh"
part=${1:-V}
clocks "$part"
case "$part" in
V)
  step 560 test-gpu-1 make test-gpu PYTHON=python3 PYTEST_ARGS="$T1_ARGS"
  tail -8 logs/test-gpu-1.log
  step 200 fixed-cost python3 scripts/fixed_cost.py --samples 30 --json results/fixed_cost.json \
    --knobs small_frontier=512 --floor
  cat logs/fixed-cost.log
  ;;
T2a|T2b|S2) bash "$(dirname "$0")/session9.sh" "$part" ;;
S)
  step 500 sanitize make test-gpu-sanitize PYTHON=python3 SANITIZE_ARGS="--jobs 6"
  tail -4 logs/sanitize.log
  ;;
K1|K2|K3|H1|H2|H3)
  case "${part:1}" in
  1) graphs=smoke-rmat,smoke-gnm,smoke-grid,default-rmat,default-uniform,default-grid,levels-grid-2000,Gen-ForestFire,Gen-SmallWorld,rmat20,ER20,ER23,g500-s20-ef16,lbbfs-random-d2,lbbfs-random-d4,lbbfs-random-d8,lbbfs-random-d16,lbbfs-random-d32 ;;
  2) graphs=lbbfs-rmat-d2,lbbfs-rmat-d4,lbbfs-rmat-d8,lbbfs-rmat-d16,lbbfs-rmat-d32,luo-grid-1M,luo-grid-2M,luo-grid-5M,luo-grid-7M,luo-grid-9M,luo-grid-10M,luo-scalefree-1M,luo-scalefree-5M,grid7pt.300 ;;
  3) graphs=luo-scalefree-10M,random.2Mv.128Me,rmat.2Mv.128Me,kron_g500-logn20-gen,uniform-n21-e26,grid5pt.5000,graph500-s24-ef20-seed1 ;;
  esac
  name=catalogue; [ "${part:0:1}" = H ] && name=heldout
  sed '/^  - classic\.\*$/a\  - auto.bfs' configs/experiments/catalogue-gpu.yaml > /tmp/catalogue-auto.yaml
  step 570 "$name-$part" timeout -s INT 550 python3 -m gpubfs_cli run /tmp/catalogue-auto.yaml -d "$graphs" \
    --sources 10 --rounds 2 --out "results/$name-$part.json"
  tail -3 "logs/$name-$part.log"
  ;;
*) echo "unknown part $part (V T2a T2b S K1 K2 K3 H1 H2 H3)"; exit 2;;
esac
cat logs/steps.txt
