"""Per-level profile of do.bfs from a results file (run with `profile: true`): for the
first sample of each do.* variant that kept counters.profile, one line per level with
its direction, frontier size, microseconds of the frontier conversion and of the step,
and the vertices and edges it examined; then the time per direction, and the kernel's
span (set-up, to the first level's stamp, levels) beside the timed figure.

    python scripts/device/do_profile.py results/do-profile-*.json
"""

from __future__ import annotations

import sys
from collections import defaultdict

from gpubfs_cli.algorithms.bfs.gpu.do.strategies import profile_rows, profile_span
from gpubfs_cli.results.schema import load_results


def main(paths: list[str]) -> int:
    if not paths:
        print("usage: do_profile.py RESULTS.json ...", file=sys.stderr)
        return 2
    shown = 0
    for path in paths:
        doc = load_results(path)  # *.json or *.json.gz
        for s in doc.get("samples", []):
            c = s.get("counters") or {}
            if not s["strategy"].startswith("do.") or "profile" not in c:
                continue
            shown += 1
            rows = profile_rows(c["profile"], c)
            print(f"\n{path}: {s['dataset']} {s['strategy']} {s.get('knobs')} source {s['source']} "
                  f"({s['time_ms']} ms timed, levels {c['levels']}, bottom-up {c['bottom_up_levels']})")
            print(f"{'level':>5} {'dir':>9} {'frontier':>9} {'conv us':>8} {'step us':>8} "
                  f"{'vertices':>10} {'edges':>11}")
            per_dir: dict[str, float] = defaultdict(float)
            for r in rows:
                per_dir[r["direction"]] += r["convert_us"] + r["step_us"]
                print(f"{r['level']:>5} {r['direction']:>9} {r['frontier']:>9} {r['convert_us']:>8.1f} "
                      f"{r['step_us']:>8.1f} {r['vertices_examined']:>10} {r['edges_examined']:>11}")
            print("  per direction (us): " + ", ".join(f"{d} {t:.1f}" for d, t in sorted(per_dir.items())))
            if "profile_header" in c:
                span = profile_span(c)
                print(f"  kernel (us): {span['kernel_us']:.1f} = set-up {span['setup_us']:.1f} + to the first "
                      f"stamp {span['to_first_stamp_us']:.1f} + levels {span['levels_us']:.1f}; timed "
                      f"{float(s['time_ms']) * 1e3:.1f}")
    if not shown:
        print("no do.* sample with counters.profile in these files", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
