#!/usr/bin/env bash
# Kernel code before (A: the checkout with the files of FILES replaced by those of the
# same name in .ab/, carried) against the checkout (B): STRATEGIES at their default knobs
# on DATASETS, runs alternating A B A B ..., then per graph and strategy the median ms of
# each side's samples, B / A, and B / A paired by source with its interval (ab_summary.py).
# Run from the repo root on the GPU machine (python3 with cupy, the project installed
# editable); each run writes $OUT/ab-<side><round>.json. The first run of each side
# compiles its kernels.
#   FILES="gpubfs_cli/algorithms/bfs/gpu/do/do.cu" STRATEGIES=do.bfs \
#     DATASETS=g500-s20-ef16,g500-s24-ef16 bash scripts/device/kernel_ab.sh
# (.ab/do.cu from `git show <commit>:gpubfs_cli/algorithms/bfs/gpu/do/do.cu`). A strategy
# may be a variant of one knob, NAME[KNOB=VALUE] (STRATEGIES splits at commas); the table
# gives each variant its row. RUN_ARGS adds run flags to both sides (e.g.
# RUN_ARGS="--validate certificate"; SSSP strategies need "--problem sssp"). A graph that
# is downloaded comes from .mirror/ (carried) where it exists.
set -u
OUT=${OUT:-/tmp/out}
: "${FILES:?FILES: the repo paths whose .ab/ copies make side A}" "${STRATEGIES:?STRATEGIES: comma-separated}"
DATASETS=${DATASETS:-g500-s20-ef16,smoke-grid,rmat20,luo-grid-1M}
SOURCES=${SOURCES:-20}
ROUNDS=${ROUNDS:-3}
for f in $FILES; do
  [ -f ".ab/$(basename "$f")" ] || { echo "missing .ab/$(basename "$f") (git show <commit>:$f)"; exit 2; }
done
export GPUBFS_DATA_DIR=${GPUBFS_DATA_DIR:-$PWD/datasets}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)  # the runs work in other folders
tmp=$(mktemp -d /tmp/kernel-ab-XXXX)
trap 'rm -rf "$tmp"' EXIT
# A: the package as checked out, but the old files.
cp -r gpubfs_cli "$tmp/gpubfs_cli"
for f in $FILES; do cp ".ab/$(basename "$f")" "$tmp/$f"; done
declare -A TREE=([A]="$tmp" [B]="$PWD")
# Each side runs in its tree: python puts the working folder before PYTHONPATH.
side_py() { (cd "${TREE[$1]}" && PYTHONPATH=${TREE[$1]} python3 "${@:2}"); }
for side in A B; do
  got=$(side_py $side -c "import gpubfs_cli, pathlib; print(pathlib.Path(gpubfs_cli.__file__).parent)")
  echo "$side: $got"
  [ "$got" = "${TREE[$side]}/gpubfs_cli" ] || { echo "wrong tree"; exit 2; }
done
STRATEGY_ARGS=()
set -f  # a variant's brackets (sssp.near_far[leader_async=true]) are no glob
for s in ${STRATEGIES//,/ }; do STRATEGY_ARGS+=(--strategy "$s"); done
set +f

# a downloaded graph (the New York road graph) from the mirror folder where it is carried
MIRROR_ARGS=()
[ -d .mirror ] && MIRROR_ARGS=(--mirror "$PWD/.mirror" --accept-checksum)
side_py B -m gpubfs_cli fetch-dataset ${DATASETS//,/ } "${MIRROR_ARGS[@]}" || exit 1

for round in $(seq "$ROUNDS"); do
  for side in A B; do
    side_py $side -m gpubfs_cli run --dataset "$DATASETS" \
      "${STRATEGY_ARGS[@]}" --sources "$SOURCES" --require-gpu ${RUN_ARGS:-} \
      --out "$OUT/ab-$side$round.json" --force > "$OUT/ab-$side$round.log" 2>&1
    rc=$?
    echo "$side$round: rc=$rc $(tail -1 "$OUT/ab-$side$round.log")"
  done
done

python3 scripts/device/ab_summary.py "$OUT"
