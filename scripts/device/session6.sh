#!/usr/bin/env bash
# Device session 6 (issues 17 and 18: trust and journeys).
#   T: make test-gpu after the last GPU change (one call: pytest-xdist workers on the one GPU)
#   S: make test-gpu-sanitize, and a planted out-of-bounds write the sanitizer must report
#   R: gpubfs reproduce luo end to end; the Gunrock peer's GPU test and a side-by-side run
#   M: warm vs cold L2, Merrill's paper knobs vs the adapted defaults, the GPU smoke baseline
source "$(dirname "$0")/lib.sh"
part=${1:-T}
export GPUBFS_GUNROCK_BFS=$PWD/.peers/gunrock/bfs
case "$part" in
T)
  nvidia-smi > logs/nvidia-smi.txt 2>&1
  step 570 test-gpu make test-gpu PYTHON=python3 PYTEST_ARGS="-p no:cacheprovider -rfE --maxfail=30 -n 8"
  tail -25 logs/test-gpu.log
  ;;
T1)  # make test-gpu in two halves (the whole suite passed 95% of itself in one 570 s call)
  step 570 test-gpu-1 make test-gpu PYTHON=python3 PYTEST_ARGS="-p no:cacheprovider -rfE --maxfail=30 -n 4 \
    --deselect tests/algorithms/bfs/gpu/test_bfs4k.py --deselect tests/algorithms/bfs/gpu/test_raval.py \
    --deselect tests/algorithms/sssp/gpu/test_raval.py"
  tail -15 logs/test-gpu-1.log
  ;;
T2)
  step 570 test-gpu-2 make test-gpu PYTHON=python3 PYTEST_ARGS="-p no:cacheprovider -rfE --maxfail=30 -n 4 \
    tests/algorithms/bfs/gpu/test_bfs4k.py tests/algorithms/bfs/gpu/test_raval.py tests/algorithms/sssp/gpu/test_raval.py"
  tail -15 logs/test-gpu-2.log
  ;;
S)
  cat > /tmp/planted.py <<'P'
import cupy as cp
cp.cuda.set_allocator(None)  # as scripts/sanitize.py does
k = cp.RawKernel(r'''extern "C" __global__ void f(int* a, int n){ int i = threadIdx.x; if (i <= n) a[i] = i; }''', "f")
a = cp.zeros(32, dtype=cp.int32)
k((1,), (64,), (a, cp.int32(40)))
cp.cuda.runtime.deviceSynchronize()
P
  step 60 sanitize-planted compute-sanitizer --tool memcheck --error-exitcode 1 python3 /tmp/planted.py
  tail -6 logs/sanitize-planted.log
  step 500 sanitize make test-gpu-sanitize PYTHON=python3
  tail -30 logs/sanitize.log
  ;;
P)  # the peer and the L2 modes
  step 60 peer-test env GPUBFS_REQUIRE_GPU=1 python3 -m pytest -q -p no:cacheprovider -rfE tests/algorithms/bfs/test_peer_gunrock.py
  step 150 peer-run python3 -m gpubfs_cli run -d g500-s20-ef16 -d uniform-n21-e26 -s cpu.sequential \
    -s merrill.hybrid -s peer.gunrock --sources 20 --out results/peer.json
  step 30 peer-report python3 -m gpubfs_cli report results/peer.json --format md
  cat logs/peer-report.log | head -40
  step 90 l2-warm python3 -m gpubfs_cli run -d g500-s20-ef16 -d grid5pt.5000 -s cpu.sequential -s merrill.hybrid \
    -s lbbfs.hybrid --sources 10 --out results/l2-warm.json
  step 90 l2-cold python3 -m gpubfs_cli run -d g500-s20-ef16 -d grid5pt.5000 -s cpu.sequential -s merrill.hybrid \
    -s lbbfs.hybrid --sources 10 --l2 cold --out results/l2-cold.json
  step 30 l2-compare python3 -m gpubfs_cli report --compare results/l2-warm.json results/l2-cold.json --format md
  cat logs/l2-compare.log | head -40
  ;;
R)
  step 30 reproduce-dry python3 -m gpubfs_cli reproduce luo --dry-run
  step 520 reproduce-luo python3 -m gpubfs_cli reproduce luo
  cp -r results/reproduce logs/ 2>/dev/null; tar czf "$OUT/session.tgz" logs results 2>/dev/null
  tail -60 logs/reproduce-luo.log
  ;;
M)
  step 120 l2-warm python3 -m gpubfs_cli run -d g500-s20-ef16 -d grid5pt.5000 -s merrill.hybrid -s lbbfs.hybrid \
    -s 'classic.vwarp' --sources 20 --out results/l2-warm.json
  step 120 l2-cold python3 -m gpubfs_cli run -d g500-s20-ef16 -d grid5pt.5000 -s merrill.hybrid -s lbbfs.hybrid \
    -s 'classic.vwarp' --sources 20 --l2 cold --out results/l2-cold.json
  step 30 l2-compare python3 -m gpubfs_cli report --compare results/l2-warm.json results/l2-cold.json --format md
  cat logs/l2-compare.log | head -40
  step 200 merrill-knobs python3 -m gpubfs_cli run configs/experiments/merrill.yaml \
    -d g500-s20-ef16,rmat.2Mv.128Me,grid5pt.5000 --sources 20 --out results/merrill-knobs.json
  step 30 merrill-knobs-report python3 -m gpubfs_cli report results/merrill-knobs.json --format md
  cat logs/merrill-knobs-report.log | head -40
  step 60 smoke-gpu python3 -m gpubfs_cli run configs/experiments/smoke.yaml --out results/smoke-h100.json
  ;;
esac
cat logs/steps.txt
