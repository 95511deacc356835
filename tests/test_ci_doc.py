"""docs/ci.md against the code it describes: its tables of scripts/device/check.sh's parts
list every part and no other, each with the time limit check.sh gives it, and the counts
its prose quotes are the ones the configs, the Makefile and the scripts set."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.report.claims import RESULTS, ROOT

DOC = ROOT / "docs" / "ci.md"
CHECK = ROOT / "scripts" / "device" / "check.sh"
# One device call's wall-clock limit: every part must fit in one (docs/ci.md says so).
CALL_S = 600


def script_limits(text: str) -> dict[str, int]:
    """check.sh's parts as its `case` names them (`run:*`, `catalogue1`), each with the limit
    of its `run PART LIMIT ...` or `sh_run PART LIMIT ...` line."""
    block = re.search(r'^\s*case "\$part" in\n(.*?)^\s*esac\b', text, re.M | re.S)
    assert block, "check.sh: no `case \"$part\" in ... esac` of its parts"
    out = {}
    for arm in block.group(1).split(";;"):
        m = re.match(r"\s*([\w:*|-]+)\)\s*(.*)", arm, re.S)
        if not m or m.group(1) == "*":
            continue
        limit = re.search(r"(?<![\w-])(?:sh_run|run) (?:\"[^\"]*\"|\S+) (\d+)\b", m.group(2))
        assert limit, f"check.sh: part {m.group(1)} runs through no `run`/`sh_run` with a limit"
        for name in m.group(1).split("|"):
            out[name] = int(limit.group(1))
    return out


def doc_rows(text: str) -> list[tuple[str, str]]:
    """(part, limit cell) for each part named in the first column of the doc's tables whose
    last column is `limit (s)`; `run:NAME` is check.sh's `run:*`."""
    rows, in_table = [], False
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if not cells:
            in_table = False
        elif cells[0] == "part":
            in_table = cells[-1] == "limit (s)"
        elif in_table and not set(cells[0]) <= set("-:"):
            for part in re.findall(r"`([^`]+)`", cells[0]):
                rows.append((re.sub(r":[A-Z]+$", ":*", part), cells[-1]))
    return rows


def mismatches(rows: list[tuple[str, str]], limits: dict[str, int]) -> list[str]:
    out, seen = [], set()
    for part, cell in rows:
        if part in seen:
            out.append(f"{part}: listed twice in docs/ci.md")
        seen.add(part)
        if part not in limits:
            out.append(f"{part}: in docs/ci.md, not a part of scripts/device/check.sh")
        elif cell != str(limits[part]):
            out.append(f"{part}: docs/ci.md gives the limit {cell!r}, check.sh {limits[part]}")
    out += [f"{part}: a part of scripts/device/check.sh missing from docs/ci.md"
            for part in sorted(set(limits) - seen)]
    return out


def test_the_doc_lists_every_part_with_its_limit():
    limits = script_limits(CHECK.read_text())
    assert {"tests", "run:*", "catalogue3", "peers", "auto-gap"} <= set(limits)
    assert mismatches(doc_rows(DOC.read_text()), limits) == []


def test_each_part_fits_one_call_and_limit_overrides_them_all():
    text = CHECK.read_text()
    assert all(s <= CALL_S for s in script_limits(text).values())
    assert "limit=${LIMIT:-$2}" in text  # docs/ci.md: LIMIT=SECONDS replaces every part's


def test_a_changed_limit_is_named():
    text = CHECK.read_text()
    planted = text.replace("gather-ab) run gather-ab 400 ", "gather-ab) run gather-ab 450 ")
    assert planted != text
    assert mismatches(doc_rows(DOC.read_text()), script_limits(planted)) == [
        "gather-ab: docs/ci.md gives the limit '400', check.sh 450"]


def test_a_part_missing_from_the_doc_is_named():
    doc = "\n".join(line for line in DOC.read_text().splitlines() if not line.startswith("| `auto-gap`"))
    assert mismatches(doc_rows(doc), script_limits(CHECK.read_text())) == [
        "auto-gap: a part of scripts/device/check.sh missing from docs/ci.md"]


def test_a_part_check_sh_lacks_is_named():
    doc = DOC.read_text().replace("| `probes` |", "| `probes`, `ghost` |")
    assert mismatches(doc_rows(doc), script_limits(CHECK.read_text())) == [
        "ghost: in docs/ci.md, not a part of scripts/device/check.sh"]


def test_a_part_only_in_a_new_case_arm_is_missing():
    text = CHECK.read_text().replace("    auto-gap)", "    ghost) run ghost 100 true ;;\n    auto-gap)")
    assert mismatches(doc_rows(DOC.read_text()), script_limits(text)) == [
        "ghost: a part of scripts/device/check.sh missing from docs/ci.md"]


def test_the_h100_passes_outlast_the_whole_tests_part():
    # docs/ci.md's reason to run tests-main and tests-paced apart
    log = (RESULTS / "h100-2026-11-27" / "make-test-gpu.log").read_text()
    passes = [float(s) for s in re.findall(r"^\d+ passed, \d+ skipped in ([\d.]+)s", log, re.M)]
    assert len(passes) == 2 and sum(passes) > script_limits(CHECK.read_text())["tests"]


def _yaml(name: str) -> dict:
    return yaml.safe_load((ROOT / "gpubfs_cli" / "configs" / "experiments" / f"{name}.yaml").read_text())


def _has(path: str, pattern: str) -> bool:
    return re.search(pattern, (ROOT / path).read_text(), re.M) is not None


SMALL = re.search(r"^SMALL=(\S+)", CHECK.read_text(), re.M)
# (what docs/ci.md prints, whether the code sets what it says)
PROSE = [
    ("three tiny generated graphs, every strategy, 8 sources, one warm-up",
     lambda: (len(_yaml("smoke")["datasets"]), _yaml("smoke")["strategies"], _yaml("smoke")["sources"],
              _yaml("smoke")["warmup"]) == (3, "all", 8, 1)),
    ("`SMOKE_PCT=200`", lambda: _has("Makefile", r"^SMOKE_PCT \?= 200$")),
    ("`--min-change 50`, which `make smoke` passes", lambda: _has("Makefile", r"^SMOKE_MIN_CHANGE \?= 50$")),
    ("the default 10% band", lambda: _has("gpubfs_cli/cli.py", r'typer\.Option\(10\.0, "--min-change"')),
    ("on 6 pytest-xdist workers", lambda: _has("Makefile", r"^GPU_WORKERS \?= 6$")),
    ("listing its 15 slowest tests",
     lambda: len(re.findall(r"host_paced\".*--durations=15 ", (ROOT / "Makefile").read_text())) == 2),
    ("six sanitizer processes", lambda: _has("scripts/device/check.sh", r'SANITIZE_ARGS="--jobs 6"')),
    ("N processes, 4 by default", lambda: _has("scripts/sanitize.py", r'"--jobs", type=int, default=4\b')),
    ("100 sources each", lambda: _yaml("lbbfs")["sources"] == 100),
    ("seeds 2 and 3, 2 sources each",
     lambda: len(re.findall(r"raval-g500\S* -d graph500-s24-ef20-seed\S+ --sources 2 ", CHECK.read_text())) == 2),
    ("10 sources, 2 rounds, in three parts",
     lambda: _has("scripts/device/check.sh", r"--sources 10 --rounds 2 --out results/catalogue-K")
     and len([p for p in script_limits(CHECK.read_text()) if p.startswith("catalogue")]) == 3),
    ("on all 39 graphs", lambda: len(_yaml("catalogue-contenders")["datasets"]) == 39),
    ("on six small graphs", lambda: SMALL is not None and len(SMALL.group(1).split(",")) == 6),
]


@pytest.mark.parametrize("printed, holds", PROSE, ids=[p for p, _ in PROSE])
def test_each_count_the_prose_quotes_is_the_codes(printed, holds):
    assert printed in " ".join(DOC.read_text().split()), f"docs/ci.md no longer prints {printed!r}"
    assert holds(), f"docs/ci.md prints {printed!r}: the code says otherwise"
