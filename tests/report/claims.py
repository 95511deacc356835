"""docs/results/claims.yaml: the index of every figure the docs quote from a file under
docs/results/, and how to recompute each one from its file (tests/report/test_claims.py).

The index holds claims. A claim is one statement of one doc backed by one or more shipped
files: `id`, `doc` (README.md or docs/NAME.md), `files` (paths under docs/results/), how
its figures are read, and `figures`, each with `figure`, the text the doc prints. How a
figure is read (keys of the figure, or of its claim for all its figures):

- one cell of the files' report (`report`: the `gpubfs report` arguments, `--format json`
  added; default: the plain overview in ms), picked by its labels: `row` (the table's
  first column: a dataset or a graph) and `column` (the column's header), in the table
  `table` (its id, or a unique part of its title; default: the first); `field` reads the
  cell's `low` or `high` (interquartile range), `published` or `knob` instead of its value;
- `variant`: one group of the files' samples (`dataset`, `strategy`, and where needed
  `knobs`, `predecessors`, `problem`, `batched`, and `baseline`: the strategy a speedup is
  over) and its `metric` (ms, gteps, speedup, us_level, us_iteration, counter.NAME) as the
  report computes it (report/aggregate.py), or summary.NAME (the group's max_ms, min_ms):
  the knob sweep's other values, which a report cell (the best one) does not show;
- `ratio`: two of the above, the first over the second;
- `paired`: two variants (as above, without `metric`): the median over their common
  sources of the first's time over the second's, with its 95 % bootstrap interval
  (results/statistics.bootstrap_ratio, paired); `field` reads `low` or `high` of it, or
  `min` or `max` of the ratios;
  `mark` (a table too dense to print intervals): the figure ends in that mark exactly
  where its interval contains 1.00; `passes: N` (the second variant batched, N sources a
  pass): both sides summed over each pass, in the order the second ran its sources, and the
  median of the per-pass ratios (results/statistics.pass_sums): a throughput ratio;
- `prepare`: one prepare record of the files (`dataset`, `strategy`, and `knobs` where
  needed, a subset of the record's) and its `field`, dotted (`time_ms`, `upload_ms`,
  `setup.ranks_start_ms`, `device_bytes.1`: rank 1's bytes);
- `match`: a regular expression searched in a printed-table file (`file`, else the
  claim's only file) whose first group is the figure; `count`: one whose number of
  matching lines in such a file is the figure.

`scale` multiplies what is read (100: a percentage; 1e-6: a count printed in millions).
A figure equals its recomputed value rounded to as many decimals as the doc prints
(thousands separators as the doc prints them); a figure that is not a number equals the
text read. A claim's doc names each of its files (`FOLDER/NAME`, a pattern of them, or the
bare name in a section that names the folder; `cited_as` gives the text where the doc
names them otherwise), and each figure stands in a section of the doc that names one.
"""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results"
INDEX = RESULTS / "claims.yaml"
# The docs whose figures the index covers: README.md and every docs/*.md.
DOCS = ("README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")))
# A folder of docs/results/: a machine and a date.
FOLDER = r"(?:h100|h200|epyc2)(?:x\d)?-\d{4}-\d{2}-\d{2}"
# A file of one, as docs name it: a path (with * or {a,b} standing for several) ending in
# a shipped file's extension.
CITED = re.compile(rf"(?<![\w-])(?:docs/results/)?({FOLDER})/([\w.*{{}},-]*?\.(?:json\.gz|txt|log|md))(?![\w.])")
FOLDER_NAMED = re.compile(rf"(?<![\w-])({FOLDER})/")
BARE = re.compile(r"`([\w*{},-]+\.(?:json\.gz|txt|log))`")
KEYS = {"id", "doc", "files", "report", "table", "figures", "cited_as"}
FIGURE_KEYS = {"figure", "row", "column", "table", "field", "variant", "metric", "teps", "ratio", "scale",
               "match", "count", "file", "report", "paired", "mark", "prepare", "passes"}


@dataclass(frozen=True)
class Figure:
    claim: str
    doc: str
    files: tuple[str, ...]
    figure: str
    how: dict[str, Any] = field(hash=False, compare=False)

    @property
    def name(self) -> str:
        return f"{self.claim}: {self.figure}"


def load_index(path: Path = INDEX) -> list[dict[str, Any]]:
    claims = yaml.safe_load(path.read_text())["claims"]
    ids = [c["id"] for c in claims]
    assert len(ids) == len(set(ids)), "two claims share an id"
    for c in claims:
        assert set(c) <= KEYS and {"id", "doc", "files", "figures"} <= set(c), c["id"]
        for f in c["figures"]:
            assert set(f) <= FIGURE_KEYS and "figure" in f, (c["id"], f)
            assert "mark" not in f or "paired" in f, (c["id"], f)  # the mark reads a paired interval
    return claims


def figures(claims: list[dict[str, Any]]) -> list[Figure]:
    out = []
    for c in claims:
        shared = {k: c[k] for k in ("report", "table") if k in c}
        for f in c["figures"]:
            out.append(Figure(c["id"], c["doc"], tuple(c["files"]), str(f["figure"]), {**shared, **f}))
    return out


def indexed_files(claims: list[dict[str, Any]]) -> set[str]:
    return {f for c in claims for f in c["files"]}


def shipped_files() -> set[str]:
    """Every file under docs/results/ but the index, as a path below it."""
    return {p.relative_to(RESULTS).as_posix() for p in RESULTS.rglob("*") if p.is_file() and p != INDEX}


# --------------------------------------------------------------------------- reading


class Reader:
    """Recomputes figures; each report, pool of samples and text file is read once."""

    def __init__(self):
        self._reports: dict[tuple, dict] = {}
        self._aggregates: dict[tuple, Any] = {}

    def report(self, files: tuple[str, ...], args: tuple[str, ...]) -> dict:
        key = (files, args)
        if key not in self._reports:
            from typer.testing import CliRunner

            from gpubfs_cli.cli import app

            r = CliRunner().invoke(app, ["report", "--format", "json", *args, *(str(RESULTS / f) for f in files)])
            assert r.exit_code == 0, r.output
            self._reports[key] = json.loads(r.stdout)
        return self._reports[key]

    def aggregate(self, files: tuple[str, ...], problem: str, teps: str, batched: bool, baseline: str | None):
        key = (files, problem, teps, batched, baseline)
        if key not in self._aggregates:
            from gpubfs_cli.report.aggregate import Aggregate
            from gpubfs_cli.report.load import load_many

            self._aggregates[key] = Aggregate(load_many([RESULTS / f for f in files]), problem, teps,
                                              baseline=baseline, batched=batched)
        return self._aggregates[key]

    def value(self, fig: Figure, how: dict[str, Any]) -> Any:
        files = tuple(f for f in fig.files if f.endswith(".json.gz"))  # the results files; the rest is text
        if "ratio" in how:
            top, bottom = (self.value(fig, {**{k: v for k, v in how.items() if k in ("report", "table")}, **part})
                           for part in how["ratio"])
            return top / bottom * how.get("scale", 1)
        if "count" in how:  # how many lines of a printed table match: rules a strategy won, say
            name = how.get("file") or _only(fig.files, fig)
            return len(re.findall(how["count"], (RESULTS / name).read_text(), re.M))
        if "match" in how:
            name = how.get("file") or _only(fig.files, fig)
            found = re.search(how["match"], (RESULTS / name).read_text(), re.M)
            assert found, f"{fig.name}: /{how['match']}/ is not in {name}"
            if "scale" in how:  # e.g. 1e-6: edges printed in millions
                return float(found.group(1).replace(",", "")) * how["scale"]
            return found.group(1)
        if "prepare" in how:
            return self.prepared(fig, files, how["prepare"], how["field"]) * how.get("scale", 1)
        if "paired" in how:
            from gpubfs_cli.results.statistics import bootstrap_ratio, pass_sums

            (agg, top), (_, bottom) = (self.group(fig, files, how, part) for part in how["paired"])
            if "passes" in how:  # the second side batched: its passes of `passes` sources, in run order
                order, size = list(bottom.times), how["passes"]
                assert all(len({bottom.times[s] for s in order[i:i + size]}) == 1 for i in range(0, len(order), size)), \
                    f"{fig.name}: the second side's times are not one per pass of {size}"
                a, b = pass_sums(order, size, top.times, bottom.times)
                assert len(a), f"{fig.name}: no whole pass of {how['passes']} sources"
            else:
                common = sorted(set(top.times) & set(bottom.times))
                a, b = [top.times[s] for s in common], [bottom.times[s] for s in common]
            estimate, low, high = bootstrap_ratio(a, b, paired=True)
            ratios = np.asarray(a) / np.asarray(b)
            picked = {"value": estimate, "low": low, "high": high, "min": ratios.min(),
                      "max": ratios.max()}[how.get("field", "value")]
            return picked * how.get("scale", 1)
        if "variant" in how:
            agg, group = self.group(fig, files, how, how["variant"])
            metric = how.get("metric", "ms")
            if metric.startswith("summary."):  # a group's summary: its max_ms, min_ms, q25_ms...
                return group.summary[metric.removeprefix("summary.")] * how.get("scale", 1)
            return agg.value(group, metric) * how.get("scale", 1)
        doc = self.report(files, tuple(str(a) for a in how.get("report", ())))
        cell = pick_cell(doc, how.get("table"), str(how["row"]), str(how["column"]), fig.name)
        value = cell.get(how.get("field", "value"))
        assert value is not None, f"{fig.name}: the cell reads {cell['text']!r}"
        return value * how.get("scale", 1)

    def prepared(self, fig: Figure, files: tuple[str, ...], which: dict[str, Any], path: str) -> Any:
        """`path` (dotted) of the one prepare record of `files` that `which` names."""
        from gpubfs_cli.results.schema import load_results

        knobs = which.get("knobs", {})
        found = [p for f in files for p in load_results(RESULTS / f)["prepares"]
                 if p["dataset"] == which["dataset"] and p["strategy"] == which["strategy"]
                 and all(p["knobs"].get(k) == v for k, v in knobs.items())]
        assert len(found) == 1, f"{fig.name}: {len(found)} prepare records match {which}"
        value: Any = found[0]
        for part in path.split("."):
            value = value[int(part)] if isinstance(value, list) else value[part]
        return value

    def group(self, fig: Figure, files: tuple[str, ...], how: dict[str, Any], variant: dict[str, Any]):
        """(the aggregate, the one group of its samples) that `variant` names."""
        v = dict(variant)
        agg = self.aggregate(files, v.pop("problem", "bfs"), how.get("teps", "edges"), v.pop("batched", False),
                             v.pop("baseline", None))
        groups = agg.variants(v.pop("dataset"), v.pop("strategy"), v.pop("predecessors", False), v.pop("knobs", {}))
        assert not v, f"{fig.name}: unknown variant keys {sorted(v)}"
        assert len(groups) == 1, f"{fig.name}: {len(groups)} groups match {variant}"
        return agg, groups[0]

    def recompute(self, fig: Figure) -> str:
        """The figure as recomputed, printed as the doc prints it."""
        mark = fig.how.get("mark")
        if mark is None:
            return as_printed(self.value(fig, fig.how), fig.figure)
        printed = as_printed(self.value(fig, fig.how), fig.figure.removesuffix(mark))
        low, high = (self.value(fig, {**fig.how, "field": end}) for end in ("low", "high"))
        return printed + mark if low <= 1 <= high else printed


def _only(files: tuple[str, ...], fig: Figure) -> str:
    assert len(files) == 1, f"{fig.name}: name the `file` the figure is read from"
    return files[0]


def pick_table(doc: dict, table: str | None, what: str) -> dict:
    tables = doc["tables"]
    if table is None:
        return tables[0]
    found = [t for t in tables if t["id"] == table] or [t for t in tables if table in t["title"]]
    assert len(found) == 1, f"{what}: {len(found)} tables match {table!r}: {[t['id'] for t in tables]}"
    return found[0]


def pick_cell(doc: dict, table: str | None, row: str, column: str, what: str) -> dict:
    t = pick_table(doc, table, what)
    cols = [i for i, c in enumerate(t["columns"]) if c == column]
    assert len(cols) == 1, f"{what}: column {column!r} not one of {t['columns']}"
    rows = [r for r in t["rows"] if r[0]["text"] == row]
    assert len(rows) == 1, f"{what}: row {row!r} not one of {[r[0]['text'] for r in t['rows']]}"
    return rows[0][cols[0]]


NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")


def as_printed(value: Any, figure: str) -> str:
    """`value` rounded as `figure` is printed: as many decimals, thousands separators as
    `figure` has them; a value that is text stays as it is."""
    if isinstance(value, str):
        try:
            value = float(value.replace(",", ""))
        except ValueError:
            return value
    if not NUMBER.fullmatch(figure):
        return str(value)
    decimals = len(figure.split(".")[1]) if "." in figure else 0
    return f"{value:,.{decimals}f}" if "," in figure else f"{value:.{decimals}f}"


# --------------------------------------------------------------------------- the docs


def sections(text: str) -> list[str]:
    """A markdown text cut at its headings (those outside code blocks)."""
    out, current, fenced = [], [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if line.startswith("#") and not fenced and current:
            out.append("\n".join(current))
            current = []
        current.append(line)
    out.append("\n".join(current))
    return out


def expand(pattern: str) -> list[str]:
    """'a-{1,2}.txt' -> ['a-1.txt', 'a-2.txt'] (a glob's * left as it is)."""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    return [x for alt in m.group(1).split(",") for x in expand(pattern[:m.start()] + alt + pattern[m.end():])]


def citations(text: str) -> list[str]:
    """The paths under docs/results/ a text names (folder/name, braces expanded; globs kept)."""
    return [p for folder, name in CITED.findall(text) for p in expand(f"{folder}/{name}")]


def bare_names(text: str) -> list[str]:
    """The file names a text quotes without their folder (`name.json.gz`, braces expanded)."""
    return [p for name in BARE.findall(text) for p in expand(name)]


def folders(text: str) -> set[str]:
    """The folders of docs/results/ a text names (`FOLDER/`, alone or in a path)."""
    return set(FOLDER_NAMED.findall(text))


def cites(text: str, path: str) -> bool:
    """Whether `text` (a doc's section) names the file `path` (folder/name): as a path or a
    pattern of one, or by its bare name in a section that names its folder
    (`docs/results/FOLDER/`)."""
    if any(fnmatch.fnmatchcase(path, p) for p in citations(text)):
        return True
    folder, name = path.split("/", 1)
    return folder in folders(text) and any(fnmatch.fnmatchcase(name, p) for p in bare_names(text))


def stands_in(figure: str, text: str) -> bool:
    """Whether `figure` is printed in `text` as a number of its own (not part of a longer one)."""
    return re.search(rf"(?<![\d.,]){re.escape(figure)}(?!\d|[.,]\d)", text) is not None
