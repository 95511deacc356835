"""`gpubfs report` and `gpubfs list papers` through the CLI: outputs, exit codes, errors."""

from __future__ import annotations

import csv
import io
import json

import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from tests.report.docs import main_doc, write

runner = CliRunner()


@pytest.fixture()
def results(tmp_path):
    return str(write(tmp_path, "main.json", main_doc()))


def _one_line_error(r, *parts):
    assert r.exit_code == 2, r.output
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    for p in parts:
        assert p in lines[0]


def test_report_table(results):
    r = runner.invoke(app, ["report", results])
    assert r.exit_code == 0, r.output
    assert "median time per BFS (ms)" in r.stdout and "out-of-time" in r.stdout


def test_report_json_and_csv(results):
    r = runner.invoke(app, ["report", results, "--format", "json", "--metric", "speedup"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["metric"] == "speedup"
    r = runner.invoke(app, ["report", results, "--format", "csv", "--metric", "gteps"])
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    hyb = next(x for x in rows if x["row"] == "g1" and x["column"] == "merrill.hybrid")
    assert float(hyb["value"]) == pytest.approx(0.004)


def test_report_out_file(results, tmp_path):
    out = tmp_path / "sub" / "report.html"
    r = runner.invoke(app, ["report", results, "--format", "html", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "<table" in out.read_text() and r.stdout == ""


def test_report_paper_md(results):
    r = runner.invoke(app, ["report", results, "--paper", "luo", "--format", "md"])
    assert r.exit_code == 0, r.output
    assert "| Graph | IIIT-BFS | CPU-BFS | UIUC-BFS | Sp. |" in r.stdout
    assert "| 1M | 462.8 \\| missing |" in r.stdout


def test_report_compare_and_plot(results, tmp_path):
    r = runner.invoke(app, ["report", "--compare", results, results, "--format", "json",
                            "--plot", str(tmp_path / "plots")])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    hyb = next(c for c in data["cells"] if c["dataset"] == "g1" and c["strategy"] == "merrill.hybrid"
               and not c["predecessors"])
    assert hyb["ratio"] == 1.0 and hyb["significant"] is False
    assert (tmp_path / "plots" / "throughput.svg").exists()


def test_list_papers(results):
    r = runner.invoke(app, ["list", "papers", "--json"])
    assert r.exit_code == 0, r.output
    rows = {p["key"]: p for p in json.loads(r.stdout)}
    assert sorted(rows) == ["bfs4k", "lbbfs", "luo", "merrill", "raval"]
    assert rows["merrill"]["venue"] == "PPoPP 2012"
    assert rows["merrill"]["tables"] == ["table1", "table2", "fig10", "fig11"]
    assert "Tesla C2050" in rows["merrill"]["hardware"]["gpu"]
    r = runner.invoke(app, ["list", "papers"])
    assert r.exit_code == 0 and "merrill" in r.stdout


def test_missing_results_file(tmp_path):
    r = runner.invoke(app, ["report", str(tmp_path / "nope.json")])
    _one_line_error(r, "nope.json", "no such results file")


def test_invalid_results_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{\n  \"schema_version\": 1,\n  oops\n}\n")
    _one_line_error(runner.invoke(app, ["report", str(bad)]), "bad.json:3", "not valid JSON")
    bad.write_text(json.dumps({"schema_version": 1, "datasets": {}, "sources": {}, "samples": [{"dataset": "g"}]}))
    _one_line_error(runner.invoke(app, ["report", str(bad)]), "samples[0]", "missing key")


def test_unknown_paper_metric_format(results):
    _one_line_error(runner.invoke(app, ["report", results, "--paper", "merril"]),
                    "unknown paper 'merril'", "merrill")
    _one_line_error(runner.invoke(app, ["report", results, "--metric", "teps"]), "unknown metric 'teps'")
    _one_line_error(runner.invoke(app, ["report", results, "--format", "xlsx"]), "unknown format 'xlsx'")


def test_broken_paper_yaml_via_cli(results, tmp_path, monkeypatch):
    (tmp_path / "luo.yaml").write_text("key: luo\ntitle: x\nvenue: y\nhardware: {gpu: a, cpu: b}\ndatasets: {}\ntables: 3\n")
    monkeypatch.setenv("GPUBFS_PAPERS_DIR", str(tmp_path))
    _one_line_error(runner.invoke(app, ["report", results, "--paper", "luo"]), "luo.yaml: tables: expected a list")


def test_no_results_anywhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _one_line_error(runner.invoke(app, ["report"]), "no results files given")


def test_rows_orientation(results):
    r = runner.invoke(app, ["report", results, "--format", "md"])  # auto: 7 strategies > 2 datasets
    assert "| strategy | g1 | g2 |" in r.stdout
    assert "| classic.vwarp | 2.000 (W4) | missing |" in r.stdout
    r = runner.invoke(app, ["report", results, "--format", "md", "--rows", "datasets"])
    assert "| dataset | cpu.sequential | classic.edge_coo |" in r.stdout
    r = runner.invoke(app, ["report", results, "--format", "csv", "--rows", "strategies"])
    assert r.stdout.splitlines()[1].startswith("overview,g1,cpu.sequential,")  # csv keeps datasets as rows
    _one_line_error(runner.invoke(app, ["report", results, "--rows", "graphs"]), "unknown --rows value 'graphs'")


def test_list_papers_implemented_from_registry(monkeypatch):
    import gpubfs_cli.report.command as command

    monkeypatch.setattr(command, "registered_strategies",
                        lambda: {"merrill.hybrid": "merrill", "classic.vwarp": "classic", "luo.extra": "luo"})
    rows = {p["key"]: p for p in json.loads(runner.invoke(app, ["list", "papers", "--json"]).stdout)}
    assert rows["merrill"]["implemented"] == ["merrill.hybrid"]
    assert rows["merrill"]["not_implemented"] == ["merrill.expand_contract", "merrill.contract_expand", "merrill.two_phase"]
    assert rows["luo"]["implemented"] == ["luo.extra"]
    monkeypatch.setattr(command, "registered_strategies", lambda: None)
    rows = json.loads(runner.invoke(app, ["list", "papers", "--json"]).stdout)
    assert all(p["registry_error"] and p["implemented"] == [] for p in rows)
    r = runner.invoke(app, ["list", "papers"])
    assert r.exit_code == 0 and r.stdout.count("unknown") == 5


# ---------------------------------------------------------------- hostile inputs
def test_binary_and_folder_results_files(tmp_path):
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"\x89PNG" + bytes(range(256)))
    _one_line_error(runner.invoke(app, ["report", str(binary)]),
                    "bin.json:1: not a results file: not UTF-8 text (byte 0x89 at offset 0)")
    broken = tmp_path / "broken.json.gz"  # gzip's magic, then garbage: read as gzip, refused
    broken.write_bytes(b"\x1f\x8b\x08\x00" + bytes(range(256)))
    _one_line_error(runner.invoke(app, ["report", str(broken)]), "broken.json.gz: cannot read the results file (")
    _one_line_error(runner.invoke(app, ["report", str(tmp_path)]), str(tmp_path), "is a folder, expected a results file")
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000)
    _one_line_error(runner.invoke(app, ["report", str(deep)]), "deep.json", "not valid JSON")


@pytest.mark.parametrize("kind", ["folder", "fifo", "symlink", "under-a-file"])
def test_report_out_refused_before_any_work(results, tmp_path, kind):
    import os

    target = tmp_path / "keep.md"
    target.write_text("mine")
    out = tmp_path / "out"
    if kind == "folder":
        out.mkdir()
    elif kind == "fifo":
        os.mkfifo(out)
    elif kind == "symlink":
        out.symlink_to(target)
    else:
        out = target / "r.md"
    plots = tmp_path / "plots"
    r = runner.invoke(app, ["report", results, "--format", "md", "--out", str(out), "--plot", str(plots)])
    _one_line_error(r, str(out))
    assert not plots.exists()  # refused before the plots were drawn
    assert target.read_text() == "mine" and not target.is_symlink()
    if kind == "fifo":
        import stat

        assert stat.S_ISFIFO(os.lstat(out).st_mode)


def test_bare_report_passes_over_failed_and_empty_runs(tmp_path, monkeypatch):
    """The newest file of an empty or failed run is not what a bare `gpubfs report` shows;
    named explicitly, an empty one is one line and exit 2."""
    import os

    monkeypatch.chdir(tmp_path)
    good = write(tmp_path / "results", "a-good.json", main_doc())
    empty = dict(main_doc(), samples=[], summaries=[])
    failed = dict(main_doc(), failed="--source: vertex 9 is out of range")
    paths = [good, write(tmp_path / "results", "b-empty.json", empty), write(tmp_path / "results", "c-failed.json", failed)]
    (tmp_path / "results" / "d-broken.json").write_bytes(b"\xff\xfe")
    for i, p in enumerate([*paths, tmp_path / "results" / "d-broken.json"]):
        os.utime(p, (1_000_000 + i, 1_000_000 + i))  # good is the oldest
    r = runner.invoke(app, ["report", "--format", "json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["files"] == ["results/a-good.json"]
    _one_line_error(runner.invoke(app, ["report", str(paths[1])]), "b-empty.json: holds no samples (an empty or failed run)")
    good.unlink()
    _one_line_error(runner.invoke(app, ["report"]), "none of the 3 in results/ is usable")


def test_fuzz_results_files(tmp_path):
    """Results files with values of the wrong type anywhere (seeded, about a second): the
    report works or ends in one line naming the file, never a traceback."""
    import copy
    import random

    rng = random.Random(20261123)
    base = json.loads(json.dumps(main_doc()))

    def paths(o, p=()):
        yield p
        if isinstance(o, dict):
            for k, v in o.items():
                yield from paths(v, (*p, k))
        elif isinstance(o, list):
            for i, v in enumerate(o[:6]):
                yield from paths(v, (*p, i))

    where = [p for p in paths(base) if p]
    values = [None, 0, -1, 1.5, "x", [], {}, True, [1], {"a": 1}, 10**30, "\x1b[31m\n"]
    for i in range(60):
        doc = copy.deepcopy(base)
        for _ in range(rng.randint(1, 3)):
            p = rng.choice(where)
            o = doc
            try:
                for k in p[:-1]:
                    o = o[k]
                if rng.random() < 0.2 and isinstance(o, dict):
                    del o[p[-1]]
                else:
                    o[p[-1]] = rng.choice(values)
            except (KeyError, IndexError, TypeError):
                pass
        path = tmp_path / f"r{i}.json"
        path.write_text(json.dumps(doc))
        args = ["report", str(path), "--format", rng.choice(["table", "json", "csv", "md", "html"])]
        if rng.random() < 0.3:
            args += ["--paper", rng.choice(["merrill", "luo", "bfs4k", "raval", "lbbfs"])]
        r = runner.invoke(app, args)
        assert r.exception is None or isinstance(r.exception, SystemExit), (p, r.exception)
        if r.exit_code:
            _one_line_error(r, str(path))


def _compare_files(tmp_path, b_times):
    """A: a noisy baseline over 8 sources; B: the same strategy with `b_times`."""
    from tests.report.docs import dataset_entry, document, sample

    ds = {"g": dataset_entry(100, 400)}
    a_times = [1.0, 1.3, 0.9, 1.1, 1.2, 1.0, 0.8, 1.1]
    a = write(tmp_path, "base.json", document([sample("g", "cpu.sequential", s, t) for s, t in enumerate(a_times)], ds))
    b = write(tmp_path, "new.json", document([sample("g", "cpu.sequential", s, t) for s, t in enumerate(b_times)], ds))
    return str(a), str(b)


def test_fail_on_regression_beyond_the_noise_exits_1(tmp_path):
    a, b = _compare_files(tmp_path, [3.1, 4.0, 2.6, 3.3, 3.5, 3.2, 2.5, 3.4])  # ~3x slower everywhere
    r = runner.invoke(app, ["report", "--compare", a, b, "--fail-on-regression", "100", "--format", "json"])
    assert r.exit_code == 1, r.output
    data = json.loads(r.stdout)
    assert [c["strategy"] for c in data["regressions"]] == ["cpu.sequential"]
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: 1 regression(s)") and "cpu.sequential on g" in lines[0]
    # the same files under a threshold beyond the slowdown pass
    r = runner.invoke(app, ["report", "--compare", a, b, "--fail-on-regression", "500"])
    assert r.exit_code == 0, r.output
    assert "SLOWER" in r.stdout


def test_fail_on_regression_noise_and_one_outlier_exit_0(tmp_path):
    # single sources move up to 60%, one by 4x; the median ratio stays near 1
    a, b = _compare_files(tmp_path, [1.6, 0.9, 1.2, 4.4, 0.8, 1.3, 1.1, 0.9])
    r = runner.invoke(app, ["report", "--compare", a, b, "--fail-on-regression", "10", "--format", "json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["regressions"] == [] and data["verdicts"]["SAME"] == 1


def test_compare_same_file_reads_same(results):
    r = runner.invoke(app, ["report", "--compare", results, results, "--fail-on-regression", "0", "--format", "json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["verdicts"]["FASTER"] == data["verdicts"]["SLOWER"] == 0 and data["verdicts"]["SAME"] > 0


def test_compare_nothing_in_common_exits_non_zero(tmp_path, results):
    from tests.report.docs import dataset_entry, document, sample

    other = write(tmp_path, "other.json", document([sample("h", "cpu.sequential", s, 1.0) for s in range(4)],
                                                   {"h": dataset_entry(10, 20)}))
    r = runner.invoke(app, ["report", "--compare", results, str(other)])
    _one_line_error(r, "nothing to compare", "other.json")


def test_fail_on_regression_and_teps_errors(results):
    _one_line_error(runner.invoke(app, ["report", results, "--fail-on-regression", "50"]), "needs --compare")
    _one_line_error(runner.invoke(app, ["report", "--compare", results, results, "--fail-on-regression", "-5"]),
                    "percentage >= 0")
    _one_line_error(runner.invoke(app, ["report", results, "--teps", "undirected"]), "--teps", "graph500")


def test_terminal_shortens_reasons_csv_keeps_them(results):
    r = runner.invoke(app, ["report", results])
    assert "no usable GPU: CuPy…" in r.stdout and "is not installed): luo.hierarchical" in r.stdout
    r = runner.invoke(app, ["report", results, "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    luo = next(x for x in rows if x["row"] == "g2" and x["column"] == "luo.hierarchical")
    assert luo["text"] == "unavailable: no usable GPU: CuPy is not installed"


def test_min_change_sets_the_smallest_change_named(tmp_path, results):
    a, b = _compare_files(tmp_path, [t * 1.3 for t in [1.0, 1.3, 0.9, 1.1, 1.2, 1.0, 0.8, 1.1]])  # 30% slower
    verdict = {}
    for pct in ("10", "50"):
        r = runner.invoke(app, ["report", "--compare", a, b, "--min-change", pct, "--format", "json"])
        assert r.exit_code == 0, r.output
        verdict[pct] = json.loads(r.stdout)["cells"][0]["verdict"]
    assert verdict == {"10": "SLOWER", "50": "SAME"}
    _one_line_error(runner.invoke(app, ["report", "--compare", a, b, "--min-change", "-1"]), "--min-change")


def test_out_written_meanwhile_by_another_command_is_refused_not_replaced(results, tmp_path, monkeypatch):
    """Two reports racing for one --out: the file the other wrote after this one's first
    check is refused at publishing (exact), untouched, and nothing half-written is left;
    with --force the whole report replaces it."""
    import tempfile

    from gpubfs_cli import files

    out = tmp_path / "r.md"
    real = tempfile.mkstemp

    def other_writes_first(*args, **kwargs):  # while this one writes its temporary file
        made = real(*args, **kwargs)
        if kwargs.get("prefix") == ".r.md.":
            out.write_text("the other report")
        return made

    monkeypatch.setattr(files.tempfile, "mkstemp", other_writes_first)
    r = runner.invoke(app, ["report", results, "--format", "md", "--out", str(out)])
    _one_line_error(r, f"{out}: already exists; give --force to replace it, or another --out")
    assert out.read_text() == "the other report" and sorted(p.name for p in tmp_path.iterdir()) == ["main.json", "r.md"]
    r = runner.invoke(app, ["report", results, "--format", "md", "--out", str(out), "--force"])
    assert r.exit_code == 0, r.output
    assert out.read_text().startswith("# gpubfs report")


def test_a_figure_written_meanwhile_is_refused_not_replaced(results, tmp_path, monkeypatch):
    from gpubfs_cli.report import plots

    folder = tmp_path / "plots"
    real = plots._savefig

    def other_writes_first(fig, target, fmt):
        (folder / "throughput.png").write_text("the other figure")
        real(fig, target, fmt)

    monkeypatch.setattr(plots, "_savefig", other_writes_first)
    r = runner.invoke(app, ["report", results, "--plot", str(folder)])
    _one_line_error(r, f"{folder / 'throughput.png'}: already exists; give --force to replace it, or another --plot folder")
    assert (folder / "throughput.png").read_text() == "the other figure"
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("kind", ["missing", "file", "empty", "dangling", "loop"])
@pytest.mark.parametrize("command", [["list", "papers"], ["list", "papers", "--json"], ["report", "R", "--paper", "luo"]])
def test_a_papers_folder_without_papers_is_one_line_never_an_empty_table(results, tmp_path, monkeypatch, kind, command):
    folder = tmp_path / "papers"
    if kind == "file":
        folder.write_text("key: luo\n")
    elif kind == "empty":
        folder.mkdir()
        (folder / "README.md").write_text("no layouts here")
    elif kind == "dangling":
        folder.symlink_to(tmp_path / "gone")
    elif kind == "loop":
        folder.symlink_to(folder)
    monkeypatch.setenv("GPUBFS_PAPERS_DIR", str(folder))
    what = {"missing": "no such folder", "file": "not a folder", "empty": "holds no paper layout (no KEY.yaml file)",
            "dangling": "a symbolic link that points nowhere", "loop": "a symbolic link that loops"}[kind]
    r = runner.invoke(app, [results if a == "R" else a for a in command])
    _one_line_error(r, f"{folder} ($GPUBFS_PAPERS_DIR): {what}; set $GPUBFS_PAPERS_DIR to a folder of paper layouts")
    assert r.stdout == ""
