"""A new user's first hour, through Typer's CliRunner (no GPU, no terminal)."""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

import gpubfs_cli
from gpubfs_cli.bench.progress import RunProgress
from gpubfs_cli.cli import app
from gpubfs_cli.gpu import backend

runner = CliRunner()


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(backend, "unavailable_reason", lambda: "disabled for this test")


# ---------------------------------------------------------------- -h, --version
@pytest.mark.parametrize("argv", [["-h"], ["run", "-h"], ["report", "-h"], ["list", "-h"], ["list", "papers", "-h"]])
def test_short_help_everywhere(argv):
    result = runner.invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output


def test_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"gpubfs {gpubfs_cli.__version__}"


# ---------------------------------------------------------------- require_gpu
def _gpu_config(tmp_path):
    cfg = tmp_path / "paper.yaml"
    cfg.write_text("datasets: [smoke-grid]\nstrategies: [cpu.sequential, merrill.hybrid]\n"
                   "sources: 1\nrequire_gpu: true\n")
    return cfg


def test_config_require_gpu_names_the_file_and_the_way_out(tmp_path, no_gpu):
    cfg = _gpu_config(tmp_path)
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["run", str(cfg), "--out", str(out), "--dir", str(tmp_path / "data")])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert f"{cfg}: require_gpu: true, and no GPU is usable here (disabled for this test)" in lines[0]
    assert "--no-require-gpu" in lines[0]
    assert "--require-gpu:" not in lines[0]  # a flag the user never passed
    assert not out.exists()


def test_no_require_gpu_runs_the_cpu_rows(tmp_path, no_gpu):
    cfg = _gpu_config(tmp_path)
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["run", str(cfg), "--no-require-gpu", "--out", str(out),
                                 "--dir", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    status = {s["strategy"]: s["status"] for s in doc["samples"]}
    assert status == {"cpu.sequential": "ok", "merrill.hybrid": "unavailable"}
    assert doc["config"]["require_gpu"] is False


def test_require_gpu_flag_still_names_the_flag(tmp_path, no_gpu):
    result = runner.invoke(app, ["run", "-d", "smoke-grid", "-s", "cpu.sequential", "--require-gpu",
                                 "--out", str(tmp_path / "r.json")])
    assert result.exit_code == 2
    assert "--require-gpu: no usable GPU here (disabled for this test)" in result.stderr


# ---------------------------------------------------------------- sources
def test_lattice_says_it_runs_its_fixed_source(tmp_path):
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["run", "-d", "smoke-grid", "-s", "cpu.sequential", "--sources", "20",
                                 "--out", str(out), "--dir", str(tmp_path / "data")])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    (center,) = doc["sources"]["smoke-grid"]
    assert (f"note: smoke-grid: runs from its one fixed source, vertex {center:,} "
            "(the dataset's fixed_source), not 20 random sources") in result.stderr


def test_more_sources_than_vertices_warns_and_never_repeats(tmp_path):
    mtx = tmp_path / "path.mtx"
    # a directed path 1 -> 2 -> 3 -> 4 -> 5 (1-based): four vertices have an out-edge
    mtx.write_text("%%MatrixMarket matrix coordinate pattern general\n5 5 4\n1 2\n2 3\n3 4\n4 5\n")
    data = str(tmp_path / "data")
    fetched = runner.invoke(app, ["fetch-dataset", "tinypath", "--file", str(mtx), "--format", "mtx", "--dir", data])
    assert fetched.exit_code == 0, fetched.output
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["run", "-d", "tinypath", "-s", "cpu.sequential", "--sources", "10",
                                 "--out", str(out), "--dir", data])
    assert result.exit_code == 0, result.output
    assert ("note: tinypath: 10 sources asked for, but only 4 vertices have an out-edge: "
            "runs from each of them once") in result.stderr
    sources = json.loads(out.read_text())["sources"]["tinypath"]
    assert sorted(sources) == [0, 1, 2, 3]


# ---------------------------------------------------------------- progress
def test_progress_never_shows_more_done_than_expected():
    """The bar's total is an estimate made before the graphs are loaded; steps past it
    grow the total instead of showing "2/1"."""
    progress = RunProgress(Console(file=io.StringIO(), force_terminal=True, width=100))
    with progress:
        progress.start(1)
        progress.advance_by(1, "g: bfs baseline 1/1")
        progress.advance_by(1, "g · cpu.sequential · source 1/1")
        task = progress._progress.tasks[0]
        assert (task.completed, task.total) == (2, 2)


# ---------------------------------------------------------------- umask
def test_results_and_report_files_follow_the_umask(tmp_path, no_gpu):
    old = os.umask(0o022)
    try:
        out = tmp_path / "r.json"
        result = runner.invoke(app, ["run", "-d", "smoke-grid", "-s", "cpu.sequential", "--sources", "1",
                                     "--out", str(out), "--dir", str(tmp_path / "data")])
        assert result.exit_code == 0, result.output
        report = tmp_path / "r.md"
        result = runner.invoke(app, ["report", str(out), "--format", "md", "--out", str(report)])
        assert result.exit_code == 0, result.output
        assert os.stat(out).st_mode & 0o777 == 0o644
        assert os.stat(report).st_mode & 0o777 == 0o644
    finally:
        os.umask(old)


# ---------------------------------------------------------------- reports off a terminal
SHIPPED = sorted(str(p) for p in (Path(__file__).resolve().parents[1] / "docs" / "results" / "h200-2026-11-22").glob("merrill*.json.gz"))


def _md_cells(md: str, title_start: str) -> list[list[str]]:
    """The body cells of the Markdown table whose heading starts with `title_start`."""
    lines = md.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"## {title_start}"))
    rows, seen = [], False
    for line in lines[start + 1:]:
        if line.startswith("|"):
            seen = True
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows.append(cells)
        elif seen:
            break
    return rows[2:]  # past the header and the --- line


def _table_lines(text: str, title_start: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title_start))
    body = []
    for line in lines[start + 1:]:
        if line.startswith("└"):
            return body
        body.append(line)
    raise AssertionError("table not closed")


def test_paper_table_through_a_pipe_breaks_no_number_or_word():
    """Off a terminal (a file, a pipe: CliRunner), Merrill's Table 2 is drawn at its
    natural width: one line per graph, every cell whole (`missing`, `0.00014`)."""
    md = runner.invoke(app, ["report", "--paper", "merrill", "--format", "md", *SHIPPED])
    assert md.exit_code == 0, md.output
    cells = _md_cells(md.stdout, "Table 2.")
    assert len(cells) == 13 and any("missing" in c for row in cells for c in row)
    result = runner.invoke(app, ["report", "--paper", "merrill", *SHIPPED])
    assert result.exit_code == 0, result.output
    lines = _table_lines(result.stdout, "Table 2.")
    body = [line for line in lines if line.startswith("│")]
    assert len(body) == len(cells)  # one line per graph: nothing wrapped
    assert {line.count("│") for line in body} == {len(cells[0]) + 1}
    for row, line in zip(cells, body, strict=True):
        assert [c.strip() for c in line.split("│")[1:-1]] == row
    assert not re.search(r"missin(?!g)", result.stdout)


def test_paper_table_in_a_narrow_terminal_breaks_no_number_or_word():
    from gpubfs_cli.report.command import make_report
    from gpubfs_cli.report.render import print_rich

    doc = make_report([Path(p) for p in SHIPPED], metric="ms", fmt="table", paper="merrill",
                      compare_files=None, plot_dir=None, rows="auto")
    buf = io.StringIO()
    print_rich(doc, Console(file=buf, force_terminal=True, width=60, color_system=None))
    text = buf.getvalue()
    md = runner.invoke(app, ["report", "--paper", "merrill", "--format", "md", *SHIPPED]).stdout
    words = {w for row in _md_cells(md, "Table 2.") for c in row for w in c.split()}
    tokens = set(re.split(r"[\s│┃]+", text))
    assert words <= tokens, sorted(words - tokens)[:10]


def test_report_file_in_table_format_is_not_wrapped(tmp_path):
    out = tmp_path / "t2.txt"
    result = runner.invoke(app, ["report", "--paper", "merrill", "--out", str(out), *SHIPPED])
    assert result.exit_code == 0, result.output
    body = [line for line in _table_lines(out.read_text(), "Table 2.") if line.startswith("│")]
    assert len(body) == 13 and not re.search(r"missin(?!g)", out.read_text())


# ---------------------------------------------------------------- README
ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _readme_commands(inline: bool = False) -> list[tuple[int, list[str]]]:
    """(line number, argv) of every `gpubfs ...` line in the README's ``` blocks, and
    with `inline` of every `gpubfs ...` code span in its text."""
    import shlex

    out, inside, prose = [], False, []
    for number, line in enumerate(README.splitlines(), start=1):
        if line.startswith("```"):
            inside = not inside
        elif inside and line.startswith("gpubfs "):
            out.append((number, shlex.split(line.split(" #")[0])[1:]))
        prose.append("" if inside or line.startswith("```") else line)
    if inline:  # spans may run over a line break
        text = "\n".join(prose)
        for m in re.finditer(r"`(gpubfs [^`]+)`", text):
            if "..." not in m.group(1):
                out.append((text.count("\n", 0, m.start()) + 1, m.group(1).split()[1:]))
    return out


def test_readme_puts_gpubfs_on_the_path_before_using_it():
    """`make run`/`make test` install gpubfs into .venv/bin only: the README says how to
    reach it before its first `gpubfs` command (else: command not found)."""
    activate = README.index("\n. .venv/bin/activate")
    first = min(n for n, _ in _readme_commands())
    assert README.count("\n", 0, activate) + 1 < first
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'gpubfs = "gpubfs_cli.cli:main"' in pyproject  # the script .venv/bin/gpubfs
    assert "pip install --quiet -e" in (ROOT / "Makefile").read_text()


def _wants_a_value(argv: list[str]) -> bool:
    """Whether argv's last word is an option of its command that takes a value."""
    import typer.main

    command = typer.main.get_command(app)
    for word in argv:
        sub = getattr(command, "commands", {}).get(word)
        if sub is None:
            break
        command = sub
    last = argv[-1] if argv else ""
    return any(last in p.opts and not getattr(p, "is_flag", False) and p.nargs != 0
               for p in getattr(command, "params", ()) if p.param_type_name == "option")


def test_an_inline_option_without_its_value_is_given_one():
    assert _wants_a_value(["report", "--plot"])
    assert not _wants_a_value(["report", "--force"])
    assert not _wants_a_value(["run", "smoke"])


def test_readme_commands_exist_with_their_options():
    from gpubfs_cli.configs import run_config_path

    commands = _readme_commands(inline=True)
    assert len(commands) >= 15
    for number, argv in commands:
        # --help parses every option first: an unknown command or option fails with exit 2.
        # An inline mention may end in an option that takes a value (`report --plot`): give
        # it one, or --help would be read as that value and the command run.
        result = runner.invoke(app, [*argv, *(["VALUE"] if _wants_a_value(argv) else []), "--help"])
        assert result.exit_code == 0, f"README.md:{number}: gpubfs {' '.join(argv)}\n{result.output}"
        if argv[0] == "run" and len(argv) > 1 and not argv[1].startswith("-"):  # a config name or path
            assert run_config_path(argv[1]).is_file(), f"README.md:{number}: no run config {argv[1]}"
        for arg in argv:
            if arg.endswith(".yaml"):
                assert (ROOT / arg).is_file(), f"README.md:{number}: {arg} does not exist"


def test_readme_strategy_table_matches_the_registry():
    from gpubfs_cli.core.strategy import registry
    from gpubfs_cli.report.command import papers_listing

    start = README.index("| paper (`gpubfs list papers`)")
    rows = [line for line in README[start:].splitlines()[2:] if line.startswith("|")]
    rows = rows[: next((i for i, r in enumerate(rows) if not r.startswith("| ")), len(rows))]
    named = {}
    for row in rows:
        first, strategies = row.split(" | ", 1)
        key = re.match(r"\| `(\w+)`:", first)
        names = set(re.findall(r"`([a-z0-9_]+\.[a-z0-9_]+)`", strategies))
        if key:
            named[key.group(1)] = names
    listing = {p["key"]: p for p in papers_listing()}
    assert set(named) == set(listing)
    for key, paper in listing.items():
        own = named[key] - {n for n in named[key] if not n.startswith(f"{key}.")}
        assert own == set(paper["implemented"]), key
        assert not paper["not_implemented"] or key == "luo"  # luo's IIIT-BFS is classic.harish
    in_table = set(re.findall(r"`([a-z0-9_]+\.[a-z0-9_]+)`", "\n".join(rows)))
    registered = {name for names in registry().values() for name in names}
    assert in_table == registered
    assert "not yet" not in "\n".join(rows)


def test_one_label_for_predecessor_runs_across_commands(tmp_path):
    """`run`'s summary, `report` (table, md, csv) and `--compare` name a predecessor run
    the same way: the problem's option label, `+pred` for BFS."""
    out = tmp_path / "r.json"
    ran = runner.invoke(app, ["run", "-d", "smoke-grid", "-s", "cpu.sequential", "--predecessors", "both",
                              "--out", str(out), "--dir", str(tmp_path / "data")])
    assert ran.exit_code == 0, ran.output
    texts = [ran.stdout]
    for fmt in ("table", "md", "csv"):
        result = runner.invoke(app, ["report", str(out), "--format", fmt])
        assert result.exit_code == 0, result.output
        texts.append(result.stdout)
    compared = runner.invoke(app, ["report", "--compare", str(out), str(out), "--format", "md"])
    assert compared.exit_code == 0, compared.output
    texts.append(compared.stdout)
    for text in texts:
        assert "cpu.sequential +pred" in text, text
        assert not re.search(r"\(pred\)|\bpred\)|\[pred", text), text
