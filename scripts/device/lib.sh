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
