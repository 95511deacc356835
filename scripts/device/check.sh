#!/usr/bin/env bash
# The checks a change to GPU code must pass, on a GPU machine, in parts that each fit one
# 10-minute call (docs/ci.md). Run from the repo root with the machine's python3 (which
# has cupy): the project is installed editable first, with no downloads.
#   bash scripts/device/check.sh PART [PART...]
# Parts:
#   tests1     make test-gpu without the BFS-4K and Raval variant matrices (~300 s on an
#              H100); with the peers' binaries in .peers/ (gunrock/bfs, gapbs/bfs) their
#              GPU tests run too
#   tests2a    make test-gpu's BFS-4K and Raval BFS matrices (~280 s)
#   tests2b    make test-gpu's Raval SSSP matrix (~220 s)
#   sanitize   make test-gpu-sanitize, six sanitizer processes (~350 s)
#   gather-ab  merrill.cu's gathering before (.ab/, carried) and after: scripts/device/gather_ab.sh
# Logs and results go to $OUT/check-PART.tgz (one file per part); each part's last lines
# and its exit status are printed.
set -u
export PYTHONUNBUFFERED=1 OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" logs
if [ -d .peers ]; then
  export GPUBFS_GUNROCK_BFS=$PWD/.peers/gunrock/bfs GPUBFS_GAPBS_BFS=$PWD/.peers/gapbs/bfs GPUBFS_PEERS=$PWD/.peers
fi
python3 -m pip install -q --no-deps --no-build-isolation -e . > logs/install.log 2>&1 || { cat logs/install.log; exit 1; }
MATRICES="tests/algorithms/bfs/gpu/test_bfs4k.py tests/algorithms/bfs/gpu/test_raval.py tests/algorithms/sssp/gpu/test_raval.py"
COMMON="-p no:cacheprovider -rfE --maxfail=30 -n 4 --durations=15"
DESELECT=""
for f in $MATRICES; do DESELECT="$DESELECT --deselect $f"; done

run() {  # run PART LIMIT CMD...: a part's command with a time limit, logged
  local part=$1 limit=$2; shift 2
  local start; start=$(date +%s)
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader > "logs/$part.clocks" 2>&1
  timeout "$limit" "$@" > "logs/$part.log" 2>&1
  local rc=$?
  echo "$part: rc=$rc $(( $(date +%s) - start ))s" | tee -a logs/parts.txt
  tail -6 "logs/$part.log"
  tar czf "$OUT/check-$part.tgz" logs $( [ -d results ] && echo results ) 2>/dev/null
  return $rc
}

status=0
for part in "$@"; do
  case "$part" in
    tests1) run tests1 580 make test-gpu PYTHON=python3 PYTEST_ARGS="$COMMON $DESELECT" ;;
    tests2a) run tests2a 580 make test-gpu PYTHON=python3 PYTEST_ARGS="$COMMON ${MATRICES% *}" ;;
    tests2b) run tests2b 580 make test-gpu PYTHON=python3 PYTEST_ARGS="$COMMON ${MATRICES##* }" ;;
    sanitize) run sanitize 580 make test-gpu-sanitize PYTHON=python3 SANITIZE_ARGS="--jobs 6" ;;
    gather-ab) run gather-ab 400 env OUT="$PWD/logs/ab" bash scripts/device/gather_ab.sh ;;
    *) echo "unknown part $part (tests1 tests2a tests2b sanitize gather-ab)"; exit 2 ;;
  esac || status=1
done
cat logs/parts.txt
exit $status
