#!/usr/bin/env bash
# Device session 5 (issues 11, 12, 13: the bfs4k, lbbfs and raval families).
#   A: the new families' GPU tests (failures listed), then lbbfs Figs. 6-7 at 10 sources
#   T: the whole GPU suite (make test-gpu) after the last GPU change
#   B: BFS-4K Table 2 and ablation, lbbfs at full sources, per-level costs
#   C: Raval BFS and SSSP (Figs. 7, 8, 11)
source "$(dirname "$0")/lib.sh"
part=${1:-A}
NEW="tests/algorithms/bfs/gpu/test_lbbfs.py tests/algorithms/bfs/gpu/test_bfs4k.py tests/algorithms/bfs/gpu/test_raval.py tests/algorithms/sssp/gpu"
case "$part" in
A)
  nvidia-smi > logs/nvidia-smi.txt 2>&1
  step 30 info python3 -m gpubfs_cli info
  existing=$(for f in $NEW; do [ -e "$f" ] && echo "$f"; done)
  step 330 test-new env GPUBFS_REQUIRE_GPU=1 python3 -m pytest -q -m gpu -p no:cacheprovider -rfE --maxfail=60 \
    $existing tests/algorithms/bfs/gpu/test_strategies.py -k "lbbfs or bfs4k or raval"
  tail -60 logs/test-new.log
  step 200 run-lbbfs python3 -m gpubfs_cli run configs/experiments/lbbfs.yaml --sources 10 --out results/lbbfs-10.json
  tail -30 logs/run-lbbfs.log
  ;;
L)
  # 100 sources x 12 graphs does not fit one call: the Random half here, the R-MAT half in M.
  step 330 run-lbbfs-random python3 -m gpubfs_cli run configs/experiments/lbbfs.yaml \
    -d lbbfs-random-d2,lbbfs-random-d4,lbbfs-random-d8,lbbfs-random-d16,lbbfs-random-d32,random.2Mv.128Me \
    --out results/lbbfs-random.json
  step 100 run-lbbfs-profile python3 -m gpubfs_cli run configs/experiments/lbbfs-profile.yaml --out results/lbbfs-profile.json
  step 120 run-levels-lbbfs python3 -m gpubfs_cli run -d levels-path-100k -d levels-grid-2000 -d grid5pt.5000 \
    -s cpu.sequential -s merrill.hybrid -s luo.hierarchical -s 'lbbfs.*' --sources 3 --out results/levels-lbbfs.json
  step 30 report-levels python3 -m gpubfs_cli report results/levels-lbbfs.json --metric us_level --format md
  cat logs/report-levels.log
  ;;
M)
  step 330 run-lbbfs-rmat python3 -m gpubfs_cli run configs/experiments/lbbfs.yaml \
    -d lbbfs-rmat-d2,lbbfs-rmat-d4,lbbfs-rmat-d8,lbbfs-rmat-d16,lbbfs-rmat-d32,rmat.2Mv.128Me \
    --out results/lbbfs-rmat.json
  ;;
T1)  # make test-gpu in two halves (2,300 GPU tests do not fit one 10-minute call)
  step 570 test-gpu-1 make test-gpu PYTHON=python3 PYTEST_ARGS="-p no:cacheprovider -rfE --maxfail=30 \
    --deselect tests/algorithms/bfs/gpu/test_bfs4k.py --deselect tests/algorithms/bfs/gpu/test_raval.py \
    --deselect tests/algorithms/sssp/gpu/test_raval.py"
  tail -40 logs/test-gpu-1.log
  ;;
T2)
  step 570 test-gpu-2 make test-gpu PYTHON=python3 PYTEST_ARGS="-p no:cacheprovider -rfE --maxfail=30 \
    tests/algorithms/bfs/gpu/test_bfs4k.py tests/algorithms/bfs/gpu/test_raval.py tests/algorithms/sssp/gpu/test_raval.py"
  tail -40 logs/test-gpu-2.log
  ;;
B)
  step 210 run-bfs4k python3 -m gpubfs_cli run configs/experiments/bfs4k.yaml --out results/bfs4k.json
  step 170 run-bfs4k-ablation python3 -m gpubfs_cli run configs/experiments/bfs4k-ablation.yaml --out results/bfs4k-ablation.json
  step 130 run-levels python3 -m gpubfs_cli run -d levels-path-100k -d grid5pt.5000 \
    -s cpu.sequential -s merrill.hybrid -s 'bfs4k.*' --sources 3 --out results/levels-bfs4k.json
  step 30 report-levels python3 -m gpubfs_cli report results/levels-bfs4k.json --metric us_level --format md
  step 30 report-bfs4k python3 -m gpubfs_cli report --paper bfs4k results/bfs4k.json --format md
  step 30 report-ablation python3 -m gpubfs_cli report results/bfs4k-ablation.json --format md
  cat logs/report-levels.log; head -60 logs/report-bfs4k.log
  ;;
C)  # the graphs that fit a call: cpu.dijkstra on a scale-24 Graph 500 graph takes ~10 s a source
  step 260 run-raval python3 -m gpubfs_cli run configs/experiments/raval.yaml -d rmat20,ER20,ER23 \
    --out results/raval.json
  step 150 run-raval-g500 python3 -m gpubfs_cli run configs/experiments/raval.yaml -d graph500-s24-ef20-seed1 \
    --sources 2 --time-limit 60 --out results/raval-g500.json
  step 60 run-raval-chunking python3 -m gpubfs_cli run configs/experiments/raval-chunking.yaml -d rmat20,ER20,ER23 \
    --out results/raval-chunking.json
  step 60 run-raval-iter python3 -m gpubfs_cli run -d levels-grid-2000 --problem sssp -s 'raval.*' -s cpu.dijkstra \
    --sources 3 --out results/raval-lattice.json
  step 30 report-raval python3 -m gpubfs_cli report --paper raval results/raval*.json --format md
  head -150 logs/report-raval.log
  ;;
esac
cat logs/steps.txt
