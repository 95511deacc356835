"""What a hostile new user tries, through the CLI: outputs over existing files and over
the command's own inputs, inputs that are no regular file or too large, a broken
environment (NUMBA_NUM_THREADS, a non-UTF-8 $GPUBFS_CATALOGUE), a cache folder with an
array missing, a run where nothing could run, names and values that could never be used,
and negative weights; then a closed stdout, COLUMNS=0, SIGTERM outside a run, a dataset
named twice, journal lines no parser takes, a results file or figure that cannot be
written, --dir '' and --file mistakes, a thread count far over the cores, a results file
with a number too long, a sample value the journal would refuse, a journal sample of a variant the run
never planned, an unknown counter, and click's usage errors. Each is one line and a non-zero exit, and
leaves nothing behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from tests.report.docs import main_doc, write
from tests.tools import one_line

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def cli(*args, **kwargs):
    return runner.invoke(app, [str(a) for a in args], **kwargs)


def gpubfs(*args, env=None, timeout=120, limit_bytes=None) -> subprocess.CompletedProcess:
    """`python -m gpubfs_cli ARGS` in a process of its own (a hang or a memory blow-up
    ends there, not in the test run)."""
    def limit():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    return subprocess.run([sys.executable, "-m", "gpubfs_cli", *map(str, args)], cwd=ROOT, text=True,
                          capture_output=True, timeout=timeout, env={**os.environ, **(env or {})},
                          preexec_fn=limit if limit_bytes else None)


def proc_line(done: subprocess.CompletedProcess, *parts) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    for p in parts:
        assert p in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def results(tmp_path):
    return write(tmp_path, "main.json", main_doc())


@pytest.fixture(scope="module")
def mine_cache(tmp_path_factory):
    """A cache holding `mine`, a three-edge graph of the user's own (copied per test)."""
    d = tmp_path_factory.mktemp("mine")
    edges = d / "g.txt"
    edges.write_text("0 1 4\n1 2 5\n2 0 6\n")
    r = cli("fetch-dataset", "mine", "--file", edges, "--format", "snap", "--dir", d / "cache")
    assert r.exit_code == 0, r.output
    return d / "cache"


@pytest.fixture
def cache(mine_cache, tmp_path):
    import shutil

    shutil.copytree(mine_cache, tmp_path / "cache")
    return tmp_path / "cache"


# ---- 1. outputs over existing files --------------------------------------------------

def test_report_out_refuses_an_existing_file_without_force(results, tmp_path):
    out = tmp_path / "report.md"
    out.write_text("mine")
    one_line(cli("report", results, "--format", "md", "--out", out),
             f"{out}: already exists; give --force to replace it, or another --out")
    assert out.read_text() == "mine"
    r = cli("report", results, "--format", "md", "--out", out, "--force")
    assert r.exit_code == 0, r.output
    assert out.read_text().startswith("# gpubfs report")


def test_report_never_writes_over_its_own_input(results, tmp_path, monkeypatch):
    """Named, through a hard link, picked by a bare report, or one of --compare's: refused
    with --force too, and the results file is left as it was."""
    before = results.read_bytes()
    link = tmp_path / "link.json"
    os.link(results, link)
    for args, out in (([results], results), ([results], link),
                      (["--compare", results, results], results)):
        one_line(cli("report", *args, "--format", "md", "--out", out, "--force"),
                 f"{out}: is ", "one of this report's own inputs")
    monkeypatch.chdir(tmp_path)
    latest = write(tmp_path / "results", "r.json", main_doc())
    one_line(cli("report", "--format", "md", "--out", "results/r.json", "--force"),
             "results/r.json: is results/r.json, one of this report's own inputs")
    assert results.read_bytes() == before and latest.read_bytes() == before


def test_export_refuses_an_existing_path_and_the_cached_graph_itself(cache, tmp_path):
    out = tmp_path / "g.mtx"
    out.write_text("mine")
    one_line(cli("export", "mine", out, "--dir", cache),
             f"{out}: already exists; give --force to replace it, or another PATH")
    assert out.read_text() == "mine"
    r = cli("export", "mine", out, "--dir", cache, "--force")
    assert r.exit_code == 0, r.output
    assert out.read_text().startswith("%%MatrixMarket")
    meta = cache / "mine" / "meta.json"
    kept = meta.read_bytes()
    one_line(cli("export", "mine", meta, "--dir", cache, "--force"),
             f"{meta}: is ", "one of this export's own inputs")
    assert meta.read_bytes() == kept


def test_run_report_and_export_share_the_one_existing_file_rule(tmp_path):
    """One function says it for all three (results/journal.py uses it for run --out)."""
    from gpubfs_cli.errors import UserError
    from gpubfs_cli.files import refuse_existing
    from gpubfs_cli.results import journal as journal_module

    assert journal_module.refuse_existing is refuse_existing
    (tmp_path / "x").write_text("")
    with pytest.raises(UserError, match=r"x: already exists; give --force to replace it, or another PATH$"):
        refuse_existing(tmp_path / "x", "PATH")


# ---- 2. inputs that are no regular file, or too large ----------------------------------

def test_report_refuses_a_device_and_a_fifo_at_once(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero here")
    # a memory limit: read whole, /dev/zero would end in MemoryError, not grow to an OOM kill
    done = gpubfs("report", "/dev/zero", limit_bytes=3 << 30)
    proc_line(done, "/dev/zero: is a character device, expected a results file (a regular file)")
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    done = gpubfs("report", fifo, timeout=60)  # opened for reading, it would wait for a writer
    proc_line(done, f"{fifo}: is a FIFO (named pipe), expected a results file (a regular file)")


def test_report_refuses_a_results_file_over_the_bound(results, tmp_path, monkeypatch):
    import gzip

    from gpubfs_cli import files

    monkeypatch.setattr(files, "MAX_READ_BYTES", 4096)
    big = tmp_path / "big.json"
    big.write_text(" " * 4097)
    one_line(cli("report", big), f"{big}: larger than 4,096 bytes on disk; not a results file")
    bomb = tmp_path / "bomb.json.gz"  # small on disk, 1 MB once decompressed
    bomb.write_bytes(gzip.compress(b" " * (1 << 20)))
    assert bomb.stat().st_size < 4096
    one_line(cli("report", bomb), f"{bomb}: larger than 4,096 bytes once decompressed")


# ---- 3. the environment -------------------------------------------------------------

@pytest.mark.parametrize("value", ["0", "abc", "-1", ""])
def test_a_bad_numba_num_threads_is_one_line(value):
    done = gpubfs("list", "datasets", "--json", env={"NUMBA_NUM_THREADS": value})
    proc_line(done, f"NUMBA_NUM_THREADS={value!r}: expected a whole number of threads >= 1")


def test_a_bad_numba_num_threads_stops_a_run_before_it_starts():
    done = gpubfs("run", "smoke", env={"NUMBA_NUM_THREADS": "0"})
    proc_line(done, "NUMBA_NUM_THREADS='0'")
    assert done.stdout == ""


def test_a_non_utf8_catalogue_is_one_line(tmp_path, monkeypatch):
    cat = tmp_path / "cat.yaml"
    cat.write_bytes(b"datasets:\n  x\xff: {}\n")
    monkeypatch.setenv("GPUBFS_CATALOGUE", str(cat))
    for args in (("list", "datasets"), ("run", "smoke", "--dir", tmp_path / "d")):
        one_line(cli(*args), f"{cat}:2: not a dataset catalogue: not UTF-8 text (byte 0xff",
                 "(the catalogue named by $GPUBFS_CATALOGUE)")


# ---- 4. misleading lines --------------------------------------------------------------

def test_a_cache_folder_missing_an_array_is_broken_not_unknown(cache, tmp_path):
    (cache / "mine" / "row_offsets.npy").unlink()
    why = (f"dataset 'mine': the cached graph in {cache / 'mine'} is broken (row_offsets.npy is missing); "
           "repair with: gpubfs fetch-dataset mine --force")
    one_line(cli("export", "mine", tmp_path / "g.mtx", "--dir", cache), why)
    one_line(cli("run", "-d", "mine", "-s", "cpu.sequential", "--dir", cache, "--out", tmp_path / "r.json"), why)
    one_line(cli("fetch-dataset", "mine", "--dir", cache), why)
    r = cli("list", "datasets", "--json", "--dir", cache)
    assert {row["name"]: row["broken"] for row in json.loads(r.stdout)}["mine"] == why
    r = cli("fetch-dataset", "mine", "--dir", cache, "--force")  # the repair it names works
    assert r.exit_code == 0, r.output
    assert r.stdout == "mine: n = 3, m = 3 (directed)\n"


def test_fixed_sources_from_a_config_are_named_as_its_key(cache, tmp_path):
    cfg = tmp_path / "mine.yaml"
    cfg.write_text("datasets: [mine]\nstrategies: [cpu.sequential]\nfixed_sources: [7]\n")
    one_line(cli("run", cfg, "--dir", cache, "--out", tmp_path / "r.json"),
             f"{cfg}: fixed_sources: vertex 7 is out of range for mine (0 <= v < 3)")
    one_line(cli("run", cfg, "--source", "9", "--dir", cache, "--out", tmp_path / "r.json"),
             "error: --source: vertex 9 is out of range for mine")


def test_a_run_where_nothing_can_run_fails_in_one_line_and_writes_nothing(tmp_path, monkeypatch):
    """Every strategy unavailable here: exit 1, one line saying why, no table, and no
    results file or journal for a bare `gpubfs report` to take for the newest run."""
    from gpubfs_cli.gpu import backend

    monkeypatch.setattr(backend, "unavailable_reason", lambda: "disabled for this test")
    monkeypatch.chdir(tmp_path)
    good = write(tmp_path / "results", "a-good.json", main_doc())
    os.utime(good, (1_000_000, 1_000_000))
    r = cli("run", "-d", "smoke-grid", "-s", "merrill.hybrid", "--dir", tmp_path / "d", "--no-require-gpu",
            "--out", "results/b-none.json")
    assert one_line(r, code=1) == ("error: nothing was measured: no strategy of this run can run here "
                                   "(merrill.hybrid: disabled for this test); no results file written")
    assert r.stdout == "" and not (tmp_path / "d").exists()  # no table, no graph made
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == ["a-good.json"]
    r = cli("report", "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["files"] == ["results/a-good.json"]


def test_a_run_whose_every_cell_turned_out_unavailable_fails_in_one_line(cache, tmp_path, monkeypatch):
    """The graph loaded, but no variant could run on it (over cpu.networkx's limit): as
    above, nothing measured, so exit 1 and no results file."""
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "nx.yaml"
    cfg.write_text("datasets: [mine]\nstrategies: [{name: cpu.networkx, knobs: {max_edges: 2}}]\nsources: 2\n")
    r = cli("--quiet", "run", cfg, "--dir", cache)  # no progress line (its turn's) before the error
    assert one_line(r, code=1) == ("error: nothing was measured: every cell is unavailable (cpu.networkx: 3 "
                                   "edges is over the networkx limit max_edges=2); no results file written")
    assert r.stdout == "" and not (tmp_path / "results").exists()


# ---- 5. bad input accepted silently --------------------------------------------------------

def test_a_dataset_name_with_a_comma_is_refused(tmp_path):
    edges = tmp_path / "g.txt"
    edges.write_text("0 1\n")
    one_line(cli("fetch-dataset", "a,b", "--file", edges, "--format", "snap", "--dir", tmp_path / "cache"),
             "'a,b' cannot name your graph: `gpubfs run --dataset` splits its value at commas")
    assert not (tmp_path / "cache" / "a,b").exists()


@pytest.mark.parametrize("args, option", [
    (["--out", ""], "--out"),
    (["-s", ""], "--strategy/-s"),
    (["-s", " , "], "--strategy/-s"),
    (["-d", ""], "--dataset/-d"),
    (["--reorder", ""], "--reorder"),
    (["--dir", ""], "--dir"),
])
def test_an_empty_run_option_is_refused(args, option, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = ["run", "-d", "smoke-grid", "-s", "cpu.sequential", "--sources", "1"]
    one_line(cli(*base, *args), f"error: {option}: an empty value")
    assert not (tmp_path / "results").exists() and not (tmp_path / "datasets").exists()


def test_an_empty_output_path_is_refused(results, cache, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one_line(cli("report", results, "--out", ""), "error: --out: an empty value; expected a file name for the report")
    one_line(cli("export", "mine", "", "--dir", cache), "error: PATH: an empty value")


@pytest.mark.parametrize("fmt, text, line, weight", [
    ("snap", "0 1 4\n# two\n1 2 -3\n2 0 1\n", 3, "-3"),
    ("mtx", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 1.5\n2 3 -0.5\n3 1 2\n", 4, "-0.5"),
    ("dimacs9", "p sp 3 2\nc x\na 1 2 4\na 2 3 -7\n", 4, "-7"),
    ("metis", "3 2 1\n2 5\n1 5 3 -2\n2 -2\n", 3, "-2"),
])
def test_negative_weights_are_refused_at_fetch_time(fmt, text, line, weight, tmp_path):
    graph = tmp_path / f"neg.{fmt}"
    graph.write_text(text)
    r = cli("fetch-dataset", "neg", "--file", graph, "--format", fmt, "--dir", tmp_path / "cache")
    assert r.exit_code == 2, r.output
    errors = [text for text in r.stderr.splitlines() if text.startswith("error: ")]  # after its progress lines
    assert errors == [f"error: {graph}:{line}: edge weight {weight} is negative; the graph's weights are kept "
                      "for shortest paths, which need weights >= 0"]
    assert not (tmp_path / "cache" / "neg").exists()


def test_a_key_given_twice_in_a_catalogue_or_paper_layout_is_one_line(tmp_path, monkeypatch):
    from gpubfs_cli.errors import UserError
    from gpubfs_cli.report.papers import load_paper_file

    cat = tmp_path / "cat.yaml"
    cat.write_text("datasets:\n  g:\n    kind: generated\n    kind: download\n")
    monkeypatch.setenv("GPUBFS_CATALOGUE", str(cat))
    one_line(cli("list", "datasets"), f"{cat}:4: key 'kind' given twice in one mapping (first at line 3)")
    layout = tmp_path / "luo.yaml"
    layout.write_text("key: luo\ntitle: t\ntitle: u\n")
    with pytest.raises(UserError, match=r"luo\.yaml:3: key 'title' given twice in one mapping \(first at line 2\)"):
        load_paper_file(layout)


# ---- 6. what a second hostile sweep still found ---------------------------------------

def closed_stdout(*args, env=None) -> subprocess.CompletedProcess:
    """`gpubfs ARGS >&-`: the process starts with no file descriptor 1 (Python's sys.stdout is None)."""
    return subprocess.run([sys.executable, "-m", "gpubfs_cli", *map(str, args)], cwd=ROOT, text=True,
                          stderr=subprocess.PIPE, timeout=120, env={**os.environ, **(env or {})},
                          preexec_fn=lambda: os.close(1))


def test_a_closed_stdout_is_one_line_not_a_traceback(results):
    for args in (("list", "papers"), ("report", results)):
        done = closed_stdout(*args)
        assert done.returncode == 1, done.stderr
        assert done.stderr == "error: cannot write output: standard output is closed\n", done.stderr


def test_columns_zero_still_prints_the_tables(results):
    """rich takes COLUMNS=0 as a width of 0 and prints nothing at all, exit status 0."""
    for args, part in ((("list", "papers"), "merrill"), (("report", results), "cpu.sequential")):
        done = gpubfs(*args, env={"COLUMNS": "0"})
        assert done.returncode == 0, done.stderr
        assert part in done.stdout


def test_sigterm_outside_a_run_exits_143_not_ctrl_c_s_130(tmp_path):
    """A download that hangs (a server that never answers), stopped by `kill`."""
    import signal
    import socket

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        url = f"http://127.0.0.1:{server.getsockname()[1]}/g.txt"
        proc = subprocess.Popen([sys.executable, "-m", "gpubfs_cli", "fetch-dataset", "hang", "--url", url,
                                 "--format", "snap", "--dir", tmp_path / "cache"],
                                cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            while "downloading" not in (line := proc.stderr.readline()):  # the command is under way
                assert line, "the command ended before it began the download"
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
    assert proc.returncode == 143, err
    assert err.strip() == "interrupted while fetching hang: the cache holds only complete graphs"


def test_a_dataset_named_twice_is_one_line_not_a_traceback(cache, tmp_path):
    cfg = tmp_path / "twice.yaml"
    cfg.write_text("datasets: [mine, {name: mine}]\nstrategies: [cpu.sequential]\n")
    out = tmp_path / "r.json"
    one_line(cli("run", cfg, "--dir", cache, "--out", out),
             f"{cfg}: datasets[1]: 'mine' is the graph of datasets[0] again; name each graph once")
    one_line(cli("run", "-d", "mine,mine", "-s", "cpu.sequential", "--dir", cache, "--out", out),
             "command line: datasets[1]: 'mine' is the graph of datasets[0] again")
    assert not out.exists() and not (tmp_path / "r.journal.jsonl").exists()


@pytest.mark.parametrize("line, says", [
    (b'{"kind": "measured", "n": ' + b"9" * 5000 + b"}", "Exceeds the limit (4300 digits)"),
    (b"[" * 100_000 + b"]" * 100_000, "maximum recursion depth exceeded"),
])
def test_a_journal_line_too_large_to_parse_is_one_line(tmp_path, line, says):
    from tests.results.test_journal import _lines, _stopped_journal, _write_lines

    journal = _stopped_journal(tmp_path)
    lines = _lines(journal)
    _write_lines(journal, lines[:1] + [line] + lines[1:])  # not the last line: no crash cuts it so
    one_line(cli("report", journal), f"{journal}:2: not a journal record (", says)


def test_a_journal_sample_of_a_dataset_it_never_recorded_is_refused(tmp_path):
    """Replayed, it made a results file `report --check` refuses."""
    from tests.results.test_journal import _lines, _stopped_journal, _write_lines

    journal = _stopped_journal(tmp_path)
    lines = _lines(journal)
    i = next(i for i, line in enumerate(lines) if json.loads(line)["kind"] == "measured")
    record = json.loads(lines[i])
    record["samples"][0]["dataset"] = "nope"
    _write_lines(journal, lines[:i] + [json.dumps(record).encode()] + lines[i + 1:])
    one_line(cli("report", journal), f"{journal}:{i + 1}: a sample of ",
             "no dataset record of the journal names 'nope'")


def test_a_journal_sample_of_a_variant_the_run_never_planned_is_refused_by_resume_and_report(tmp_path):
    """A foreign or hand-edited line: `run --resume` and `report` both refuse the
    journal in one line naming the file, the line and the variant, and merge nothing."""
    from tests.results.test_journal import _lines, _stopped_journal, _write_lines

    journal = _stopped_journal(tmp_path)
    lines = _lines(journal)
    i = next(i for i, line in enumerate(lines) if json.loads(line)["kind"] == "measured")
    record = json.loads(lines[i])
    record["samples"][0]["knobs"] = {"threads": 64}
    _write_lines(journal, lines[:i] + [json.dumps(record).encode()] + lines[i + 1:])
    before = journal.read_bytes(), journal.with_name("r.json").read_bytes()
    strategy = record["samples"][0]["strategy"]
    for args in (("run", "--resume", journal), ("report", journal)):
        one_line(cli(*args), f"{journal}:{i + 1}: a sample of {strategy} on g, ",
                 f"{strategy} with threads=64 is no variant of the run's config")
    assert (journal.read_bytes(), journal.with_name("r.json").read_bytes()) == before


def test_results_file_unwritable_at_the_end_names_the_journal_that_keeps_it(cache, tmp_path, monkeypatch):
    from gpubfs_cli.bench import records as records_module
    from gpubfs_cli.errors import UserError

    def full(path, doc):
        raise UserError(f"{path}: cannot write (No space left on device)")

    monkeypatch.setattr(records_module, "write_results", full)
    out = tmp_path / "r.json"
    journal = tmp_path / "r.journal.jsonl"
    one_line(cli("--quiet", "run", "-d", "mine", "-s", "cpu.sequential", "--source", "0", "--dir", cache, "--out",
                 out), f"{out}: cannot write (No space left on device); the journal keeps every sample measured: "
             f"once the file can be written, gpubfs run --resume {journal}")
    assert journal.exists() and not out.exists()


def test_plots_never_replace_a_file_without_force(results, tmp_path):
    folder = tmp_path / "plots"
    folder.mkdir()
    mine = folder / "throughput.png"
    mine.write_text("mine")
    one_line(cli("report", results, "--plot", folder),
             f"{mine}: already exists; give --force to replace it, or another --plot folder")
    assert mine.read_text() == "mine" and sorted(p.name for p in folder.iterdir()) == ["throughput.png"]
    r = cli("report", results, "--plot", folder, "--force")
    assert r.exit_code == 0, r.output
    assert mine.read_bytes().startswith(b"\x89PNG")


def test_a_plot_that_cannot_be_written_is_one_line(results, tmp_path, monkeypatch):
    from gpubfs_cli.report import plots

    def full(fig, target, fmt):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(plots, "_savefig", full)
    one_line(cli("report", results, "--plot", tmp_path / "plots"),
             f"{tmp_path / 'plots'}/", ": cannot write the figure (No space left on device)")
    assert list((tmp_path / "plots").iterdir()) == []


@pytest.mark.parametrize("args", [
    ("fetch-dataset", "mine"), ("export", "mine", "g.mtx"), ("list", "datasets"), ("info",),
])
def test_an_empty_dir_is_refused_by_every_command(args, cache, tmp_path, monkeypatch):
    """fetch-dataset --dir '' cached the graph in the current folder."""
    monkeypatch.chdir(tmp_path)
    one_line(cli(*args, "--dir", ""), "error: --dir: an empty value; expected a path")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache"]


def test_file_with_a_generated_catalogue_name_says_it_is_generated(tmp_path):
    """It said: dataset 'smoke-grid' is None in the catalogue: --format snap contradicts it."""
    edges = tmp_path / "g.txt"
    edges.write_text("0 1\n")
    one_line(cli("fetch-dataset", "smoke-grid", "--file", edges, "--format", "snap", "--dir", tmp_path / "cache"),
             "dataset 'smoke-grid' is generated: it is built from no catalogue archive, so --file does not apply")
    assert not (tmp_path / "cache").exists()


def test_file_that_is_a_folder_or_a_fifo_is_said_as_such_not_missing(tmp_path):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    for path, says in ((tmp_path, "is a folder, expected a file"),
                       (fifo, "is a FIFO (named pipe), expected a file (a regular file)")):
        one_line(cli("fetch-dataset", "x", "--file", path, "--format", "snap", "--dir", tmp_path / "cache"),
                 f"error: {path}: {says}")
    assert not (tmp_path / "cache").exists()


def test_seed_with_a_file_is_refused_not_ignored(tmp_path):
    edges = tmp_path / "g.txt"
    edges.write_text("0 1\n")
    one_line(cli("fetch-dataset", "x", "--file", edges, "--format", "snap", "--seed", "3", "--dir", tmp_path / "c"),
             "--seed applies to generated catalogue graphs; a graph from --url/--file has no seed")
    assert not (tmp_path / "c").exists()


def test_numba_num_threads_far_over_the_cores_is_one_line():
    """Ten billion threads ended in the kernel's OOM killer at the first parallel call."""
    done = gpubfs("list", "papers", env={"NUMBA_NUM_THREADS": "10000000000"})
    proc_line(done, "NUMBA_NUM_THREADS='10000000000': more than 64 threads per core")


def test_export_wel_gives_a_graph_without_weights_those_of_its_rule(tmp_path):
    """As a SSSP run does; the export said 'the graph has none'."""
    edges = tmp_path / "g.txt"
    edges.write_text("0 1\n1 2\n")
    cache = tmp_path / "cache"
    assert cli("fetch-dataset", "plain", "--file", edges, "--format", "snap", "--dir", cache).exit_code == 0
    out = tmp_path / "g.wel"
    r = cli("export", "plain", out, "--format", "wel", "--dir", cache)
    assert r.exit_code == 0, r.output
    from gpubfs_cli.datasets.store import load_graph
    from gpubfs_cli.datasets.weights import ensure_weights

    w = ensure_weights(load_graph("plain", cache), cache).weights
    assert out.read_text() == f"0 1 {w[0]}\n1 2 {w[1]}\n"


def test_a_results_number_too_long_to_convert_is_one_line(tmp_path):
    bad = tmp_path / "h.json"
    bad.write_text('{"schema_version": ' + "9" * 5000 + "}")
    one_line(cli("report", bad), "h.json", "not valid JSON")


@pytest.mark.parametrize("key,value,says", [
    ("time_ms", -3.0, "a time >= 0"), ("time_ms", float("nan"), "a time >= 0"),
    ("reached", -1, "a count >= 0"), ("edges", float("inf"), "a count >= 0"),
    ("dataset", "nope", "'nope' is not among the file's datasets"),
])
def test_a_sample_value_the_journal_would_refuse_is_refused_by_report_and_check(key, value, says, tmp_path):
    doc = main_doc()
    doc["samples"][0][key] = value
    path = write(tmp_path, "bad.json", doc)  # json writes nan and inf as NaN and Infinity
    one_line(cli("report", path), "bad.json", f"samples[0].{key}", says)
    assert cli("report", "--check", path).exit_code != 0


def test_a_counter_no_sample_carries_is_one_line_naming_those_there(results):
    one_line(cli("report", results, "--metric", "counter.nope"), "counter.nope", "they carry:")


# ---- usage errors ---------------------------------------------------------------------

USAGE_ERRORS = [
    (("run", "--no-such-option"), "gpubfs run: no such option: --no-such-option (gpubfs run --help)"),
    (("run", "--strat", "x"), "gpubfs run: no such option: --strat (Possible options: --strategy) (gpubfs run --help)"),
    (("run", "--sources", "many"), "gpubfs run: invalid value for '--sources': "),
    (("export",), "gpubfs export: missing argument 'name' (gpubfs export --help)"),
    (("report", "--compare", "a.json"), "gpubfs report: option '--compare' requires 2 arguments (gpubfs report --help)"),
    (("nosuch-command",), "gpubfs: no such command 'nosuch-command' (gpubfs --help)"),
    (("list", "strategies", "--jsn"), "gpubfs list strategies: no such option: --jsn (Possible options: --json) "
                                      "(gpubfs list strategies --help)"),
    (("list", "papers", "extra"), "gpubfs list papers: got unexpected extra argument"),
]


@pytest.mark.parametrize("args, said", USAGE_ERRORS)
def test_a_usage_error_is_one_line_with_exit_2(args, said):
    r = cli(*args)
    assert r.stdout == ""
    assert one_line(r, said).startswith(f"error: {said}")


@pytest.mark.parametrize("args, said", [USAGE_ERRORS[0], USAGE_ERRORS[3], USAGE_ERRORS[4], USAGE_ERRORS[6]])
def test_a_usage_error_in_a_terminal_is_one_line_too(args, said):
    """A real process, where click names the program as it was started and Rich could
    draw its box: still one line, the same information."""
    done = gpubfs(*args, env={"COLUMNS": "60", "FORCE_COLOR": "1", "TERM": "xterm"})
    assert done.stdout == ""
    assert proc_line(done).startswith("error: " + said.replace("gpubfs", "python -m gpubfs_cli"))


def test_no_command_still_shows_the_help():
    r = cli()
    assert "Usage: gpubfs" in r.output and "error:" not in r.output
