#!/usr/bin/env bash
# merrill.multi_gpu on the device (nvidia-h200-x2; on one GPU the 2-rank steps report
# `unavailable`/skip with the reason). Run from the repo root:
#   bash scripts/device/multigpu.sh
# 1. the GPU tests (1 rank always, 2 ranks when 2 GPUs);
# 2. strong scaling 1 -> 2 GPUs on Graph500 scale 24/25/26, edgefactor 16;
# 3. weak scaling: scale 25 on 1 GPU vs scale 26 on 2 GPUs.
# Prints the run tables; results/ and logs/ come back in $OUT/multigpu.tgz.
# NCCL_NVLS_ENABLE is left as the machine set it (ranks inherit it).
set -u
export PYTHONUNBUFFERED=1 OUT=${OUT:-/tmp/out}
mkdir -p logs results "$OUT"
python3 -m pip install -q --no-deps --no-build-isolation -e . > logs/install.log 2>&1
# `step SECONDS NAME CMD...`: CMD with a time limit, logged to logs/NAME.log; what finished
# is packed into $OUT/multigpu.tgz after each step, so a later step cut off loses only itself.
step() { local t=$1 name=$2; shift 2; local s; s=$(date +%s)
  timeout "$t" "$@" > "logs/$name.log" 2>&1; local rc=$?
  echo "$name: rc=$rc $(( $(date +%s) - s ))s" | tee -a logs/steps.txt
  tar czf "$OUT/multigpu.tgz" logs results 2>/dev/null; }
step 900 multigpu-tests python3 -m pytest -q -m gpu tests/algorithms/bfs/gpu/test_multi_gpu.py
for s in 24 25 26; do
  for g in 1 2; do
    step 1800 "multigpu-s$s-g$g" python3 -m gpubfs_cli run -d "g500-s$s-ef16" \
      -s merrill.multi_gpu -s merrill.multi_gpu_do -s merrill.hybrid --gpus "$g" --sources 8 \
      --out "results/multigpu-s$s-g$g.json" --force
  done
done
cat logs/steps.txt
for f in logs/multigpu-*.log; do echo "== $f"; tail -40 "$f"; done
echo "== strong scaling (same graph, 1 vs 2 GPUs) and weak scaling (s25 g1 vs s26 g2)"
python3 -m gpubfs_cli report results/multigpu-s2[456]-g[12].json 2>&1 | tail -60
