#!/usr/bin/env bash
# Device session 1 (run from the repo root on the GPU machine; output under $OUT):
# install, the GPU test suite, GPU generator timing, and the Luo, Gunrock and BFS-4K
# reproduction runs. Each step has its own time limit so one stuck step costs only itself.
source "$(dirname "$0")/lib.sh"
nvidia-smi > logs/nvidia-smi.txt 2>&1
step 30 info python3 -m gpubfs_cli info
step 300 test-gpu make test-gpu PYTHON=python3 PYTEST_ARGS="-q -p no:cacheprovider"
tail -3 logs/test-gpu.log
step 90 gen-gpu python3 scripts/bench_generators.py --device gpu rmat.2Mv.128Me
tail -4 logs/gen-gpu.log
for cfg in gunrock luo bfs4k; do
  step 200 "run-$cfg" python3 -m gpubfs_cli run "configs/experiments/$cfg.yaml" --out "results/$cfg.json"
done
for p in luo bfs4k; do
  step 60 "report-$p" python3 -m gpubfs_cli report --paper "$p" results/*.json
done
step 60 report-all python3 -m gpubfs_cli report results/*.json --metric ms --format md
tail -40 logs/run-gunrock.log
