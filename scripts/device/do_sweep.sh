#!/usr/bin/env bash
# do.bfs on the device: an alpha x beta sweep on the three target graphs, the median
# time of each cell, then one profiled run per graph printed level by level.
# Run from the repo root on the GPU machine:
#   bash scripts/device/do_sweep.sh            # default grid
#   ALPHAS="8 14 20" BETAS="12 24" SOURCES=32 bash scripts/device/do_sweep.sh
# Prints `gpubfs report --metric ms` of the sweep (one column per alpha/beta pair; the
# best pair per graph is the smallest median), then do_profile.py's per-level table.
# Targets (H100): g500-s20-ef16 <= 0.45 ms, uniform-n21-e26 <= 0.8 ms,
# kron_g500-logn20-gen >= 200 equivalent GTEPS.
set -eu
ALPHAS=${ALPHAS:-"2 4 8 14 24 48"}
BETAS=${BETAS:-"6 12 24 48 96"}
SOURCES=${SOURCES:-32}
PY=${PY:-python3}
DATASETS="[g500-s20-ef16, uniform-n21-e26, kron_g500-logn20-gen]"
mkdir -p results logs
stamp=$(date +%Y%m%d-%H%M%S)
sweep=results/do-sweep-$stamp.json
prof=results/do-profile-$stamp.json
list() { echo "$1" | tr -s ' ' '\n' | grep . | sed 's/.*/&.0/' | paste -sd, -; }
cfg=$(mktemp /tmp/do-sweep-XXXX.yaml)
cat > "$cfg" <<YAML
name: do-sweep
datasets: $DATASETS
strategies:
  - {name: do.bfs, knobs: {alpha: [$(list "$ALPHAS")], beta: [$(list "$BETAS")]}}
  - do.top_down
sources: $SOURCES
seed: 0
validate: all
warmup: 2
time_limit_s: 60
require_gpu: true
YAML
$PY -m gpubfs_cli run "$cfg" --out "$sweep" --force
$PY -m gpubfs_cli report "$sweep" --metric ms
$PY -m gpubfs_cli report "$sweep" --metric gteps

pcfg=$(mktemp /tmp/do-profile-XXXX.yaml)
cat > "$pcfg" <<YAML
name: do-profile
datasets: $DATASETS
strategies:
  - {name: do.bfs, knobs: {profile: true}}
sources: 4
seed: 0
validate: all
warmup: 1
require_gpu: true
YAML
$PY -m gpubfs_cli run "$pcfg" --out "$prof" --force
$PY scripts/device/do_profile.py "$prof"

# Fixed cost per traversal (target <= 30 us from a vertex of a 2-vertex component).
$PY scripts/fixed_cost.py --only do.bfs do.top_down
