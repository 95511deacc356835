#!/usr/bin/env bash
# Issue 14: time per level on grid5pt.5000 and levels-path-100k (merrill.hybrid's
# small_frontier off and on in configs/experiments/merrill-levels.yaml), then one line per
# variant: dataset, strategy and knobs, median ms, us per level (levels from the results).
# Targets: <= 3 us/level (21 ms) on grid5pt.5000, <= 1.2 us/level on levels-path-100k.
#   bash scripts/device/levels.sh [CONFIG]   (on the GPU machine, from the repo root;
#   CONFIG is a name in configs/experiments, merrill-levels by default: do-levels sweeps
#   do.bfs's mid-frontier mode)
source "$(dirname "$0")/lib.sh"
cfg=${1:-merrill-levels}
step ${LIMIT:-590} "$cfg" python3 -m gpubfs_cli run "configs/experiments/$cfg.yaml"
tail -5 "logs/$cfg.log"
f=$(ls -t results/"$cfg"-*.json | head -1)
python3 - "$f" <<'P'
import json, statistics, sys
from gpubfs_cli.core.knobs import knobs_key
doc = json.load(open(sys.argv[1]))
rows = {}
for s in doc["samples"]:
    if s.get("status", "ok") != "ok" or s.get("depth") is None:
        continue
    key = (s["dataset"], s["strategy"], knobs_key(s.get("knobs", {})))
    rows.setdefault(key, []).append((float(s["time_ms"]), int(s["depth"]) + 1))
for (ds, name, knobs), v in sorted(rows.items()):
    ms = statistics.median(t for t, _ in v)
    us = statistics.median(1000 * t / lv for t, lv in v)
    print(f"{ds:18s} {name:24s} {knobs:60s} {ms:9.2f} ms {us:7.2f} us/level")
P
