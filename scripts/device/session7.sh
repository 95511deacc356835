#!/usr/bin/env bash
# Device session 7 (issues 14, 15, 17), one part per call (each under 10 minutes):
#   G  make test-gpu without BFS-4K/Raval (new families and modes first seen on a GPU),
#      then do.bfs's alpha x beta sweep, per-level profile and fixed cost
#   D  a short alpha x beta sweep; do.* against merrill.hybrid and Gunrock on the three
#      target graphs, 100 sources, warm and cold L2; every GPU strategy's fixed cost
#   L  time per level on the high-diameter graphs (small-frontier mode); the multicore
#      CPU BFS against gapbs (16 cores)
#   C  the multicore CPU tests and runs again (Python 3.12's numba), the auto catalogue's first half
#   A  the auto catalogue's second half (auto.bfs in the same run as every candidate)
#   T1 T2  make test-gpu in full (two halves, one call each) after the last GPU change
source "$(dirname "$0")/lib.sh"
part=${1:-G}
clocks "$part"
T2_ARGS="-p no:cacheprovider -rfE --maxfail=30 tests/algorithms/bfs/gpu/test_bfs4k.py \
  tests/algorithms/bfs/gpu/test_raval.py tests/algorithms/sssp/gpu/test_raval.py"
AUTO1=smoke-rmat,smoke-gnm,smoke-grid,default-rmat,default-uniform,default-grid,levels-grid-2000,Gen-ForestFire,Gen-SmallWorld,rmat20,ER20,ER23,g500-s20-ef16,lbbfs-random-d2,lbbfs-random-d4,lbbfs-random-d8,lbbfs-random-d16,lbbfs-random-d32,lbbfs-rmat-d2,lbbfs-rmat-d4
AUTO2=lbbfs-rmat-d8,lbbfs-rmat-d16,lbbfs-rmat-d32,luo-grid-1M,luo-grid-2M,luo-grid-5M,luo-grid-7M,luo-grid-9M,luo-grid-10M,luo-scalefree-1M,luo-scalefree-5M,luo-scalefree-10M,random.2Mv.128Me,rmat.2Mv.128Me,kron_g500-logn20-gen,uniform-n21-e26,grid7pt.300,grid5pt.5000,graph500-s24-ef20-seed1
# auto.bfs (the shipped table) beside every candidate of catalogue-gpu.yaml, 5 sources.
catalogue() { sed '/^  - classic\.\*$/a\  - auto.bfs' configs/experiments/catalogue-gpu.yaml > /tmp/catalogue-auto.yaml
  # SIGINT a little before the step's limit: the runner then writes what it measured.
  step "$1" "catalogue-$2" timeout -s INT $(( $1 - 20 )) python3 -m gpubfs_cli run /tmp/catalogue-auto.yaml -d "$3" --sources 5 \
    --out "results/catalogue-$2.json"
  tail -4 "logs/catalogue-$2.log"; }
case "$part" in
G)
  step 330 test-gpu-1 make test-gpu PYTHON=python3 PYTEST_ARGS="$T1_ARGS"
  tail -15 logs/test-gpu-1.log
  step 200 do-sweep env ALPHAS="4 14 48" BETAS="6 24 96" SOURCES=16 bash scripts/device/do_sweep.sh
  tail -80 logs/do-sweep.log
  ;;
D)
  step 120 do-sweep env ALPHAS="14 48 128" BETAS="24 96" SOURCES=16 bash scripts/device/do_sweep.sh
  tail -75 logs/do-sweep.log
  step 170 do-warm python3 -m gpubfs_cli run configs/experiments/do.yaml \
    -d g500-s20-ef16,uniform-n21-e26,kron_g500-logn20-gen --sources 100 --out results/do-warm.json
  step 120 do-cold python3 -m gpubfs_cli run configs/experiments/do.yaml --l2 cold -s do.bfs -s merrill.hybrid \
    -d g500-s20-ef16,uniform-n21-e26,kron_g500-logn20-gen --sources 100 --out results/do-cold.json
  for f in warm cold; do python3 -m gpubfs_cli report results/do-$f.json --format md > logs/do-$f-report.md 2>&1; done
  python3 -m gpubfs_cli report results/do-warm.json --metric gteps --format md >> logs/do-warm-report.md 2>&1
  tar czf "$OUT/session.tgz" logs results
  cat logs/do-warm-report.md logs/do-cold-report.md | head -60
  step 150 fixed-cost python3 scripts/fixed_cost.py --samples 50 --json results/fixed_cost.json
  cat logs/fixed-cost.log
  ;;
L)
  step 220 levels bash scripts/device/levels.sh
  tail -14 logs/levels.log
  (nproc; lscpu | head -20) > logs/cpu.txt 2>&1
  step 250 cpu-parallel python3 -m gpubfs_cli run configs/experiments/cpu-parallel.yaml --out results/cpu-parallel.json
  tail -30 logs/cpu-parallel.log
  ;;
C)
  (nproc; lscpu | head -20) > logs/cpu.txt 2>&1
  step 120 cpu-tests python3 -m pytest -q -rs -p no:cacheprovider tests/algorithms/bfs/cpu tests/algorithms/bfs/test_peer_gapbs.py
  tail -4 logs/cpu-tests.log
  step 150 cpu-parallel python3 -m gpubfs_cli run configs/experiments/cpu-parallel.yaml --out results/cpu-parallel.json
  tail -24 logs/cpu-parallel.log
  catalogue 330 1 "$AUTO1"
  ;;
A1)  # the first half alone (C without the CPU runs; session10.sh C1)
  catalogue 340 1 "$AUTO1"
  ;;
A)
  catalogue 340 2 "$AUTO2"
  ;;
T1)
  step 400 test-gpu-1 make test-gpu PYTHON=python3 PYTEST_ARGS="$T1_ARGS"
  tail -8 logs/test-gpu-1.log
  ;;
T2)
  step 420 test-gpu-2 make test-gpu PYTHON=python3 PYTEST_ARGS="$T2_ARGS"
  tail -8 logs/test-gpu-2.log
  ;;
*) echo "unknown part $part (G D L C A1 A T1 T2)"; exit 2;;
esac
cat logs/steps.txt
