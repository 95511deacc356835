#!/usr/bin/env bash
# The GPU checks and the measurements behind docs/performance.md, on a GPU machine, in
# parts that each fit one 10-minute call (docs/ci.md lists every part). Run from the repo
# root with the machine's python3 (which has cupy): the project is installed editable
# first, with no downloads (catalogue graphs are generated, or read from GPUBFS_DATA_DIR).
#   bash scripts/device/check.sh PART [PART...]
# Checks:
#   tests        make test-gpu whole (its two passes: the Makefile says why); with the
#                peers' binaries found (below: gunrock/bfs, gapbs/bfs ...) their GPU tests run too
#   tests-main tests-paced   its first pass, then its second, each in a call of its own
#                (together they are make test-gpu: 291 s and 315 s on one H200, docs/ci.md)
#   sanitize     make test-gpu-sanitize, six sanitizer processes
#   gather-ab    merrill.cu's gathering before (.ab/, carried) and after: gather_ab.sh
#   kernel-ab    any kernel files before (.ab/, carried) and after: kernel_ab.sh, with
#                FILES, STRATEGIES and DATASETS given (its head says how)
# Paper runs (results/NAME.json, then its report in the part's log):
#   run:NAME     gpubfs run NAME (a shipped config, or studies/NAME.yaml where that exists);
#                RUN_ARGS adds run flags (e.g. RUN_ARGS="--rounds 4" ... run:merrill-cta)
#   lbbfs-random lbbfs-rmat   lbbfs.yaml's Random and R-MAT halves, 100 sources each
#   raval        raval.yaml and raval-chunking.yaml on rmat20, ER20, ER23, and raval.*'s
#                SSSP on the 2000 x 2000 lattice (time per worklist round)
#   raval-g500 raval-g500-seeds23   raval.yaml on the Graph 500 scale-24 graph of seed 1,
#                then on those of seeds 2 and 3, 2 sources each
#   reproduce:PAPER  gpubfs reproduce PAPER --dry-run (the estimate), then the reproduction
#                end to end (e.g. reproduce:luo, reproduce:merrill)
#   regions      studies/regions.yaml (regions.bfs beside do.bfs on the NY road graph from .mirror/
#                and six generated graphs) -> results/regions.json; resumed when cut
#   regions-absorb   studies/regions-absorb.yaml (regions.bfs with and without absorbing beside
#                do.bfs on the NY road graph from .mirror/ and five generated graphs)
#                -> results/regions-absorb.json; resumed when cut
#   sssp-peers   the sssp-delta config (gpubfs's SSSP, raval.bs/ep, gapbs's delta sweep and
#                Gunrock's SSSP where their binaries are found, cpu.dijkstra) on the real New
#                York road graph from .mirror/ and the config's own graphs, or those SSSP_PEERS
#                names (SSSP_PEERS=USA-road-d.NY bash ... sssp-peers) -> results/sssp-peers.json
#                (cut by its limit, it goes on from its journal when run again)
#   sssp-delta-scale   studies/sssp-delta-scale.yaml (sssp.near_far's bucket width swept in mean
#                edge weights, beside the default rule, sssp.delta and raval.ep) on the NY road
#                graph from .mirror/ and six generated graphs -> results/sssp-delta-scale.json;
#                resumed from its journal when cut
#   sssp-delta-depth   studies/sssp-delta-depth.yaml (the default delta's widening on deep graphs
#                off and on, sssp.near_far and sssp.delta) on the NY road graph from .mirror/ and
#                five generated graphs -> results/sssp-delta-depth.json; resumed when cut
#   sssp-hubs    studies/sssp-hubs.yaml (the SSSP kernel's hub pass off and at three thresholds,
#                beside raval.ep) on the NY road graph from .mirror/ and six generated graphs
#                -> results/sssp-hubs.json; resumed when cut
#   sssp-direct  studies/sssp-direct.yaml (sssp.near_far's direct_below off and at three sizes)
#                on the NY road graph from .mirror/ and five generated graphs
#                -> results/sssp-direct.json; resumed when cut
#   sssp-async   studies/sssp-async.yaml (the asynchronous leader, leader_async, at five
#                thresholds beside the leader's rounds) on the NY road graph from .mirror/ and
#                four generated graphs -> results/sssp-async.json; resumed when cut
#   sssp-async-warps   studies/sssp-async-warps.yaml (the leader with 4, 8 and 16 warps,
#                cta_size 128 to 512, asynchronous and in rounds) on the same five graphs
#                -> results/sssp-async-warps.json; resumed when cut
#   sssp-leader-profile   studies/sssp-leader-profile.yaml (the profile build of sssp.near_far
#                and sssp.delta beside the timed one: the leader's rounds by phase) on the NY
#                road graph from .mirror/ and two generated graphs -> results/sssp-leader-profile.json
#   sssp-rounds  studies/sssp-rounds.yaml (the SSSP leader's thresholds swept, sssp.near_far
#                and sssp.delta) on the NY road graph from .mirror/ and three generated graphs
#                -> results/sssp-rounds.json; resumed when cut
#   sssp-auto    auto.sssp's table: studies/sssp-auto.yaml -> results/sssp-auto.json, resumed
#                from its journal when cut (more than one call on an H200), then the table
#                built from it (written where the package reads it, a copy in results/)
#   sssp-auto-heldout   auto.sssp on graphs its table was not built from, with the table in
#                place: studies/sssp-auto-heldout.yaml (the NY road graph from .mirror/) ->
#                results/sssp-auto-heldout.json, resumed when cut, and its check
#   sssp-auto-heldout-regions   studies/sssp-auto-heldout-regions.yaml (auto.sssp with the
#                table in place beside near_far's three variants and sssp.regions on deep graphs
#                the table was not built from and the NY road graph from .mirror/)
#                -> results/sssp-auto-heldout-regions.json, and its check
#   sssp-regions studies/sssp-regions.yaml (sssp.regions and its knobs beside sssp.near_far and
#                sssp.delta) on the NY road graph from .mirror/ and five generated graphs
#                -> results/sssp-regions.json; resumed when cut
#   sssp-regions-absorb   studies/sssp-regions-absorb.yaml (sssp.regions with and without
#                absorbing, at the default delta and at 2^62, beside sssp.near_far) on the same
#                graphs -> results/sssp-regions-absorb.json; resumed when cut
#   sssp-cta-size   studies/sssp-cta-size.yaml (near_far at 256, 384 and 512 threads, in
#                rounds and asynchronous, delta at 256 and 384) on the same five graphs
#                -> results/sssp-cta-size.json; resumed when cut
#   msbfs-width  studies/msbfs-width.yaml (msbfs.bfs passes of 64, 128 and 256 sources
#                beside do.bfs, 1,024 sources a graph) -> results/msbfs-width.json; resumed
#                from its journal when cut (several calls; carry results/ between machines)
#   sssp-auto-warps   studies/sssp-auto-warps.yaml (near_far at 512 threads, with and without
#                the asynchronous leader, beside the defaults and sssp.delta, on sssp-auto's
#                thirteen graphs) -> results/sssp-auto-warps.json; resumed when cut
#   sssp-auto-heldout-warps   studies/sssp-auto-heldout-warps.yaml (auto.sssp with the table
#                in place beside the three near_far variants on deep graphs the table was not
#                built from, the NY road graph from .mirror/) -> results/sssp-auto-heldout-warps.json
#   graph500-large   the graph500 config (kernels 2 and 3, 64 keys, validate: certificate)
#                on scales 24 and 26 -> results/graph500-large.json, its --graph500 report;
#                cut by its limit, it goes on from its journal when run again
#   real-ny      the real New York road graph from a mirror folder (.mirror/, carried: the
#                DIMACS9 archive under its upstream name): reproduce luo --graph USA-road-d.NY
#                (Table 2's row; the copy's sha256 differs from the pin, hence
#                --accept-checksum), then the sssp-delta config's rows (sssp.*, raval.bs/ep,
#                gapbs's delta sweep and Gunrock's SSSP where their binaries are found,
#                cpu.dijkstra) on its distance weights and on the catalogue rule's, 10
#                sources -> results/sssp-ny.json (cut by its limit, resumed when run again)
#   reproduce-quick  gpubfs reproduce all --quick; a part cut by its limit stops the run
#                (SIGTERM keeps what was measured) and the same part again resumes it,
#                with results/reproduce-quick/ carried or still on the machine
# Beside other projects (the peers' binaries, found as below):
#   gunrock      do.yaml on its three low-diameter graphs: do.*, merrill.hybrid, peer.gunrock
#   gapbs        the CPU BFS and gapbs tests, then cpu-parallel.yaml (cpu.parallel_* beside
#                peer.gapbs at 1 thread and every core)
#   peers        peers-catalogue.yaml (do.bfs beside Gunrock and BLEST) on the last catalogue
#                graph run beside them (PEERS=... before the command gives it others)
#                -> results/peers-catalogue-P.json; cut by its limit, it goes on from its
#                journal when run again (on the same machine, or with it carried)
# Per-level and fixed cost:
#   levels       studies/merrill-levels.yaml (small-frontier modes), one line per variant: levels.sh
#   do-levels    studies/do-levels.yaml (do.bfs's mid-frontier mode, team sizes): levels.sh
#   gpu-levels   studies/gpu-levels.yaml: every GPU strategy's us per level
#   fixed-cost   scripts/fixed_cost.py: every GPU strategy from a 2-vertex component,
#                at its defaults and with small_frontier 512, and the launch floor
#                (FIXED_COST_ARGS replaces those flags, e.g. "--only do.bfs --floor")
#   probes       scripts/barrier_probe.py, and scripts/device/order_probe.py with idle gaps
#   check-effect do.bfs alone in five runs (128 sources of seed 0 on three graphs): no check,
#                checked against cpu.sequential, by certificate, checked and primed, no check
#                again -> results/check-effect-*.json, then each against the first
#                (report --compare): what the harness's checks cost the unprimed calls
# auto.bfs (docs/auto.md):
#   catalogue1 catalogue2 catalogue3   catalogue-gpu.yaml with auto.bfs, in three parts
#                (10 sources, 2 rounds) -> results/catalogue-K1.json ...; then, anywhere:
#                python scripts/build_auto_table.py [--check] results/catalogue-K*.json
#   contenders   catalogue-contenders.yaml (the candidates that can still win, every catalogue
#                graph, 10 sources, 2 rounds) -> results/catalogue-C.json: the table's files
#   heldout      the same with auto.bfs beside them -> results/heldout-catalogue-C.json
#   generalize   the same on graphs the table was not built from (HELDOUT below: other seeds,
#                other sizes, the New York road graph from .mirror/, carried), sources of
#                seed 1 -> results/generalize.json, then build_auto_table.py --check on it
#                Either, cut by its limit, goes on from its journal when run again (on the
#                same machine, or with results/*.journal.jsonl carried)
#   auto-gap     scripts/device/auto_gap.py on the small graphs
# LIMIT=SECONDS replaces every part's time limit (several parts in one 10-minute call).
# Logs and results go to $OUT/check-PART.tgz (one file per part), each part's log also to
# $OUT/check-PART.log as it runs (what a call cut by its own limit still returns); each
# part's last lines and its exit status are printed.
set -u
export PYTHONUNBUFFERED=1 OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" logs results
# The peers' folder: $GPUBFS_PEERS, else .peers/ (carried), else shared/peers/ (a shared/
# folder inside the checkout travels with it), else ../shared/peers/ beside the checkout.
# gpubfs finds a peer's binary only by its knob or its environment variable, so each
# binary found there is named by its variable (one already set is kept).
for d in "${GPUBFS_PEERS:-}" .peers shared/peers ../shared/peers; do
  if [ -n "$d" ] && [ -d "$d" ]; then GPUBFS_PEERS=$(cd "$d" && pwd); export GPUBFS_PEERS; break; fi
done
peer() {  # peer VARIABLE PATH: export VARIABLE=$GPUBFS_PEERS/PATH where it is executable and VARIABLE unset
  if [ -z "${!1:-}" ] && [ -x "$GPUBFS_PEERS/$2" ]; then export "$1=$GPUBFS_PEERS/$2"; fi
}
if [ -n "${GPUBFS_PEERS:-}" ]; then
  peer GPUBFS_GUNROCK_BFS gunrock/bfs; peer GPUBFS_GUNROCK_SSSP gunrock-sssp/sssp; peer GPUBFS_GAPBS_BFS gapbs/bfs
  peer GPUBFS_GAPBS_SSSP gapbs/sssp; peer GPUBFS_BLEST blest/run.sh
fi
python3 -m pip install -q --no-deps --no-build-isolation -e . > logs/install.log 2>&1 || { cat logs/install.log; exit 1; }
COMMON="-p no:cacheprovider -rfEs --maxfail=30 -o faulthandler_timeout=150"
G="python3 -m gpubfs_cli"
LOW=g500-s20-ef16,uniform-n21-e26,kron_g500-logn20-gen
SMALL=smoke-rmat,smoke-gnm,rmat20,Gen-ForestFire,luo-scalefree-1M,g500-s20-ef16
# auto.bfs held out: graphs none of its table's rules was built from (other generator seeds,
# other sizes, the real New York road graph from .mirror/), run from sources of seed 1
# (HELDOUT=... before the command gives the part other graphs)
HELDOUT=${HELDOUT:-rmat20@seed=2,ER20@seed=2,kron_g500-logn20-gen@seed=3,Gen-SmallWorld@seed=2,lbbfs-rmat-d8@seed=2,random.2Mv.128Me@seed=2,luo-scalefree-1M@seed=2,uniform-n21-e26@seed=2,Gen-ForestFire@seed=2,g500-s22-ef16,graph500-s24-ef20-seed2,geo-road-1M,USA-road-d.NY}
CATALOGUE1=smoke-rmat,smoke-gnm,smoke-grid,default-rmat,default-uniform,default-grid,levels-grid-2000,Gen-ForestFire,Gen-SmallWorld,rmat20,ER20,ER23,g500-s20-ef16,lbbfs-random-d2,lbbfs-random-d4,lbbfs-random-d8,lbbfs-random-d16,lbbfs-random-d32
CATALOGUE2=lbbfs-rmat-d2,lbbfs-rmat-d4,lbbfs-rmat-d8,lbbfs-rmat-d16,lbbfs-rmat-d32,luo-grid-1M,luo-grid-2M,luo-grid-5M,luo-grid-7M,luo-grid-9M,luo-grid-10M,luo-scalefree-1M,luo-scalefree-5M,grid7pt.300
CATALOGUE3=luo-scalefree-10M,random.2Mv.128Me,rmat.2Mv.128Me,kron_g500-logn20-gen,uniform-n21-e26,grid5pt.5000,graph500-s24-ef20-seed1
# the peers part: the last catalogue graph run beside them, two 10-minute calls on an H100
# (PEERS=... before the command gives the part other graphs)
PEERS=${PEERS:-graph500-s24-ef20-seed1}
# Graph 500's kernels 2 and 3 past the config's default scales (answers proved by certificate)
G500_LARGE=g500-s24-ef16@weights=graph500,g500-s26-ef16@weights=graph500
SSSP_PEERS=${SSSP_PEERS:-USA-road-d.NY,geo-road-1M,rmat20,ER20,luo-grid-1M,grid5pt.5000}
# the real New York road graph into the dataset cache from the carried mirror folder
NY="$G fetch-dataset USA-road-d.NY --mirror .mirror --accept-checksum"

run() {  # run PART LIMIT CMD...: a part's command with a time limit (LIMIT overrides), logged
  local part=$1 limit=${LIMIT:-$2}; shift 2
  local start; start=$(date +%s)
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader > "logs/$part.clocks" 2>&1
  # written to $OUT as it runs, so a call cut before the part ends still returns its log
  timeout "$limit" "$@" > "$OUT/check-$part.log" 2>&1
  local rc=$?
  cp "$OUT/check-$part.log" "logs/$part.log"
  echo "$part: rc=$rc $(( $(date +%s) - start ))s" | tee -a logs/parts.txt
  tail -6 "logs/$part.log"
  tar czf "$OUT/check-$part.tgz" logs results 2>/dev/null
  return $rc
}
sh_run() { local part=$1 limit=$2; shift 2; run "$part" "$limit" bash -c "$*"; }  # a part of several commands

# `config NAME OUT [FLAGS...]`: run config NAME (shipped, or studies/NAME.yaml where that
# exists) into results/OUT.json, then its report.
config() {
  local name=$1 out=$2; shift 2; [ -f "studies/$name.yaml" ] && name=studies/$name.yaml
  echo "$G run $name $* --out results/$out.json --force && $G report results/$out.json --format md"
}
# The catalogue with auto.bfs beside every candidate; SIGINT before the limit makes the
# runner write what it measured.
catalogue() {
  with_auto gpubfs_cli/configs/experiments/catalogue-gpu.yaml /tmp/catalogue-auto.yaml
  echo "timeout -s INT 550 $G run /tmp/catalogue-auto.yaml -d $2 --sources 10 --rounds 2 --out results/catalogue-K$1.json --force"
}
# `with_auto CONFIG OUT`: the config with auto.bfs first among its strategies
with_auto() { sed '/^strategies:$/a\  - auto.bfs' "$1" > "$2"; }
# `run_or_resume OUT RUN-ARGS...`: gpubfs run RUN-ARGS into results/OUT.json (SIGINT at 555 s
# writes what it measured), or its stopped run resumed from results/OUT.journal.jsonl
run_or_resume() {
  local out=$1; shift
  if [ -f "results/$out.journal.jsonl" ]; then
    echo "timeout -s INT 555 $G run --resume results/$out.journal.jsonl"
  else
    echo "timeout -s INT 555 $G run $* --out results/$out.json --force"
  fi
}

# `contenders OUT [auto [RUN-ARGS...]]`: catalogue-contenders.yaml (with auto.bfs) into
# results/OUT.json
contenders() {
  local cfg=gpubfs_cli/configs/experiments/catalogue-contenders.yaml
  if [ "${2:-}" = auto ]; then with_auto "$cfg" /tmp/contenders-auto.yaml; cfg=/tmp/contenders-auto.yaml; fi
  run_or_resume "$1" "$cfg" --rounds 2 "${@:3}"
}

status=0
for part in "$@"; do
  case "$part" in
    tests|tests-main|tests-paced) run "$part" 580 make "test-gpu${part#tests}" PYTHON=python3 PYTEST_ARGS="$COMMON" ;;
    sanitize) run sanitize 580 make test-gpu-sanitize PYTHON=python3 SANITIZE_ARGS="--jobs 6" ;;
    gather-ab) run gather-ab 400 env OUT="$PWD/logs/ab" bash scripts/device/gather_ab.sh ;;
    kernel-ab) run kernel-ab 580 env OUT="$PWD/logs/ab" bash scripts/device/kernel_ab.sh ;;
    run:*) name=${part#run:}; sh_run "run-$name" 580 "$(config "$name" "$name" "${RUN_ARGS:-}")" ;;
    lbbfs-random) sh_run "$part" 580 "$(config lbbfs lbbfs-random -d lbbfs-random-d2,lbbfs-random-d4,lbbfs-random-d8,lbbfs-random-d16,lbbfs-random-d32,random.2Mv.128Me)" ;;
    lbbfs-rmat) sh_run "$part" 580 "$(config lbbfs lbbfs-rmat -d lbbfs-rmat-d2,lbbfs-rmat-d4,lbbfs-rmat-d8,lbbfs-rmat-d16,lbbfs-rmat-d32,rmat.2Mv.128Me)" ;;
    raval) sh_run raval 580 "$(config raval raval -d rmat20,ER20,ER23) && $(config raval-chunking raval-chunking -d rmat20,ER20,ER23) &&" \
      "$G run -d levels-grid-2000 --problem sssp -s 'raval.*' -s cpu.dijkstra --sources 3 --out results/raval-lattice.json --force &&" \
      "$G report --paper raval results/raval*.json --format md" ;;
    raval-g500) sh_run raval-g500 580 "$(config raval raval-g500 -d graph500-s24-ef20-seed1 --sources 2 --time-limit 60)" ;;
    raval-g500-seeds23) sh_run "$part" 580 "$(config raval raval-g500-seeds23 -d graph500-s24-ef20-seed2,graph500-s24-ef20-seed3 --sources 2 --time-limit 60)" ;;
    reproduce:*) paper=${part#reproduce:}; sh_run "reproduce-$paper" 580 "$G reproduce $paper --dry-run && $G reproduce $paper" ;;
    reproduce-quick) run reproduce-quick 580 $G reproduce all --quick ;;
    real-ny) sh_run real-ny 580 "$G reproduce luo --graph USA-road-d.NY --mirror .mirror --accept-checksum --dry-run &&" \
      "$G reproduce luo --graph USA-road-d.NY --mirror .mirror --accept-checksum --results results/reproduce &&" \
      "$(run_or_resume sssp-ny sssp-delta -d USA-road-d.NY,USA-road-d.NY@weights=rule --sources 10) &&" \
      "$G report results/sssp-ny.json --format md &&" \
      "$G report --paper luo results/reproduce/luo/*.json --format md" ;;
    sssp-peers) sh_run "$part" 580 "$NY &&" \
      "$(run_or_resume sssp-peers sssp-delta -d "$SSSP_PEERS") &&" \
      "$G report results/sssp-peers.json --format md" ;;
    regions|regions-absorb) sh_run "$part" 580 "$NY && $(run_or_resume "$part" "studies/$part.yaml") && $G report results/$part.json --format md && $G report results/$part.json --metric us_level --format md" ;;
    sssp-delta-scale|sssp-delta-depth|sssp-hubs|sssp-rounds|sssp-leader-profile|sssp-direct|sssp-async|sssp-async-warps|sssp-auto-warps|sssp-auto-heldout-warps|sssp-cta-size|sssp-regions|sssp-regions-absorb) sh_run "$part" 580 "$NY &&" \
      "$(run_or_resume "$part" "studies/$part.yaml") && $G report results/$part.json --format md" ;;
    sssp-auto) sh_run "$part" 580 "$(run_or_resume sssp-auto studies/sssp-auto.yaml) &&" \
      "python3 scripts/build_auto_table.py --problem sssp results/sssp-auto.json &&" \
      "cp gpubfs_cli/algorithms/sssp/auto_table.yaml results/" ;;
    sssp-auto-heldout-regions) sh_run "$part" 580 "$NY && $(run_or_resume "$part" "studies/$part.yaml") &&" \
      "python3 scripts/build_auto_table.py --problem sssp --check results/$part.json;" \
      "python3 scripts/build_auto_table.py --problem sssp --check --table-only results/$part.json" ;;
    sssp-auto-heldout) sh_run "$part" 580 "$NY && $(run_or_resume sssp-auto-heldout studies/sssp-auto-heldout.yaml) &&" \
      "python3 scripts/build_auto_table.py --problem sssp --check results/sssp-auto-heldout.json;" \
      "python3 scripts/build_auto_table.py --problem sssp --check --table-only results/sssp-auto-heldout.json" ;;
    msbfs-width) sh_run "$part" 580 "$(run_or_resume "$part" "studies/$part.yaml") && $G report results/$part.json --format md" ;;
    graph500-large) sh_run "$part" 580 "$(run_or_resume graph500-large graph500 -d "$G500_LARGE") &&" \
      "$G report --graph500 results/graph500-large.json" ;;
    gunrock) sh_run gunrock 580 "$(config do do -d $LOW)" ;;
    gapbs) sh_run gapbs 580 "python3 -m pytest -q -rs -p no:cacheprovider tests/algorithms/bfs/cpu tests/algorithms/bfs/test_peer_gapbs.py" \
      "tests/graph/test_export_sg.py && (nproc; lscpu | head -20) > logs/cpu.txt && $(config cpu-parallel cpu-parallel)" ;;
    levels) run levels 580 env LIMIT=550 bash scripts/device/levels.sh merrill-levels ;;
    do-levels) run do-levels 580 env LIMIT=550 bash scripts/device/levels.sh do-levels ;;
    gpu-levels) sh_run gpu-levels 580 "$G run studies/gpu-levels.yaml --out results/gpu-levels.json --force &&" \
      "$G report results/gpu-levels.json --metric us_level --format md" ;;
    fixed-cost) run fixed-cost 580 python3 scripts/fixed_cost.py ${FIXED_COST_ARGS:---samples 50 --knobs small_frontier=512 --floor} \
      --json results/fixed_cost.json ;;
    check-effect)
      ce="$G run -d g500-s20-ef16,kron_g500-logn20-gen,lbbfs-rmat-d32 -s do.bfs --sources 128 --seed 0 --warmup 2"
      sh_run check-effect 400 "$ce --validate none --out results/check-effect-none.json --force &&" \
        "$ce --validate all --out results/check-effect-all.json --force &&" \
        "$ce --validate certificate --out results/check-effect-certificate.json --force &&" \
        "$ce --validate all --prime --out results/check-effect-all-primed.json --force &&" \
        "$ce --validate none --out results/check-effect-none-again.json --force &&" \
        "for r in all certificate all-primed none-again; do $G report --compare" \
        "results/check-effect-\$r.json results/check-effect-none.json; done" ;;
    probes) sh_run probes 400 "python3 scripts/barrier_probe.py && python3 scripts/device/order_probe.py --gaps 0,1,5,20,0" ;;
    catalogue1|catalogue2|catalogue3)
      i=${part#catalogue}; graphs=CATALOGUE$i
      sh_run "$part" 580 "$(catalogue "$i" "${!graphs}")" ;;
    peers) sh_run peers 580 "$(run_or_resume peers-catalogue-P peers-catalogue -d "$PEERS");" \
      "$G report results/peers-catalogue-P.json --metric ms --format md" ;;
    contenders) sh_run contenders 580 "$(contenders catalogue-C)" ;;
    heldout) sh_run heldout 580 "$(contenders heldout-catalogue-C auto)" ;;
    generalize) sh_run generalize 580 "$NY &&" \
      "$(contenders generalize auto -d "$HELDOUT" --seed 1) && python3 scripts/build_auto_table.py --check results/generalize.json" ;;
    auto-gap) run auto-gap 500 python3 scripts/device/auto_gap.py --graphs "$SMALL" --sources 10 --trials 3 --warmup-ms 50 ;;
    *) echo "unknown part $part (see the head of scripts/device/check.sh, or docs/ci.md)"; exit 2 ;;
  esac || status=1
done
cat logs/parts.txt
exit $status
