#!/usr/bin/env bash
# Device session 3: after a change to Merrill's defaults, the GPU suite again and the
# Merrill runs (the CPU baseline of session 2 still pairs: same graphs, same sources).
source "$(dirname "$0")/lib.sh"
step 300 test-gpu make test-gpu PYTHON=python3 PYTEST_ARGS="-q -p no:cacheprovider"
tail -3 logs/test-gpu.log
for cfg in merrill merrill-fig10 merrill-pred gunrock; do
  step 240 "run-$cfg" python3 -m gpubfs_cli run "configs/experiments/$cfg.yaml" --out "results/$cfg.json"
done
step 60 report-merrill python3 -m gpubfs_cli report --paper merrill results/*.json
step 60 report-all python3 -m gpubfs_cli report results/*.json --metric gteps --format md
cat logs/report-merrill.log | tail -60
