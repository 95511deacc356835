#!/usr/bin/env bash
# auto.bfs on the H100 (issue 14, section 4). Run from the repo root, one part per call
# (each under the device's 10-minute limit; logs/ and results/ come back in session.tgz):
#   C1 C2 C3 C4  configs/experiments/catalogue-gpu.yaml in four parts (-d picks the graphs)
#                -> results/catalogue-1.json .. catalogue-4.json
#   B            build the decision table from them -> gpubfs_cli/algorithms/bfs/auto_table.yaml
#                (commit it: it replaces the table built from older, partial H100 results)
#   A            auto.bfs alone on the same graphs (the table just built), then --check:
#                per graph auto's choice, the fastest and the ratio; exit 1 when auto
#                trails the fastest by more than 10% anywhere
# Expected: B prints one rule per graph; A ends "N of N graphs within 10% of the fastest".
source "$(dirname "$0")/lib.sh"
part=${1:-C1}
CFG=configs/experiments/catalogue-gpu.yaml
P1=smoke-rmat,smoke-gnm,smoke-grid,default-rmat,default-uniform,default-grid,levels-grid-2000,Gen-ForestFire,Gen-SmallWorld,rmat20,ER20,ER23,g500-s20-ef16
P2=lbbfs-random-d2,lbbfs-random-d4,lbbfs-random-d8,lbbfs-random-d16,lbbfs-random-d32,lbbfs-rmat-d2,lbbfs-rmat-d4,lbbfs-rmat-d8,lbbfs-rmat-d16,lbbfs-rmat-d32
P3=luo-grid-1M,luo-grid-2M,luo-grid-5M,luo-grid-7M,luo-grid-9M,luo-grid-10M,luo-scalefree-1M,luo-scalefree-5M,luo-scalefree-10M,random.2Mv.128Me,rmat.2Mv.128Me
P4=kron_g500-logn20-gen,uniform-n21-e26,grid7pt.300,grid5pt.5000,graph500-s24-ef20-seed1
part_graphs() { case "$1" in 1) echo "$P1";; 2) echo "$P2";; 3) echo "$P3";; 4) echo "$P4";; esac; }
case "$part" in
C1|C2|C3|C4)
  i=${part#C}
  step 580 "catalogue-$i" python3 -m gpubfs_cli run "$CFG" -d "$(part_graphs "$i")" --out "results/catalogue-$i.json"
  tail -5 "logs/catalogue-$i.log"
  ;;
B)
  step 120 auto-table python3 scripts/build_auto_table.py results/catalogue-[1-4].json
  cat logs/auto-table.log
  cp gpubfs_cli/algorithms/bfs/auto_table.yaml logs/ && tar czf "$OUT/session.tgz" logs results
  ;;
A)
  step 580 auto-run python3 -m gpubfs_cli run "$CFG" -s auto.bfs -d "$P1,$P2,$P3,$P4" --out results/catalogue-auto.json
  tail -5 logs/auto-run.log
  step 60 auto-check python3 scripts/build_auto_table.py --check results/catalogue-[1-4].json results/catalogue-auto.json
  cat logs/auto-check.log
  ;;
*) echo "unknown part $part (C1 C2 C3 C4 B A)"; exit 2;;
esac
