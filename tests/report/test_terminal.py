"""Tables on a terminal fit its width (stacked tables repeating the row labels, nothing
left out); off a terminal they keep their full width; strategies unavailable for one
reason collapse into one line under the terminal table."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from gpubfs_cli.report.build import add_cell_footnotes
from gpubfs_cli.report.collapse import collapse_unavailable
from gpubfs_cli.report.command import make_report
from gpubfs_cli.report.render import cell_text, print_rich, render
from gpubfs_cli.report.table import Cell, Table, label
from tests.report.docs import SOURCES, dataset_entry, document, sample, write
from tests.report.pools import pooled_sets
from tests.report.test_shipped_results import PAPERS, SHIPPED

WIDTHS = (80, 120)


def terminal_text(doc, width: int, terminal: bool = True) -> str:
    buf = io.StringIO()
    print_rich(doc, Console(file=buf, force_terminal=terminal, width=width, color_system=None))
    return buf.getvalue()


@pytest.fixture(scope="module")
def shipped_docs():
    """Every shipped set's plain report and paper layouts, as the terminal gets them (each
    set read once for its six documents: tests/report/pools.py)."""
    with pooled_sets(SHIPPED):
        return {(name, paper): make_report(files, paper=paper)
                for name, files in SHIPPED.items() for paper in (None, *PAPERS)}


def words(doc) -> set[str]:
    """Every word of every table's labels, column titles and cells."""
    out = set()
    for t in doc.tables:
        out.update(w for c in t.columns for w in c.split())
        for row in t.rows:
            out.update(row[0].text.split())
            out.update(w for c in row[1:] for w in cell_text(c, t.side_by_side).split())
    return out


@pytest.mark.parametrize("width", WIDTHS)
def test_shipped_results_fit_the_terminal_and_lose_nothing(shipped_docs, width):
    for (name, paper), doc in shipped_docs.items():
        text = terminal_text(doc, width)
        long = [line for line in text.splitlines() if len(line) > width]
        assert not long, f"{name} --paper {paper}: {len(long)} lines over {width}: {long[0]!r}"
        tokens = set(re.split(r"[\s│┃]+", text))
        folded = re.sub(r"[\s│┃]+", "", text)  # a word wider than the terminal folds over lines
        lost = {w for w in words(doc) - tokens if len(w) < width // 2 or w not in folded}
        assert not lost, f"{name} --paper {paper}: {sorted(lost)[:10]}"


def test_merrill_table_2_is_stacked_with_its_graphs_repeated(shipped_docs):
    doc = shipped_docs[("h200-2026-11-22", "merrill")]
    table = next(t for t in doc.tables if t.title.startswith("Table 2."))
    text = terminal_text(doc, 120)
    part = text[text.index("Table 2."):]
    part = part[: part.index("each cell: published | measured here")]
    heads = [line for line in part.splitlines() if line.startswith("┃ Graph")]
    assert len(heads) > 1  # several stacked tables, each naming the graphs again
    for row in table.rows:
        assert sum(line.startswith(f"│ {row[0].text} ") for line in part.splitlines()) == len(heads)


def test_off_a_terminal_tables_keep_their_full_width(shipped_docs):
    doc = shipped_docs[("h200-2026-11-22", "merrill")]
    text = terminal_text(doc, 80, terminal=False)
    assert max(map(len, text.splitlines())) > 200  # Table 2 at its natural width, one table
    assert len([line for line in text.splitlines() if line.startswith("┃ Graph")]) == len(doc.tables)


# ---------------------------------------------------------------- the unavailable collapse
CUPY = "CuPy is not installed"


def _table() -> Table:
    ok = Cell("1.000", value=1.0)

    def gone(reason=CUPY):
        return Cell(f"unavailable: {reason}", status="unavailable", reason=reason)

    columns = ["dataset", "cpu.sequential", "merrill.hybrid", "merrill.hybrid +pred", "merrill.two_phase",
               "do.bfs", "luo.hierarchical", "peer.gunrock", "classic.harish", "classic.harish +pred"]
    rows = [
        [label("g1"), ok, gone(), gone(), gone(), gone(), ok, gone("no binary"), ok, gone()],
        [label("g2"), ok, gone(), gone(), gone(), gone(), gone(), gone("no binary"), ok, gone()],
    ]
    table = Table(id="overview", title="t", columns=columns, rows=rows, footnotes=["a note"])
    add_cell_footnotes(table)
    return table


def test_collapse_names_each_reason_once_after_the_rows():
    table = collapse_unavailable(_table())
    assert table.columns == ["dataset", "cpu.sequential", "luo.hierarchical", "classic.harish"]
    assert [len(r) for r in table.rows] == [4, 4]
    assert table.footnotes == [
        f"4 strategies unavailable: {CUPY} (merrill.*, do.bfs, classic.harish +pred)",
        "1 strategy unavailable: no binary (peer.gunrock)",
        "a note",
        f"unavailable ({CUPY}): luo.hierarchical on g2",
    ]


def test_collapse_keeps_a_table_without_unavailable_columns():
    table = Table(id="overview", title="t", columns=["dataset", "a.x"], rows=[[label("g"), Cell("1.0")]])
    assert collapse_unavailable(table).columns == ["dataset", "a.x"]


@pytest.fixture()
def no_gpu_file(tmp_path):
    ds = {"g": dataset_entry(100, 400)}
    samples = [sample("g", "cpu.sequential", s, 4.0) for s in SOURCES]
    for name in ("merrill.hybrid", "merrill.two_phase", "classic.harish"):
        samples += [sample("g", name, -1, None, status="unavailable", reason=CUPY, valid=None),
                    sample("g", name, -1, None, status="unavailable", reason=CUPY, valid=None, predecessors=True)]
    return write(tmp_path, "cpu.json", document(samples, ds, gpu=None))


def test_report_collapses_in_the_terminal_only(no_gpu_file):
    doc = make_report([no_gpu_file])
    text = terminal_text(doc, 80)
    assert f"3 strategies unavailable: {CUPY} (classic.harish, merrill.*)" in text
    drawn = [line for line in text.splitlines() if line[:1] in "┃│"]
    assert any("cpu.sequential" in line for line in drawn)
    assert not any("unavailable" in line or "merrill" in line for line in drawn)
    for fmt in ("md", "csv", "json"):  # every cell stays in the other formats
        assert render(make_report([no_gpu_file], fmt=fmt), fmt).count("merrill.two_phase") >= 2
