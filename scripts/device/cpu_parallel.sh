#!/usr/bin/env bash
# The multicore CPU BFS on the device host (16 cores): cpu.parallel_td and cpu.parallel_do
# against gapbs's BFS (peer.gapbs) at the same thread counts, on g500-s20-ef16, 10 sources,
# distances and predecessors (configs/experiments/cpu-parallel.yaml: threads 1 and all),
# then a thread sweep. Needs the gapbs binary at .peers/gapbs/bfs (../shared/peers/gapbs).
#   bash scripts/device/cpu_parallel.sh      -> logs/ and results/ in $OUT/session.tgz
# Expect: the tests pass (none skipped for want of gapbs); in logs/cpu-parallel.log
# cpu.parallel_do with threads=0 (16) within 1.25x of peer.gapbs threads=0, all samples
# valid (gapbs's by its own verifier).
source "$(dirname "$0")/lib.sh"
export GPUBFS_GAPBS_BFS=$PWD/.peers/gapbs/bfs GPUBFS_PEERS=$PWD/.peers
(nproc; lscpu | head -20) > logs/cpu.txt 2>&1
step 300 fetch python3 -m gpubfs_cli fetch-dataset g500-s20-ef16
step 400 cpu-tests python3 -m pytest -q -rs -p no:cacheprovider tests/algorithms/bfs/cpu \
  tests/algorithms/bfs/test_peer_gapbs.py tests/graph/test_export_sg.py
tail -8 logs/cpu-tests.log
step 550 cpu-parallel python3 -m gpubfs_cli run configs/experiments/cpu-parallel.yaml --out results/cpu-parallel.json
tail -30 logs/cpu-parallel.log
sed 's/threads: \[1, 0\]/threads: [2, 4, 8, 16]/; s/^name: cpu-parallel/name: cpu-parallel-sweep/; s/^predecessors: both/predecessors: false/' \
  configs/experiments/cpu-parallel.yaml > /tmp/cpu-parallel-sweep.yaml
step 550 cpu-sweep python3 -m gpubfs_cli run /tmp/cpu-parallel-sweep.yaml --out results/cpu-parallel-sweep.json
tail -30 logs/cpu-sweep.log
