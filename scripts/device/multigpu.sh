#!/usr/bin/env bash
# merrill.multi_gpu on the device (nvidia-h200-x2; on one GPU the 2-rank steps report
# `unavailable`/skip with the reason). Run from the repo root:
#   bash scripts/device/multigpu.sh
# 1. the GPU tests (1 rank always, 2 ranks when 2 GPUs);
# 2. strong scaling 1 -> 2 GPUs on Graph500 scale 24/25/26, edgefactor 16;
# 3. weak scaling: scale 25 on 1 GPU vs scale 26 on 2 GPUs.
# Prints the run tables; results/ and logs/ come back in $OUT/session.tgz.
# NCCL_NVLS_ENABLE is left as the machine set it (ranks inherit it).
source scripts/device/lib.sh
step 900 multigpu-tests python3 -m pytest -q -m gpu tests/algorithms/bfs/gpu/test_multi_gpu.py
for s in 24 25 26; do
  for g in 1 2; do
    step 1800 "multigpu-s$s-g$g" python3 -m gpubfs_cli run -d "g500-s$s-ef16" \
      -s merrill.multi_gpu -s merrill.multi_gpu_do -s merrill.hybrid --gpus "$g" --sources 8 \
      --out "results/multigpu-s$s-g$g.json"
  done
done
cat logs/steps.txt
for f in logs/multigpu-*.log; do echo "== $f"; tail -40 "$f"; done
echo "== strong scaling (same graph, 1 vs 2 GPUs) and weak scaling (s25 g1 vs s26 g2)"
python3 -m gpubfs_cli report results/multigpu-s2[456]-g[12].json 2>&1 | tail -60
