#!/usr/bin/env bash
# Issue 14: merrill.hybrid's time per level on grid5pt.5000 and levels-path-100k, with
# small_frontier off and on (configs/experiments/merrill-levels.yaml), then one line per
# variant: dataset, strategy and knobs, median ms, us per level (levels from the results).
# Targets: <= 3 us/level (21 ms) on grid5pt.5000, <= 1.2 us/level on levels-path-100k.
#   bash scripts/device/levels.sh        (on the GPU machine, from the repo root)
source "$(dirname "$0")/lib.sh"
step ${LIMIT:-590} merrill-levels python3 -m gpubfs_cli run configs/experiments/merrill-levels.yaml
tail -5 logs/merrill-levels.log
f=$(ls -t results/merrill-levels-*.json | head -1)
python3 - "$f" <<'P'
import json, statistics, sys
doc = json.load(open(sys.argv[1]))
rows = {}
for s in doc["samples"]:
    if s.get("status", "ok") != "ok" or s.get("depth") is None:
        continue
    key = (s["dataset"], s["strategy"], json.dumps(s.get("knobs", {}), sort_keys=True))
    rows.setdefault(key, []).append((float(s["time_ms"]), int(s["depth"]) + 1))
for (ds, name, knobs), v in sorted(rows.items()):
    ms = statistics.median(t for t, _ in v)
    us = statistics.median(1000 * t / lv for t, lv in v)
    print(f"{ds:18s} {name:24s} {knobs:60s} {ms:9.2f} ms {us:7.2f} us/level")
P
