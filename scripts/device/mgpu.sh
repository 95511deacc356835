#!/usr/bin/env bash
# mgpu.bfs on the device (a 2-GPU kind; on one GPU the 2-rank tests and cells skip or
# are `unavailable`, with the reason). Run from the repo root:
#   bash scripts/device/mgpu.sh [GRAPHS...]      (default: g500-s24-ef16)
# 1. the multi-GPU GPU tests and the rank layer's tests, timed;
# 2. gpubfs_cli/configs/experiments/mgpu.yaml (do.bfs on 1 GPU, mgpu.bfs on 1 and 2 GPUs, the same
#    sources) on each graph; per-level figures on levels-path-100k;
# 3. with wheels of mpi4py and mpich in .wheels/ (carried: the device has no network;
#    `pip download --only-binary=:all: --python-version 3.12 -d .wheels mpi4py mpich`),
#    the first graph again under `mpiexec -n 2`, rank 0 running gpubfs and rank 1 the
#    worker, every answer validated as in step 2.
# Results and logs come back in $OUT/mgpu.tgz, packed after every step.
set -u
export PYTHONUNBUFFERED=1 OUT=${OUT:-/tmp/out} NCCL_DEBUG=${NCCL_DEBUG:-WARN}
mkdir -p logs results "$OUT"
python3 -m pip install -q --no-deps --no-build-isolation -e . > logs/install.log 2>&1
nvidia-smi topo -m > logs/topo.txt 2>&1
step() { local t=$1 name=$2; shift 2; local s; s=$(date +%s)
  timeout -k 10 "$t" "$@" > "logs/$name.log" 2>&1; local rc=$?
  echo "$name: rc=$rc $(( $(date +%s) - s ))s" | tee -a logs/steps.txt
  tar czf "$OUT/mgpu.tgz" logs results 2>/dev/null; }
step 240 tests python3 -m pytest -q -m gpu --durations=15 tests/algorithms/bfs/gpu/test_mgpu.py tests/algorithms/bfs/gpu/test_do.py
for d in "${@:-g500-s24-ef16}"; do
  step 300 "fetch-$d" python3 -m gpubfs_cli fetch-dataset "$d"
  step 300 "run-$d" python3 -m gpubfs_cli run mgpu -d "$d" --out "results/mgpu-$d.json" --force
done
if ls .wheels/mpi4py-*.whl > /dev/null 2>&1; then
  python3 -m pip install -q --no-index --find-links .wheels mpi4py mpich > logs/mpi-install.log 2>&1
  d=${1:-g500-s24-ef16}
  step 300 mpi-run mpiexec -n 1 python3 -m gpubfs_cli run -d "$d" -s mgpu.bfs --gpus 2 --sources 8 \
    --out "results/mgpu-mpi-$d.json" --force : -n 1 python3 -m gpubfs_cli.gpu.ranks.worker
fi
cat logs/steps.txt
for f in logs/tests.log logs/run-*.log logs/mpi-run.log; do echo "== $f"; tail -60 "$f"; done
