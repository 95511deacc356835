#!/usr/bin/env bash
# The next device session's plan (issues 14, 17), one part per call. Session 9 ran make
# test-gpu (T1, T2a, T2b) and the sanitizer at the last GPU change (b8d1a55): while no GPU
# code changes, these parts are measurements only, no re-validation.
#   O  run-order check of do.bfs's variants (configs/experiments/do-order.yaml, ~120 s),
#      then the same variants taking turns (--rounds 10, ~120 s): settles whether growth
#      can become the default
#   M  merrill.hybrid at CTA 128-1024 on the paper graphs (merrill-cta.yaml, issue 17, ~360 s)
#   C1 C2 the auto held-out check: both catalogue halves with auto.bfs (session7.sh's
#      catalogue, ~340 s each); then, on the CPU, scripts/build_auto_table.py --check on
#      the two returned results files (a later call may find a fresh machine)
#   P  (after O, M, C1, C2 ran) where the run-order effect comes from (order_probe.py);
#      do.bfs's growth x small_frontier taking turns (do-defaults.yaml, low- and
#      high-diameter graphs); merrill.hybrid's CTA sizes again, taking turns (--rounds 4)
# After any GPU code change: session9.sh T1, T2a, T2b and S2 first (~1,150 s in all).
source "$(dirname "$0")/lib.sh"
part=${1:-O}
clocks "$part"
case "$part" in
O)
  step 200 do-order python3 -m gpubfs_cli run configs/experiments/do-order.yaml --out results/do-order.json
  python3 -m gpubfs_cli report results/do-order.json --format md 2>&1 | head -30
  step 200 do-rounds python3 -m gpubfs_cli run configs/experiments/do-order.yaml --rounds 10 --out results/do-rounds.json
  python3 -m gpubfs_cli report results/do-rounds.json --format md 2>&1 | head -30
  ;;
M)
  step 400 merrill-cta python3 -m gpubfs_cli run configs/experiments/merrill-cta.yaml --out results/merrill-cta.json
  python3 -m gpubfs_cli report results/merrill-cta.json --metric gteps --format md > logs/merrill-cta-report.md 2>&1
  head -30 logs/merrill-cta-report.md
  ;;
P)
  step 90 order-probe python3 scripts/device/order_probe.py --trials 3
  step 60 order-probe-reupload python3 scripts/device/order_probe.py --trials 3 --reupload
  cat logs/order-probe.log logs/order-probe-reupload.log
  step 120 do-defaults python3 -m gpubfs_cli run configs/experiments/do-defaults.yaml --out results/do-defaults.json
  step 150 do-defaults-deep python3 -m gpubfs_cli run configs/experiments/do-defaults.yaml \
    -d grid5pt.5000,levels-path-100k --sources 10 --rounds 5 --out results/do-defaults-deep.json
  step 300 merrill-cta-rounds python3 -m gpubfs_cli run configs/experiments/merrill-cta.yaml --rounds 4 \
    --out results/merrill-cta-rounds.json
  ;;
C1) bash "$(dirname "$0")/session7.sh" A1 ;;
C2) bash "$(dirname "$0")/session7.sh" A ;;
*) echo "unknown part $part (O M C1 C2 P)"; exit 2;;
esac
cat logs/steps.txt
