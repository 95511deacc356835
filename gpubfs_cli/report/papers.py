"""configs/papers/KEY.yaml: each paper's published numbers, checked on load.

Schema (unknown keys are errors; a bad file is a one-line UserError naming file and key):
  key, title, authors, venue           strings; key equals the file name
  hardware: {gpu, cpu, other?}         what the paper ran on
  units: {NAME: text}                  free text per unit
  datasets: {PAPER NAME: OURS | [OURS, ...]}   printed name -> catalogue name(s); the first
                                       with results is measured
  strategies: [{name, what}]           the strategies the paper defines (ours, by name)
  tables: [{id, title, figure_only?, notes?, plot?, columns, rows}]
    plot:   {kind: bars|stacked|lines, x?: COLUMN KEY (lines: the x axis, a stat column),
             ylabel?, log?: bool}: the figure `report --paper KEY --plot DIR` draws of the
             measured cells (bars: one bar per strategy column per row; stacked: columns
             with the same `stack` label are stacked into one bar; lines: one line per
             strategy column over x)
    column: {key, header, and either stat: STAT (a graph fact from the results' datasets
             section; scale: divide by, decimals: shown digits) or strategy: NAME|null with
             metric: METRICS, problem?: bfs|sssp, predecessors?: bool, knobs?: {KNOB: value}
             (only the variants with these knob values), published_from?: [COL, COL]
             (published value derived as COL / COL, e.g. a rate over a speedup)}
    row:    {graph: PAPER NAME, label?: printed row label, COLUMN KEY: published value}
            published value: a number (quote it, "0.50", to keep the printed digits),
            {value: N, knob: LABEL}, or one of PUBLISHED_STATUSES
  text_numbers: [{what, value, unit?, where?}]   numbers stated outside the tables
  notes: text
"""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpubfs_cli.configs import papers_dir as shipped_papers
from gpubfs_cli.errors import UserError, unknown_name
from gpubfs_cli.files import parse_yaml, read_text_file
from gpubfs_cli.report.aggregate import METRICS as CELL_METRICS
from gpubfs_cli.report.aggregate import is_metric

STATS = ("n", "m", "avg_degree", "std_degree", "max_degree", "mode_degree", "avg_depth", "max_depth")
# "rank": the column's place (1 = fastest by median time) among the row's rank columns.
METRICS = CELL_METRICS + ("rank",)
PUBLISHED_STATUSES = ("out-of-time", "out-of-memory", "not run", "unreadable")
_PRINTED_NUMBER = re.compile(r"^-?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$")  # "0.50", "59,620.0"

_TOP = {"key", "title", "authors", "venue", "hardware", "units", "datasets", "strategies",
        "tables", "text_numbers", "notes",
        "configs"}  # configs: the run configs of `gpubfs reproduce KEY` (workflows/reproduce.py reads them)
_TOP_REQUIRED = ("key", "title", "venue", "hardware", "datasets", "tables")
_HARDWARE = {"gpu", "cpu", "other"}
_TABLE = {"id", "title", "figure_only", "notes", "columns", "rows", "plot"}
_PLOT = {"kind", "x", "ylabel", "log"}
PLOT_KINDS = ("bars", "stacked", "lines")
_COLUMN = {"key", "header", "stat", "scale", "decimals", "strategy", "problem", "metric", "predecessors",
           "knobs", "published_from", "notes", "stack"}
_STRATEGY = {"name", "what"}
_TEXT_NUMBER = {"what", "value", "unit", "where"}


@dataclass
class Published:
    value: float | None = None
    knob: str | None = None
    status: str | None = None  # one of PUBLISHED_STATUSES
    printed: str | None = None  # the digits as printed, when given as a quoted number ("0.50")

    @property
    def text(self) -> str:
        from gpubfs_cli.report.table import fmt_published

        if self.status is not None:
            return self.status
        shown = self.printed if self.printed is not None else fmt_published(self.value)
        return shown + (f" ({self.knob})" if self.knob else "")


@dataclass
class Column:
    key: str
    header: str
    stat: str | None = None
    scale: float = 1.0
    decimals: int | None = None
    strategy: str | None = None
    problem: str = "bfs"  # the problem whose samples the column reads (bfs, sssp)
    metric: str | None = None
    predecessors: bool = False
    knobs: dict[str, Any] = field(default_factory=dict)  # only variants with these knob values
    published_from: tuple[str, str] | None = None
    stack: str | None = None  # stacked plots: the bar this column is a segment of


@dataclass
class Row:
    graph: str
    label: str
    published: dict[str, Published] = field(default_factory=dict)


@dataclass
class PaperTable:
    id: str
    title: str
    columns: list[Column]
    rows: list[Row]
    figure_only: bool = False
    notes: str = ""
    plot: dict[str, Any] | None = None


@dataclass
class Paper:
    key: str
    title: str
    authors: str
    venue: str
    hardware: dict[str, str]
    units: dict[str, str]
    datasets: dict[str, list[str]]
    strategies: list[dict[str, str]]
    tables: list[PaperTable]
    text_numbers: list[dict[str, Any]]
    notes: str
    path: str


PAPERS_DIR_ENV = "GPUBFS_PAPERS_DIR"


def papers_dir() -> Path:
    """The shipped configs/papers ($GPUBFS_PAPERS_DIR overrides, for tests)."""
    env = os.environ.get(PAPERS_DIR_ENV)
    return Path(env) if env else shipped_papers()


def paper_keys(folder: Path | None = None) -> list[str]:
    """The KEY of every KEY.yaml in the papers' folder. A folder that is missing, is not
    a folder, cannot be read or holds no KEY.yaml is one UserError: every command that
    reads the papers would otherwise show an empty table or call each key unknown."""
    folder = folder or papers_dir()
    try:
        with os.scandir(folder) as entries:
            keys = sorted(e.name[: -len(".yaml")] for e in entries if e.name.endswith(".yaml") and e.name != ".yaml")
    except FileNotFoundError:
        raise _folder_error(folder, "a symbolic link that points nowhere" if folder.is_symlink()
                            else "no such folder") from None
    except NotADirectoryError:
        raise _folder_error(folder, "not a folder") from None
    except OSError as exc:
        what = ("a symbolic link that loops" if exc.errno == errno.ELOOP
                else f"cannot read the papers' folder ({exc.strerror or exc})")
        raise _folder_error(folder, what) from None
    if not keys:
        raise _folder_error(folder, "holds no paper layout (no KEY.yaml file)")
    return keys


def _folder_error(folder: Path, what: str) -> UserError:
    """One line naming the folder, where it came from and what to do."""
    env = os.environ.get(PAPERS_DIR_ENV)
    if env and Path(env) == folder:
        return UserError(f"{folder} (${PAPERS_DIR_ENV}): {what}; set ${PAPERS_DIR_ENV} to a folder of paper "
                         "layouts (KEY.yaml), or unset it for the shipped ones")
    if folder == shipped_papers():
        return UserError(f"{folder}: {what}; the installed gpubfs lacks its paper layouts: reinstall it")
    return UserError(f"{folder}: {what}; expected a folder of paper layouts (KEY.yaml)")


class _Checker:
    def __init__(self, path: str):
        self.path = path

    def fail(self, where: str, expected: str) -> UserError:
        return UserError(f"{self.path}: {where}: {expected}")

    def mapping(self, obj: Any, where: str, allowed: set[str], required=()) -> dict:
        if not isinstance(obj, dict):
            raise self.fail(where, "expected a mapping")
        for k in obj:
            if k not in allowed:
                err = unknown_name("key", str(k), allowed)
                raise self.fail(f"{where}.{k}" if where else str(k), str(err))
        for k in required:
            if k not in obj:
                raise self.fail(where or "top level", f"missing key '{k}'")
        return obj

    def string(self, obj: Any, where: str) -> str:
        if not isinstance(obj, str) or not obj.strip():
            raise self.fail(where, "expected a non-empty string")
        return obj

    def number(self, obj: Any, where: str) -> float:
        if isinstance(obj, bool) or not isinstance(obj, (int, float)):
            raise self.fail(where, f"expected a number, got {obj!r}")
        return obj

    def listing(self, obj: Any, where: str) -> list:
        if not isinstance(obj, list):
            raise self.fail(where, "expected a list")
        return obj

    def published(self, obj: Any, where: str) -> Published:
        if isinstance(obj, dict):
            self.mapping(obj, where, {"value", "knob"}, ("value",))
            knob = self.string(obj["knob"], f"{where}.knob") if "knob" in obj else None
            inner = self.published(obj["value"], f"{where}.value")
            if inner.value is None:
                raise self.fail(f"{where}.value", "expected a number")
            inner.knob = knob
            return inner
        if isinstance(obj, str) and _PRINTED_NUMBER.match(obj):
            return Published(value=float(obj.replace(",", "")), printed=obj)
        if isinstance(obj, str):
            if obj not in PUBLISHED_STATUSES:
                raise self.fail(where, f"expected a number, {{value, knob}} or one of "
                                f"{', '.join(PUBLISHED_STATUSES)}; got '{obj}'")
            return Published(status=obj)
        return Published(value=self.number(obj, where))


def _column(c: _Checker, raw: Any, where: str) -> Column:
    c.mapping(raw, where, _COLUMN, ("key", "header"))
    col = Column(key=c.string(raw["key"], f"{where}.key"), header=c.string(raw["header"], f"{where}.header"))
    if ("stat" in raw) == ("strategy" in raw):
        raise c.fail(where, "expected exactly one of 'stat' or 'strategy'")
    if "stat" in raw:
        if raw["stat"] not in STATS:
            raise c.fail(f"{where}.stat", str(unknown_name("stat", str(raw["stat"]), STATS)))
        col.stat = raw["stat"]
        col.scale = float(c.number(raw.get("scale", 1.0), f"{where}.scale"))
        if "decimals" in raw:
            d = raw["decimals"]
            if not isinstance(d, int) or isinstance(d, bool) or not 0 <= d <= 6:
                raise c.fail(f"{where}.decimals", "expected an integer 0..6")
            col.decimals = d
        return col
    if raw["strategy"] is not None:
        from gpubfs_cli.core.strategy import canonical_name

        col.strategy = canonical_name(c.string(raw["strategy"], f"{where}.strategy"))
    col.problem = c.string(raw.get("problem", "bfs"), f"{where}.problem")
    metric = raw.get("metric")
    if not isinstance(metric, str) or not (metric == "rank" or is_metric(metric)):
        raise c.fail(f"{where}.metric", f"expected one of {', '.join(METRICS)} or counter.NAME, got {metric!r}")
    col.metric = metric
    pred = raw.get("predecessors", False)
    if not isinstance(pred, bool):
        raise c.fail(f"{where}.predecessors", "expected true or false")
    col.predecessors = pred
    col.knobs = dict(c.mapping(raw.get("knobs", {}), f"{where}.knobs", set(raw.get("knobs") or {})))
    if "published_from" in raw:
        pf = c.listing(raw["published_from"], f"{where}.published_from")
        if len(pf) != 2 or not all(isinstance(x, str) for x in pf):
            raise c.fail(f"{where}.published_from", "expected [COLUMN, COLUMN]")
        col.published_from = (pf[0], pf[1])
    if "stack" in raw:
        col.stack = c.string(raw["stack"], f"{where}.stack")
    return col


def _plot(c: _Checker, raw: Any, where: str, cols: list[Column]) -> dict[str, Any]:
    c.mapping(raw, where, _PLOT, ("kind",))
    if raw["kind"] not in PLOT_KINDS:
        raise c.fail(f"{where}.kind", f"expected one of {', '.join(PLOT_KINDS)}, got {raw['kind']!r}")
    by_key = {col.key: col for col in cols}
    if raw["kind"] == "lines":
        if raw.get("x") not in by_key or by_key[raw["x"]].stat is None:
            raise c.fail(f"{where}.x", "a lines plot needs x: the key of a stat column")
    elif "x" in raw:
        raise c.fail(f"{where}.x", f"only lines plots take x (this one is {raw['kind']})")
    if raw["kind"] == "stacked" and not any(col.stack for col in cols):
        raise c.fail(where, "a stacked plot needs columns with a `stack` label")
    if not isinstance(raw.get("log", False), bool):
        raise c.fail(f"{where}.log", "expected true or false")
    return dict(raw)


def _table(c: _Checker, raw: Any, where: str, datasets: dict) -> PaperTable:
    c.mapping(raw, where, _TABLE, ("id", "title", "columns", "rows"))
    cols = [_column(c, x, f"{where}.columns[{i}]") for i, x in enumerate(c.listing(raw["columns"], f"{where}.columns"))]
    keys = [col.key for col in cols]
    if len(set(keys)) != len(keys):
        raise c.fail(f"{where}.columns", "column keys must be unique")
    if len({col.header for col in cols}) != len(cols):
        raise c.fail(f"{where}.columns", "column headers must be unique")
    for i, col in enumerate(cols):
        if col.published_from:
            for k in col.published_from:
                if k not in keys:
                    raise c.fail(f"{where}.columns[{i}].published_from", str(unknown_name("column", k, keys)))
    rows = []
    for i, r in enumerate(c.listing(raw["rows"], f"{where}.rows")):
        rw = f"{where}.rows[{i}]"
        c.mapping(r, rw, {"graph", "label", *keys}, ("graph",))
        graph = str(r["graph"])
        if graph not in datasets:
            raise c.fail(f"{rw}.graph", str(unknown_name("graph (not in datasets)", graph, datasets)))
        row = Row(graph=graph, label=str(r.get("label", graph)))
        for k in keys:
            if k in r and r[k] is not None:
                row.published[k] = c.published(r[k], f"{rw}.{k}")
        rows.append(row)
    figure_only = raw.get("figure_only", False)
    if not isinstance(figure_only, bool):
        raise c.fail(f"{where}.figure_only", "expected true or false")
    plot = _plot(c, raw["plot"], f"{where}.plot", cols) if "plot" in raw else None
    return PaperTable(id=c.string(raw["id"], f"{where}.id"), title=c.string(raw["title"], f"{where}.title"),
                      columns=cols, rows=rows, figure_only=figure_only, notes=str(raw.get("notes", "")),
                      plot=plot)


def parse_paper(doc: Any, path: str, expected_key: str | None = None) -> Paper:
    c = _Checker(path)
    c.mapping(doc, "", _TOP, _TOP_REQUIRED)
    key = c.string(doc["key"], "key")
    if expected_key is not None and key != expected_key:
        raise c.fail("key", f"expected '{expected_key}' (the file name), got '{key}'")
    hardware = c.mapping(doc["hardware"], "hardware", _HARDWARE, ("gpu", "cpu"))
    for k, v in hardware.items():
        c.string(v, f"hardware.{k}")
    units = c.mapping(doc.get("units", {}), "units", set(doc.get("units") or {}))
    datasets: dict[str, list[str]] = {}
    for name, ours in c.mapping(doc["datasets"], "datasets", set(doc["datasets"] or {})).items():
        names = ours if isinstance(ours, list) else [ours]
        if not names:
            raise c.fail(f"datasets.{name}", "expected a catalogue name or a list of them")
        datasets[str(name)] = [c.string(x, f"datasets.{name}") for x in names]
    strategies = []
    for i, s in enumerate(c.listing(doc.get("strategies", []), "strategies")):
        c.mapping(s, f"strategies[{i}]", _STRATEGY, ("name",))
        strategies.append({"name": c.string(s["name"], f"strategies[{i}].name"), "what": str(s.get("what", ""))})
    tables = [_table(c, t, f"tables[{i}]", datasets) for i, t in enumerate(c.listing(doc["tables"], "tables"))]
    ids = [t.id for t in tables]
    if len(set(ids)) != len(ids):
        raise c.fail("tables", "table ids must be unique")
    text_numbers = []
    for i, t in enumerate(c.listing(doc.get("text_numbers", []), "text_numbers")):
        c.mapping(t, f"text_numbers[{i}]", _TEXT_NUMBER, ("what", "value"))
        if not isinstance(t["value"], (int, float, str)) or isinstance(t["value"], bool):
            raise c.fail(f"text_numbers[{i}].value", "expected a number or text")
        text_numbers.append(dict(t))
    return Paper(
        key=key, title=c.string(doc["title"], "title"), authors=str(doc.get("authors", "")),
        venue=c.string(doc["venue"], "venue"), hardware=dict(hardware),
        units={str(k): str(v) for k, v in units.items()}, datasets=datasets,
        strategies=strategies, tables=tables, text_numbers=text_numbers,
        notes=str(doc.get("notes", "")), path=path,
    )


def load_paper_file(path: str | Path, expected_key: str | None = None) -> Paper:
    path = Path(path)
    doc = parse_yaml(read_text_file(path, "paper file"), str(path))
    return parse_paper(doc, str(path), expected_key)


def load_paper(key: str, folder: Path | None = None) -> Paper:
    folder = folder or papers_dir()
    keys = paper_keys(folder)
    if key not in keys:
        raise unknown_name("paper", key, keys)
    return load_paper_file(folder / f"{key}.yaml", expected_key=key)


def load_all(folder: Path | None = None) -> list[Paper]:
    folder = folder or papers_dir()
    return [load_paper(k, folder) for k in paper_keys(folder)]
