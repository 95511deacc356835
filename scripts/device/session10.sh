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
#   After do.bfs's new defaults (growth, small_frontier 512; a GPU default change):
#   V  make test-gpu without BFS-4K/Raval (the do.* tests), fixed cost of the do.* family
#   S  make test-gpu-sanitize (six processes)
#   K1 K2 K3 the auto held-out check again, the catalogue in three parts, 10 sources,
#      2 rounds (the variants take turns, so auto.bfs and the strategy it chose run
#      alike); then scripts/build_auto_table.py --check on the three results files
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
V)
  step 420 test-gpu-1 make test-gpu PYTHON=python3 PYTEST_ARGS="$T1_ARGS"
  tail -8 logs/test-gpu-1.log
  step 90 fixed-cost python3 scripts/fixed_cost.py --samples 30 --json results/fixed_cost.json \
    --only do.bfs do.top_down lbbfs.hybrid merrill.hybrid
  cat logs/fixed-cost.log
  ;;
S)
  step 500 sanitize make test-gpu-sanitize PYTHON=python3 SANITIZE_ARGS="--jobs 6"
  tail -4 logs/sanitize.log
  ;;
K1|K2|K3)
  case "$part" in
  K1) graphs=smoke-rmat,smoke-gnm,smoke-grid,default-rmat,default-uniform,default-grid,levels-grid-2000,Gen-ForestFire,Gen-SmallWorld,rmat20,ER20,ER23,g500-s20-ef16,lbbfs-random-d2,lbbfs-random-d4,lbbfs-random-d8,lbbfs-random-d16,lbbfs-random-d32 ;;
  K2) graphs=lbbfs-rmat-d2,lbbfs-rmat-d4,lbbfs-rmat-d8,lbbfs-rmat-d16,lbbfs-rmat-d32,luo-grid-1M,luo-grid-2M,luo-grid-5M,luo-grid-7M,luo-grid-9M,luo-grid-10M,luo-scalefree-1M,luo-scalefree-5M,grid7pt.300 ;;
  K3) graphs=luo-scalefree-10M,random.2Mv.128Me,rmat.2Mv.128Me,kron_g500-logn20-gen,uniform-n21-e26,grid5pt.5000,graph500-s24-ef20-seed1 ;;
  esac
  sed '/^  - classic\.\*$/a\  - auto.bfs' configs/experiments/catalogue-gpu.yaml > /tmp/catalogue-auto.yaml
  step 570 "catalogue-$part" timeout -s INT 550 python3 -m gpubfs_cli run /tmp/catalogue-auto.yaml -d "$graphs" \
    --sources 10 --rounds 2 --out "results/catalogue-$part.json"
  tail -3 "logs/catalogue-$part.log"
  ;;
A)  # after the probe change: auto's own tests on the GPU, then auto-confirm.yaml
  step 120 test-auto python3 -m pytest -q -p no:cacheprovider -rfE tests/algorithms/bfs/gpu/test_auto.py
  tail -3 logs/test-auto.log
  step 300 auto-confirm python3 -m gpubfs_cli run configs/experiments/auto-confirm.yaml --out results/auto-confirm.json
  python3 -c "
import json; d = json.load(open('results/auto-confirm.json'))
for g in d['datasets']:
    c = next((s['counters'] for s in d['samples'] if s['dataset'] == g and s['strategy'] == 'auto.bfs' and s['counters']), {})
    print(g, c.get('auto.rule'), c.get('auto.distance'), c.get('auto.choice'), c.get('auto.probe_ms'))"
  python3 scripts/build_auto_table.py --check results/auto-confirm.json | cut -c1-26,120-
  ;;
C1) bash "$(dirname "$0")/session7.sh" A1 ;;
C2) bash "$(dirname "$0")/session7.sh" A ;;
*) echo "unknown part $part (O M C1 C2 P V S K1 K2 K3 A)"; exit 2;;
esac
cat logs/steps.txt
