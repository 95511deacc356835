"""Which commits ran a results file: its recorded package tree matched against this checkout's history.

    .venv/bin/python scripts/commit_of_tree.py FILE...

A results file records its code as `environment.code`: the checkout's HEAD (with '+dirty'
when files had changed) and `tree`, the git tree id of the gpubfs_cli folder as it was on
disk. Where the machine's HEAD was stale or the tree dirty, the commit says little; the
tree says exactly which package ran. For each FILE this prints the recorded commit and
tree, then every commit of this checkout's history (all branches) whose gpubfs_cli tree
is that one, newest first, or that none is.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def trees_of_commits(folder: str = "gpubfs_cli") -> dict[str, list[str]]:
    """{tree id of `folder`: [commits holding it, newest first]} over every branch."""
    commits = subprocess.run(["git", "-C", str(ROOT), "rev-list", "--all"], check=True, capture_output=True,
                             text=True).stdout.split()
    query = "".join(f"{c}:{folder}\n" for c in commits)
    out = subprocess.run(["git", "-C", str(ROOT), "cat-file", "--batch-check"], input=query, check=True,
                         capture_output=True, text=True).stdout.splitlines()
    found: dict[str, list[str]] = {}
    for commit, line in zip(commits, out, strict=True):
        oid, kind = (line.split() + [""])[:2]  # "<id> <type> <size>", or "<name> missing"
        if kind == "tree":
            found.setdefault(oid, []).append(commit)
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    from gpubfs_cli.results.schema import load_results

    trees = trees_of_commits()
    failed = False
    for name in args.files:
        try:
            env = load_results(Path(name)).get("environment") or {}
        except Exception as exc:  # one line a file that cannot be read
            print(f"{name}: cannot be read ({exc})")
            failed = True
            continue
        code = env.get("code") if isinstance(env.get("code"), dict) else {}
        commit = code.get("commit") or env.get("git_commit")
        tree = code.get("tree") or env.get("source_tree")
        dirty = "+dirty" if code.get("dirty") else ""
        if not tree:
            print(f"{name}: recorded commit {commit}{dirty}, no tree recorded")
            continue
        matches = trees.get(tree, [])
        shown = ", ".join(c[:7] for c in matches[:5]) + (f" and {len(matches) - 5} more" if len(matches) > 5 else "")
        print(f"{name}: recorded commit {str(commit)[:7]}{dirty}, tree {tree[:8]}: "
              + (f"the package of {shown}" if matches else "no commit here has that tree"))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
