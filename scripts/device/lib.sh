# Shared by the device session scripts: run from the repo root on the GPU machine.
# `step SECONDS NAME CMD...` runs CMD with a time limit, logs it to logs/NAME.log,
# records rc and duration, and re-packs logs/ and results/ into $OUT/session.tgz so
# whatever finished comes back even if a later step is cut off.
set -u
export PYTHONUNBUFFERED=1 OUT=${OUT:-/tmp/out}
mkdir -p logs results "$OUT"
step() { local t=$1; shift; local name=$1; shift; local s; s=$(date +%s)
  timeout "$t" "$@" > "logs/$name.log" 2>&1; local rc=$?
  echo "$name: rc=$rc $(( $(date +%s) - s ))s" | tee -a logs/steps.txt
  tar czf "$OUT/session.tgz" logs results 2>/dev/null; }
python3 -m pip install -q --no-deps --no-build-isolation -e . > logs/install.log 2>&1
# make test-gpu without the BFS-4K/Raval test files (each session's T1; T2 runs those)
T1_ARGS="-p no:cacheprovider -rfE --maxfail=30 -n 4 --deselect tests/algorithms/bfs/gpu/test_bfs4k.py \
  --deselect tests/algorithms/bfs/gpu/test_raval.py --deselect tests/algorithms/sssp/gpu/test_raval.py"
# The peers' binaries (carried in .peers/) for peer.gunrock and peer.gapbs.
export GPUBFS_GUNROCK_BFS=$PWD/.peers/gunrock/bfs GPUBFS_GAPBS_BFS=$PWD/.peers/gapbs/bfs GPUBFS_PEERS=$PWD/.peers
# `clocks PART`: the GPU's clocks, temperature and power before a part runs.
clocks() { nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  > "logs/clocks-$1.txt" 2>&1; }
