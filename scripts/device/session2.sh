#!/usr/bin/env bash
# Device session 2 (repo root on the GPU machine; output under $OUT): Merrill et al.'s
# Table 2 and Fig. 10 on the generated graphs of their Table 1, and the CPU baseline.
source "$(dirname "$0")/lib.sh"
for cfg in merrill merrill-fig10 merrill-pred merrill-cpu; do
  step 240 "run-$cfg" python3 -m gpubfs_cli run "configs/experiments/$cfg.yaml" --out "results/$cfg.json"
done
step 60 report-merrill python3 -m gpubfs_cli report --paper merrill results/*.json
step 60 report-all python3 -m gpubfs_cli report results/*.json --metric gteps --format md
cat logs/report-merrill.log | tail -60
