#!/usr/bin/env bash
# mgpu.bfs on the device (a 2-GPU kind; on one GPU the 2-rank tests and cells skip or
# are `unavailable`, with the reason), in one call under LIMIT seconds (560 by default).
# Run from the repo root:   bash scripts/device/mgpu.sh [GRAPHS...]
#   (default: g500-s24-ef16 g500-s25-ef16 g500-s26-ef16)
# 1. with TESTS=1 (the default), the multi-GPU GPU tests and the rank layer's tests, timed;
# 2. studies/mgpu-levels.yaml (cost per level; LEVELS=0 skips it), then the run config
#    CONFIG, by name (default mgpu: do.bfs on 1 GPU, mgpu.bfs on 1 and 2 GPUs, the same
#    sources; a study's name, e.g. mgpu-large, runs studies/NAME.yaml; - runs none) on each graph,
#    generated here first, each run cut after RUN_S seconds
#    (150; SIGINT: the results file keeps what was measured);
#    with FIG11=1, Merrill's Fig. 11 run (merrill-fig11, FIG11_ARGS, default 4 sources);
# 3. with wheels of mpi4py and mpich in .wheels/ (carried: the device has no network;
#    `pip download --only-binary=:all: --python-version 3.12 -d .wheels mpi4py mpich`),
#    studies/mgpu-hosts.yaml on the first graph under `mpiexec -n 2` (rank 0 gpubfs, rank 1
#    the worker), twice: NCCL as it is (NVLink), then with NCCL_P2P_DISABLE=1
#    NCCL_SHM_DISABLE=1 (NCCL's socket transport: two hosts emulated), each with NCCL's
#    transport lines logged; HOSTS=0 skips it.
# RUN_ARGS adds flags to the CONFIG runs (e.g. RUN_ARGS="--sources 8").
# Every fetch and run step logs its peak host memory (/usr/bin/time -v) and steps.txt each
# GPU's peak memory in use during it (nvidia-smi, every 200 ms).
# A step that would not fit the time left is skipped and says so. Logs and results come
# back in $OUT/mgpu.tgz, packed after every step.
set -u
export PYTHONUNBUFFERED=1 OUT=${OUT:-/tmp/out} NCCL_DEBUG=${NCCL_DEBUG:-WARN}
T0=$(date +%s); LIMIT=${LIMIT:-560}
mkdir -p logs results "$OUT"
python3 -m pip install -q --no-deps --no-build-isolation -e . > logs/install.log 2>&1
nvidia-smi topo -m > logs/topo.txt 2>&1
step() {  # step SECONDS NAME CMD...: at most SECONDS, and never past LIMIT; SIGINT at the end;
  # each GPU's memory in use sampled every 200 ms meanwhile (nvidia-smi), its peak logged
  local t=$1 name=$2; shift 2; local left=$(( LIMIT - ($(date +%s) - T0) ))
  if [ "$left" -lt 20 ]; then echo "$name: skipped (no time left)" | tee -a logs/steps.txt; return; fi
  [ "$t" -gt "$left" ] && t=$left; local s; s=$(date +%s)
  nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 200 > "logs/gpumem-$name.csv" 2>&1 &
  local sampler=$!
  timeout -s INT -k 15 "$t" "$@" > "logs/$name.log" 2>&1; local rc=$?
  kill "$sampler" 2> /dev/null; wait "$sampler" 2> /dev/null
  local peak; peak=$(awk -F', ' 'NF == 2 && $2 + 0 > p[$1] {p[$1] = $2 + 0}
    END {for (g = 0; g < 16; g++) if (g in p) printf " GPU%d %d MiB", g, p[g]}' "logs/gpumem-$name.csv")
  echo "$name: rc=$rc $(( $(date +%s) - s ))s; peak memory in use:$peak" | tee -a logs/steps.txt
  tar czf "$OUT/mgpu.tgz" logs results 2>/dev/null; }
[ "${TESTS:-1}" = 1 ] && step 200 tests python3 -m pytest -v -m gpu -p no:cacheprovider --durations=15 -o faulthandler_timeout=45 \
  tests/algorithms/bfs/gpu/test_mgpu.py tests/gpu/test_ranks.py tests/algorithms/bfs/gpu/test_multi_gpu.py
[ "${LEVELS:-1}" = 1 ] && step 100 levels python3 -m gpubfs_cli run studies/mgpu-levels.yaml --out results/mgpu-levels.json --force
graphs=("${@:-g500-s24-ef16}")
[ $# -eq 0 ] && graphs=(g500-s24-ef16 g500-s25-ef16 g500-s26-ef16)
cfg=${CONFIG:-mgpu}; path=$cfg; [ -f "studies/$cfg.yaml" ] && path=studies/$cfg.yaml
for d in "${graphs[@]}"; do
  step "${FETCH_S:-120}" "fetch-$d" /usr/bin/time -v python3 -m gpubfs_cli fetch-dataset "$d"
  [ "$cfg" = - ] && continue  # CONFIG=-: the graphs made, for the hosts runs alone
  step "${RUN_S:-150}" "run-$d" /usr/bin/time -v python3 -m gpubfs_cli run "$path" -d "$d" --out "results/$cfg-$d.json" \
    --force ${RUN_ARGS:-}
done
[ "${FIG11:-0}" = 1 ] && step 240 fig11 python3 -m gpubfs_cli run merrill-fig11 --out results/merrill-fig11.json \
  --force ${FIG11_ARGS:---sources 4}
if [ "${HOSTS:-1}" = 1 ] && ls .wheels/mpi4py-*.whl > /dev/null 2>&1; then
  python3 -m pip install -q --no-index --find-links .wheels mpi4py mpich > logs/mpi-install.log 2>&1
  d=${graphs[0]}
  hosts() {  # hosts NAME: the hosts study under mpiexec, NCCL's transport choices logged
    step "${HOSTS_S:-120}" "$1" env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,P2P,SHM mpiexec \
      -n 1 python3 -m gpubfs_cli run studies/mgpu-hosts.yaml -d "$d" --out "results/$1-$d.json" --force : \
      -n 1 python3 -m gpubfs_cli.gpu.ranks.worker
    grep -E "via |Channel 00|NET/|Using network" "logs/$1.log" | sort | uniq -c | head -20 > "logs/$1-transport.txt"; }
  hosts hosts-nvlink
  NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 hosts hosts-sockets
fi
cat logs/steps.txt
for f in logs/tests.log logs/levels.log logs/run-*.log logs/fig11.log logs/hosts-*; do
  [ -f "$f" ] && { echo "== $f"; tail -30 "$f" | cut -c1-160; }
done
