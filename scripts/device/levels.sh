#!/usr/bin/env bash
# Time per level on the high-diameter graphs: run a per-level config, then one line per
# variant: dataset, strategy and knobs, median ms, us per level (levels from the results).
# Targets: <= 3 us/level (21 ms) on grid5pt.5000, <= 1.2 us/level on levels-path-100k.
#   bash scripts/device/levels.sh [CONFIG]   (on the GPU machine, from the repo root, the
#   project installed; CONFIG is a study in studies/ or a shipped config, by name:
#   merrill-levels (default, the small-frontier modes of merrill.* and do.bfs) or do-levels
#   (do.bfs's mid-frontier mode and its team sizes); LIMIT caps the run, 590 s by default)
# scripts/device/check.sh runs it as the parts `levels` and `do-levels`.
set -u
export PYTHONUNBUFFERED=1
cfg=${1:-merrill-levels}
path=$cfg; [ -f "studies/$cfg.yaml" ] && path=studies/$cfg.yaml
mkdir -p results
# SIGINT at the limit: the runner writes what it measured
timeout -s INT "${LIMIT:-590}" python3 -m gpubfs_cli run "$path" --out "results/$cfg.json" --force 2>&1 | tail -5
f=results/$cfg.json
python3 - "$f" <<'P'
import statistics, sys
from gpubfs_cli.results.schema import load_results
from gpubfs_cli.core.knobs import knobs_key
doc = load_results(sys.argv[1])
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
