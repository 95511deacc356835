"""The command line's conventions: shell completion, --quiet / --verbose / --log through
logging, progress off a terminal, `--out -`, knobs in -s, `run --dry-run`.

CliRunner where the output's text is what matters; `python -m gpubfs_cli` with pipes where
what a terminal or a pipe does matters (progress lines, flushed as they come)."""

from __future__ import annotations

import gzip
import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gpubfs_cli import logs
from gpubfs_cli.bench.config_cli import config_from_cli
from gpubfs_cli.bench.variants import Variant
from gpubfs_cli.cli import app
from gpubfs_cli.core.strategy import canonical_name
from gpubfs_cli.gpu import backend
from gpubfs_cli.results.schema import load_results
from tests.report.docs import main_doc, write
from tests.test_cli_reproduce import tiny_paper
from tests.tools import one_line

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
TURN = re.compile(r"^(\S+) · (\S+): (\d+) sources? in [\d.]+ s; \d+/\d+ traversals, [\d.]+ s elapsed$")


def cli(*args, **kwargs):
    return runner.invoke(app, [str(a) for a in args], **kwargs)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A dataset cache holding smoke-grid and smoke-gnm (the runs below share it)."""
    d = tmp_path_factory.mktemp("data")
    assert cli("--quiet", "fetch-dataset", "smoke-grid", "smoke-gnm", "--dir", d).exit_code == 0
    return d


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(backend, "unavailable_reason", lambda: "disabled for this test")


# ---------------------------------------------------------------- shell completion
def test_show_completion_prints_a_bash_script(monkeypatch):
    monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")  # the shell named, not detected
    r = cli("--show-completion", "bash")
    assert r.exit_code == 0, r.output
    assert "_gpubfs_completion()" in r.stdout
    assert "complete -o default -F _gpubfs_completion gpubfs" in r.stdout


def test_install_completion_writes_under_home_only(tmp_path, monkeypatch):
    monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")
    home = tmp_path / "home"
    home.mkdir()
    r = cli("--install-completion", "bash", env={"HOME": str(home)})
    assert r.exit_code == 0, r.output
    script = home / ".bash_completions" / "gpubfs.sh"
    assert "_gpubfs_completion" in script.read_text()
    assert str(script) in (home / ".bashrc").read_text()


def test_completion_completes_commands_and_options():
    r = cli(env={"_GPUBFS_COMPLETE": "complete_bash", "COMP_WORDS": "gpubfs li", "COMP_CWORD": "1"})
    assert r.stdout.split() == ["list"]
    r = cli(env={"_GPUBFS_COMPLETE": "complete_bash", "COMP_WORDS": "gpubfs run --dry", "COMP_CWORD": "2"})
    assert r.stdout.split() == ["--dry-run"]


def test_help_lists_the_global_options():
    r = cli("--help")
    assert r.exit_code == 0
    for option in ("--quiet", "--verbose", "--log", "--install-completion", "--show-completion"):
        assert option in r.stdout


# ---------------------------------------------------------------- logging
def test_default_quiet_and_verbose_levels(tmp_path, data):
    args = ["run", "-d", "smoke-grid", "-s", "cpu.sequential", "--dir", data]
    default = cli(*args, "--out", tmp_path / "a.json")
    assert default.exit_code == 0, default.output
    err = default.stderr.splitlines()
    assert any(line.startswith("note: smoke-grid: runs from its one fixed source") for line in err), err
    assert any(TURN.match(line) for line in err), err
    assert not any(line.startswith("debug: ") for line in err)

    quiet = cli("--quiet", *args, "--out", tmp_path / "b.json")
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stderr == ""
    assert "cpu.sequential" in quiet.stdout and f"results: {tmp_path / 'b.json'}" in quiet.stdout

    verbose = cli("-v", *args, "--out", tmp_path / "c.json")
    assert verbose.exit_code == 0, verbose.output
    assert "debug: run run: 1 dataset(s) x 1 variant(s)" in verbose.stderr
    assert any(TURN.match(line) for line in verbose.stderr.splitlines())


def test_the_dataset_layer_speaks_through_logging(tmp_path):
    said = cli("fetch-dataset", "smoke-grid", "--dir", tmp_path / "a")
    assert said.exit_code == 0, said.output
    assert "smoke-grid: generating lattice" in said.stderr
    quiet = cli("-q", "fetch-dataset", "smoke-grid", "--dir", tmp_path / "b")
    assert quiet.exit_code == 0, quiet.output
    assert quiet.stderr == "" and quiet.stdout.startswith("smoke-grid: n = 13,824")


def test_a_run_off_a_terminal_says_how_its_graphs_are_made(tmp_path):
    r = cli("run", "-d", "smoke-grid", "-s", "cpu.sequential", "--dir", tmp_path / "data", "--out", tmp_path / "r.json")
    assert r.exit_code == 0, r.output
    assert "smoke-grid: generating lattice" in r.stderr and "smoke-grid: cached in" in r.stderr
    quiet = cli("-q", "run", "-d", "smoke-gnm", "-s", "cpu.sequential", "--dir", tmp_path / "data", "--out",
                tmp_path / "q.json")
    assert quiet.exit_code == 0 and quiet.stderr == "", quiet.output


def test_errors_stay_one_line_under_quiet_and_verbose():
    for flags in ([], ["--quiet"]):
        one_line(cli(*flags, "run", "-d", "no-such-graph"), "command line: datasets[0]: unknown dataset")
    verbose = cli("--verbose", "run", "-d", "no-such-graph")  # the debug lines, then the one error line
    assert verbose.exit_code == 2
    lines = verbose.stderr.splitlines()
    assert [line for line in lines if not line.startswith("debug: ")] == [one_line(cli("run", "-d", "no-such-graph"))]
    assert lines[-1].startswith("error: command line: datasets[0]: unknown dataset 'no-such-graph'")


def test_log_file_holds_every_record_one_line_each(tmp_path, data):
    log = tmp_path / "gpubfs.log"
    r = cli("--quiet", "--log", log, "run", "-d", "smoke-grid", "-s", "cpu.sequential", "--dir", data,
            "--out", tmp_path / "r.json")
    assert r.exit_code == 0 and r.stderr == "", r.output
    bad = cli("--quiet", "--log", log, "run", "-d", "no-such-graph")
    one_line(bad, "unknown dataset 'no-such-graph'")
    lines = log.read_text().splitlines()
    stamp = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d (DEBUG|INFO|WARNING|ERROR) gpubfs[.\w]*: "
    assert all(re.match(stamp, line) for line in lines), lines
    levels = [line.split()[1] for line in lines]
    assert "DEBUG" in levels and "INFO" in levels  # below --quiet's level: in the file all the same
    assert any(re.search(r" INFO gpubfs\.progress: smoke-grid · cpu\.sequential: 1 source in ", line)
               for line in lines), lines
    assert lines[-1].endswith("ERROR gpubfs: " + bad.stderr.strip().removeprefix("error: "))  # appended


def test_log_and_level_mistakes_are_one_line(tmp_path):
    one_line(cli("--quiet", "--verbose", "info"), "--quiet and --verbose: give one of them")
    one_line(cli("--log", tmp_path, "info"), f"--log {tmp_path}: cannot open it")


def test_a_record_with_a_newline_stays_one_line_in_the_log(tmp_path):
    log = tmp_path / "x.log"
    logs.setup(Console(file=open(os.devnull, "w")), log_file=str(log))
    try:
        logging.getLogger("gpubfs.test").info("two\nlines")
    finally:
        logs.close()
    (line,) = log.read_text().splitlines()
    assert line.endswith(r"INFO gpubfs.test: two\nlines")
    assert not logging.getLogger("gpubfs").handlers  # close takes down what setup installed


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_log_file_that_cannot_be_written_ends_in_one_warning():
    import io

    said = io.StringIO()
    logs.setup(Console(file=said, width=200), log_file="/dev/full")
    try:
        for _ in range(3):
            logging.getLogger("gpubfs.test").info("x" * 10_000)
    finally:
        logs.close()
    warnings = [line for line in said.getvalue().splitlines() if line.startswith("warning: ")]
    assert warnings == ["warning: --log /dev/full: cannot write (No space left on device); the log ends here"]


def test_an_interrupt_mid_line_does_not_repeat_the_line():
    """SIGTERM lands between rich's write of a progress line and the emptying of its
    console's buffer: the error line after it must not say the progress line again."""
    import io

    class Interrupted(io.StringIO):
        armed = True

        def flush(self):  # rich flushes after the write, before it empties its buffer
            if self.armed:
                self.armed = False
                raise KeyboardInterrupt

    out = Interrupted()
    console = Console(file=out, width=200)
    logs.setup(console)
    try:
        with pytest.raises(KeyboardInterrupt):
            logging.getLogger("gpubfs.test").info("downloading")
    finally:
        logs.close()
    console.print("interrupted")
    assert out.getvalue() == "downloading\ninterrupted\n"


# ---------------------------------------------------------------- progress off a terminal
def test_a_run_in_a_pipe_says_each_turn_as_it_ends(tmp_path, data):
    """stdout and stderr pipes (nohup, CI): one line per (graph, variant) turn on stderr,
    the results table on stdout."""
    out = tmp_path / "r.json"
    done = subprocess.run([sys.executable, "-m", "gpubfs_cli", "run", "-d", "smoke-gnm,smoke-grid",
                           "-s", "cpu.sequential,cpu.msbfs[width=8]", "--sources", "4", "--rounds", "2",
                           "--out", out, "--dir", data], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    turns = [TURN.match(line).groups() for line in done.stderr.splitlines() if TURN.match(line)]
    # smoke-gnm: 4 sources in 2 rounds, 2 each; smoke-grid: its one fixed source, one round
    assert sorted(turns) == sorted([
        ("smoke-gnm", "cpu.sequential", "2"), ("smoke-gnm", "cpu.msbfs[width=8]", "2"),
        ("smoke-gnm", "cpu.msbfs[width=8]", "2"), ("smoke-gnm", "cpu.sequential", "2"),
        ("smoke-grid", "cpu.sequential", "1"), ("smoke-grid", "cpu.msbfs[width=8]", "1")])
    assert [g for g, _, _ in turns] == ["smoke-gnm"] * 4 + ["smoke-grid"] * 2  # in the order they ran
    assert "·" not in done.stdout and "cpu.sequential" in done.stdout
    assert "\x1b[" not in done.stderr  # no bar, no colour codes in a pipe


def test_a_turn_that_cannot_run_here_is_no_line_but_is_in_the_log(tmp_path, data, monkeypatch):
    """The run's end lists the unavailable variants once; a line per graph for each of
    them would bury the turns that ran. --log keeps them (debug)."""
    monkeypatch.setattr(backend, "unavailable_reason", lambda: "disabled for this test")
    log_file = tmp_path / "run.log"
    r = cli("--log", log_file, "run", "-d", "smoke-gnm", "-s", "cpu.sequential,do.bfs", "--sources", "2",
            "--out", tmp_path / "r.json", "--dir", data)
    assert r.exit_code == 0, r.output
    assert "smoke-gnm · cpu.sequential: 2 sources in" in r.stderr
    assert "smoke-gnm · do.bfs" not in r.stderr
    assert "smoke-gnm · do.bfs: unavailable (disabled for this test)" in log_file.read_text()


def test_a_turn_line_is_flushed_while_the_run_goes_on(tmp_path, data):
    """The first turn's line can be read from the pipe while the second (the slow
    cpu.networkx) still runs: nothing waits in a buffer for the end of the run."""
    proc = subprocess.Popen([sys.executable, "-m", "gpubfs_cli", "run", "-d", "smoke-gnm", "-s",
                             "cpu.sequential,cpu.networkx", "--sources", "5000", "--out", tmp_path / "r.json",
                             "--dir", data], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            assert line, "the run ended before its first turn's line"
            if TURN.match(line.rstrip("\n")):
                break
        assert TURN.match(line.rstrip("\n")).groups() == ("smoke-gnm", "cpu.sequential", "5000")
        assert proc.poll() is None  # cpu.networkx's 5,000 sources take far longer
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143


# ---------------------------------------------------------------- --out -
@pytest.fixture
def results(tmp_path):
    return write(tmp_path, "main.json", main_doc())


@pytest.mark.parametrize("fmt", ["table", "md", "csv", "json", "html"])
def test_report_out_dash_writes_to_stdout_what_a_file_gets(fmt, results, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    to_file = cli("report", results, "--format", fmt, "--out", tmp_path / f"r.{fmt}")
    assert to_file.exit_code == 0, to_file.output
    dash = cli("report", results, "--format", fmt, "--out", "-")
    assert dash.exit_code == 0, dash.output
    assert dash.stdout == (tmp_path / f"r.{fmt}").read_text()
    assert not (tmp_path / "-").exists() and dash.stderr == ""


def test_run_out_dash_is_refused_in_one_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one_line(cli("run", "-d", "smoke-grid", "-s", "cpu.sequential", "--out", "-"),
             "--out -: a run's results need a file: it is rewritten after each graph, and the journal beside it "
             "is what --resume goes on from")
    cfg = tmp_path / "c.yaml"
    cfg.write_text("datasets: [smoke-grid]\nstrategies: [cpu.sequential]\nout: '-'\n")
    one_line(cli("run", cfg), f"{cfg}: out: -: a run's results need a file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.yaml"]


# ---------------------------------------------------------------- knobs in -s
def variants(*strategies: str, **flags) -> list[Variant]:
    return config_from_cli(None, datasets=["g"], strategies=list(strategies), dataset_check=lambda name: None,
                           **flags).variants


def shipped_labels() -> set[tuple[str, str]]:
    """(problem, variant label) of every summary in the shipped results files."""
    out = set()
    for path in sorted((ROOT / "docs" / "results").glob("*/*.json*")):
        with (gzip.open(path, "rt") if path.suffix == ".gz" else open(path)) as f:
            out |= {(s.get("problem", "bfs"), s["variant"]) for s in json.load(f).get("summaries", [])}
    return out


def test_every_shipped_variant_label_fed_to_s_is_that_variant():
    """The label runs and reports print (Variant.label, a results file's summaries), given
    back to -s, makes the variant it names (old names through their aliases)."""
    labels = shipped_labels()
    assert len(labels) > 100 and any("=off" in label for _, label in labels)
    for problem, label in sorted(labels):
        name, bracket, rest = label.partition("[")
        want = canonical_name(name) + bracket + rest
        assert [v.label for v in variants(label, problem=problem)] == [want], label


@pytest.mark.parametrize("knobs, label", [
    ({"alpha": 0.5, "beta": 2.0, "threads": 1}, "cpu.parallel_do[alpha=0.5,beta=2.0,threads=1]"),
    ({"alpha": 1e-05}, "cpu.parallel_do[alpha=1e-05]"),
    ({"width": 8}, "cpu.msbfs[width=8]"),
    ({"jaccard": True, "binary": "/opt/blest bin"}, "peer.blest[jaccard=True,binary=/opt/blest bin]"),
    ({"dedup": "off", "K2": 0}, "bfs4k.bfs4k[dedup=off,K2=0]"),  # YAML alone would read off as false
])
def test_a_variant_round_trips_through_its_label(knobs, label):
    name = label.split("[")[0]
    (made,) = variants(label)
    assert made == Variant(name, knobs) and made.label == label
    assert made.overrides == knobs and all(type(made.overrides[k]) is type(v) for k, v in knobs.items())


def test_the_labels_other_spellings():
    # report --check writes `NAME[k=v, k=v]`; a vertex order is the run's; SSSP names imply SSSP
    (v,) = variants("cpu.parallel_do[alpha=0.5, threads=2]")
    assert v.overrides == {"alpha": 0.5, "threads": 2}
    (v,) = variants("cpu.scipy[reorder=rcm]")
    assert (v.strategy, v.reorder, v.overrides) == ("cpu.scipy", "rcm", {})
    assert v.label == "cpu.scipy[reorder=rcm]"
    (v,) = variants("sssp.delta[cta_size=128]")
    assert (v.problem, v.overrides) == ("sssp", {"cta_size": 128})
    (v,) = variants("peer.gapbs[delta=None]", problem="sssp")
    assert v.overrides == {"delta": None}
    # a knob list keeps its commas; a pattern keeps its brackets
    assert [v.label for v in variants("cpu.parallel_do[alpha=1,beta=2],cpu.sequential")] == [
        "cpu.parallel_do[alpha=1,beta=2]", "cpu.sequential"]
    assert [v.label for v in variants("cpu.[s]equential,cpu.parallel_[t]d")] == ["cpu.sequential", "cpu.parallel_td"]


def test_a_knob_out_of_its_range_is_the_config_files_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "c.yaml"
    cfg.write_text("datasets: [smoke-grid]\nstrategies: [{name: cpu.msbfs, knobs: {width: 65}}]\n")
    from_file = one_line(cli("run", cfg))
    from_flag = one_line(cli("run", "-d", "smoke-grid", "-s", "cpu.msbfs[width=65]"))
    assert from_file == (f"error: {cfg}: strategies[0].knobs.width: cpu.msbfs: expected a whole number from 1 to 64, "
                         "got 65")
    assert from_flag == from_file.replace(str(cfg), "command line")
    one_line(cli("run", "-d", "smoke-grid", "-s", "cpu.msbfs[wdth=8]"),
             "unknown knob of cpu.msbfs 'wdth' (did you mean: width?)")
    one_line(cli("run", "-d", "smoke-grid", "-s", "cpu.parallel_do[alpha=fast]"),
             "strategies[0].knobs.alpha: cpu.parallel_do: expected float like the default 15.0")


@pytest.mark.parametrize("text, says", [
    ("cpu.msbfs[width=8", "expected NAME, a pattern, or NAME[KNOB=VALUE,...]"),
    ("cpu.msbfs[width]=8", "expected NAME, a pattern, or NAME[KNOB=VALUE,...]"),
    ("[width=8]", "expected NAME, a pattern, or NAME[KNOB=VALUE,...]"),
    ("cpu.msbfs[width=8,]", "'': expected NAME, a pattern, or NAME[KNOB=VALUE,...]"),
    ("cpu.msbfs[width=[8]]", "expected NAME, a pattern, or NAME[KNOB=VALUE,...]"),
    ("cpu.msbfs[width=8,width=9]", "knob 'width' given twice; keep one"),
    ("cpu.msbfs[width=a: b]", "width: expected one value, got 'a: b'"),
    ('cpu.msbfs[width="8]', "width: '\"8' is not a YAML value"),
    ("cpu.scipy[reorder=rcm],cpu.sequential", "reorder= names a vertex order, which is the whole run's"),
])
def test_bad_knob_syntax_is_one_line(text, says, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = one_line(cli("run", "-d", "smoke-grid", "-s", text))
    assert says in line and line.startswith("error: --strategy/-s"), line
    assert not (tmp_path / "results").exists()


def test_knobs_from_s_reach_the_results_and_back(tmp_path, data):
    first = tmp_path / "a.json"
    r = cli("run", "-d", "smoke-gnm", "-s", "cpu.msbfs[width=4]", "--sources", "8", "--out", first, "--dir", data)
    assert r.exit_code == 0, r.output
    (label,) = {s["variant"] for s in load_results(first)["summaries"]}
    assert label == "cpu.msbfs[width=4]"
    again = tmp_path / "b.json"
    r = cli("run", "-d", "smoke-gnm", "-s", label, "--sources", "8", "--out", again, "--dir", data)
    assert r.exit_code == 0, r.output
    knobs = [{k: v for k, v in s["knobs"].items()} for d in (first, again) for s in load_results(d)["samples"]]
    assert all(k == {"width": 4} for k in knobs) and len(knobs) == 16
    assert {s["batch"] for s in load_results(again)["samples"]} == {4}


# ---------------------------------------------------------------- run --dry-run
@pytest.fixture
def paper(tmp_path, monkeypatch, no_gpu):
    """reproduce's `tiny` paper (tests/test_cli_reproduce.py's, without its offline graph)."""
    return tiny_paper(tmp_path, monkeypatch, "name: tiny-run\ndatasets: [smoke-gnm, smoke-grid]\n"
                                             "strategies: [cpu.sequential, merrill.hybrid]\nsources: 2\nwarmup: 0\n")


def estimate_of(text: str, before: str) -> str:
    match = re.search(re.escape(before) + r".*?(\d+) cell\(s\) to run, (?:\d+ finished, )?(.+)$", text, re.M)
    assert match, text
    return f"{match.group(1)} cells, {match.group(2)}"


def test_run_dry_run_has_reproduces_plan_and_estimate(paper, tmp_path, data):
    # history: this CPU's own cpu.sequential results, so the estimate is a number
    assert cli("-q", "run", "-d", "smoke-gnm,smoke-grid", "-s", "cpu.sequential", "--sources", "2",
               "--dir", data).exit_code == 0
    before = sorted(p for p in tmp_path.rglob("*") if ".bash" not in str(p))
    dry = cli("run", paper, "--dir", data, "--dry-run")
    assert dry.exit_code == 0, dry.output
    repro = cli("reproduce", "tiny", "--dir", data, "--results", tmp_path / "out", "--dry-run")
    assert repro.exit_code == 0, repro.output
    assert estimate_of(dry.stdout, "tiny-run: 2 graph(s) x 2 variant(s), ") == \
        estimate_of(repro.stdout, "tiny · tiny-run: ")
    assert re.search(r"2 cells, (about|under) .+ \(from local history: 4\)$", estimate_of(dry.stdout, "tiny-run: 2 g"))
    for line in ("tiny-run: bfs merrill.hybrid: not run here: disabled for this test",
                 "estimates for this CPU ("):
        assert line in dry.stdout and line in repro.stdout
    assert re.search(r"^  smoke-gnm: cached \(.+\), a BFS needs .+ of GPU memory \(no GPU here\)$", dry.stdout, re.M)
    assert "tiny-run: results would go to results/tiny-run-<UTC time>.json; nothing was run or written" in dry.stdout
    assert sorted(p for p in tmp_path.rglob("*") if ".bash" not in str(p)) == before  # nothing written


def test_run_dry_run_writes_nothing_and_takes_flags(tmp_path, monkeypatch, no_gpu):
    monkeypatch.chdir(tmp_path)
    r = cli("run", "-d", "smoke-grid", "-s", "cpu.msbfs[width=2]", "--dir", tmp_path / "data", "--out",
            tmp_path / "r.json", "--dry-run")
    assert r.exit_code == 0, r.output
    assert "run: smoke-grid: generate first" in r.stdout
    assert "run: 1 graph(s) x 1 variant(s), 1 cell(s) to run" in r.stdout
    assert f"run: results would go to {tmp_path / 'r.json'}" in r.stdout
    assert list(tmp_path.iterdir()) == []
    one_line(cli("run", "-d", "smoke-grid", "--require-gpu", "--dry-run"),
             "--require-gpu: no usable GPU here (disabled for this test)")
    one_line(cli("run", "--resume", tmp_path / "x.journal.jsonl", "--dry-run"), "--dry-run plans a new run")
    assert list(tmp_path.iterdir()) == []


def test_list_configs_names_the_shipped_configs():
    r = cli("list", "configs", "--json")
    assert r.exit_code == 0, r.output
    names = {row["name"] for row in json.loads(r.stdout)}
    assert {"default", "smoke"} <= names
