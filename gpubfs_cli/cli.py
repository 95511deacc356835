"""The gpubfs command line: arguments in, calls into the layers, rendering out.

No logic lives here. Errors a user can cause (UserError) become one line on stderr
and exit code 2; see `user_errors`. So do usage errors (an unknown option or command, a
value that does not parse, a missing argument): see `OneLineUsage`.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import sys

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text
from typer.core import TyperGroup

from gpubfs_cli.errors import UserError, one_line

# click's exceptions, wherever this Typer keeps click (its own copy, or the click package)
_click_errors = sys.modules[typer.BadParameter.__module__]


class OneLineUsage(TyperGroup):
    """The command group whose usage errors (an unknown option or command, a value that
    does not parse, a missing argument) are one line on stderr, `error: gpubfs run: no
    such option: --x (gpubfs run --help)`, with click's exit status (2), instead of
    click's usage lines and Rich's box. Subcommands' errors pass through here too."""

    def make_context(self, info_name, args, parent=None, **extra):
        path = " ".join(p for p in (parent.command_path if parent else "", info_name or "") if p)
        with _one_line_usage(lambda: path):
            return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx):
        # an error without a context of its own (an option short of its values) is the
        # subcommand's being parsed
        with _one_line_usage(lambda: " ".join(p for p in (ctx.command_path, ctx.invoked_subcommand) if p)):
            return super().invoke(ctx)


@contextlib.contextmanager
def _one_line_usage(where):
    try:
        yield
    except _click_errors.ClickException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # `gpubfs` alone: the help, as asked for
            raise
        ctx = getattr(exc, "ctx", None)
        err_console.print(f"error: {usage_line(exc, ctx.command_path if ctx is not None else where())}",
                          markup=False)
        raise typer.Exit(exc.exit_code) from None


def usage_line(exc, command: str) -> str:
    """A click error as one line: the command, what was wrong, where its help is."""
    text = " ".join(exc.format_message().split()).rstrip(".")
    text = text[:1].lower() + text[1:] if text[1:2].islower() else text
    return one_line(f"{command}: {text} ({command} --help)" if command else text)


STDOUT = "-"  # --out -: standard output

# -h as well as --help, on every command (subcommands inherit the context setting).
HELP = {"help_option_names": ["-h", "--help"]}
app = typer.Typer(
    name="gpubfs",  # the program's name where none is detected (a test's CliRunner)
    help="Reproduce the tables of five GPU BFS papers on today's GPUs.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings=HELP,
    cls=OneLineUsage,
)
list_app = typer.Typer(help="What exists: strategies, datasets, papers.", no_args_is_help=True,
                       context_settings=HELP, cls=OneLineUsage)
app.add_typer(list_app, name="list")

console = Console()
err_console = Console(stderr=True, soft_wrap=True, highlight=False)
log = logging.getLogger("gpubfs")  # messages, not results (gpubfs_cli/logs.py)
for _c in (console, err_console):
    if _c.width < 1:  # COLUMNS=0, which rich takes as a width of 0 and so prints nothing at all
        _c.width = None  # rich's own choice then: the terminal's width, else 80


def _print_version(value: bool) -> None:
    if value:
        from gpubfs_cli import __version__

        console.print(f"gpubfs {__version__}", markup=False, highlight=False)
        raise typer.Exit()


@app.callback()
def _app_options(
    ctx: typer.Context,
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                 help="Print the version and exit."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Say only warnings and errors on stderr "
                               "(no progress); results and reports still go to stdout."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Say debug messages on stderr too."),
    log_file: str = typer.Option(None, "--log", metavar="FILE", help="Append every message, debug ones "
                                 "included, to FILE: one line each, with its time."),
) -> None:
    from gpubfs_cli import __version__, logs
    from gpubfs_cli.core.numba_env import check_numba_threads

    try:
        logs.setup(err_console, quiet=quiet, verbose=verbose, log_file=log_file)
        ctx.call_on_close(logs.close)
        log.debug(f"gpubfs {__version__}: {' '.join(sys.argv[1:])}")
        check_numba_threads()  # before any command imports numba, which would fail or warn in many lines
    except UserError as exc:
        _error_line(exc)
        raise typer.Exit(exc.exit_code) from None


def _error_line(exc: UserError) -> None:
    """The one line of a UserError on stderr (and in the --log file)."""
    from gpubfs_cli import logs

    err_console.print(f"error: {exc}", markup=False)
    logs.said(logging.ERROR, str(exc))


def quiet_mode() -> bool:
    """--quiet: stderr shows no progress (gpubfs_cli/logs.py)."""
    from gpubfs_cli import logs

    return not logs.shows(logging.INFO)


def user_errors(fn):
    """Turn a UserError into one line on stderr and exit code 2 (never a traceback)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except UserError as exc:
            _error_line(exc)
            raise typer.Exit(exc.exit_code) from None

    return wrapper


# ---------------------------------------------------------------- list strategies
def list_table(title: str, columns: list[str], whole: tuple[str, ...] = (), right: tuple[str, ...] = ()) -> Table:
    """A `gpubfs list` table that fits the terminal: the `whole` columns (names) are never
    wrapped or cut; the others wrap at words and fold a word too long for them."""
    table = Table(title=title)
    for col in columns:
        table.add_column(col, justify="right" if col in right else "left", no_wrap=col in whole, overflow="fold")
    return table


@list_app.command("strategies")
@user_errors
def list_strategies(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Every registered strategy: problem, paper, section, device, knobs, availability here."""
    from gpubfs_cli.core.strategy import knobs_dict, registry

    rows = []
    for problem, names in registry().items():
        for name, cls in names.items():
            rows.append({
                "name": name,
                "problem": problem,
                "paper": cls.paper,
                "section": cls.section,
                "device": cls.device_kind,
                "gpus": len(cls.devices_for(cls.Knobs())) if cls.device_kind == "gpu" else 0,
                "summary": cls.summary,
                "knobs": knobs_dict(cls.Knobs()),
                "unavailable": cls.unavailable_reason(),
            })
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
        return
    wide = console.width >= 100  # knobs in a column where it fits, else under the table
    columns = ["name", "problem", "paper", "device", "here", "knobs (defaults)"][: 6 if wide else 5]
    table = list_table("strategies", columns, whole=("name", "here"))
    reasons = list(dict.fromkeys(r["unavailable"] for r in rows if r["unavailable"] is not None))
    # one name may serve two problems with different knobs (peer.gapbs, cpu.scipy)
    knobs = {(r["name"], r["problem"]): ", ".join(f"{k}={v}" for k, v in r["knobs"].items()) or "-" for r in rows}
    for r in rows:  # why a strategy cannot run here: once under the table, numbered
        here = "yes" if r["unavailable"] is None else f"no ({reasons.index(r['unavailable']) + 1})"
        table.add_row(*[r["name"], r["problem"], r["paper"], r["device"], here,
                        knobs[r["name"], r["problem"]]][: len(columns)])
    console.print(table)
    for k, why in enumerate(reasons, start=1):
        console.print(Text(f"({k}) {why}"))
    if not wide:
        console.print(Text("knobs (defaults):"))
        for r in rows:
            console.print(Text(f"{r['name']} ({r['problem']}): {knobs[r['name'], r['problem']]}"))


# ---------------------------------------------------------------- datasets
DIR_OPTION = typer.Option(None, "--dir", help="Dataset cache folder (default: $GPUBFS_DATA_DIR, else ./datasets in a checkout, else the per-user folder: gpubfs info).")


def sweep_cache(directory) -> None:
    """Remove what interrupted writes left in the cache, and say so (one line)."""
    from gpubfs_cli.datasets.inventory import human_bytes
    from gpubfs_cli.datasets.store import data_dir, sweep_stale

    removed = sweep_stale(directory)
    if removed:
        size = sum(b for _, b in removed)
        log.info(f"note: removed {len(removed)} temporary file(s) or folder(s) ({human_bytes(size)}) that an "
                 f"interrupted write left in {data_dir(directory)}")


@app.command("fetch-dataset")
@user_errors
def fetch_dataset(
    names: list[str] = typer.Argument(None, help="Catalogue names or aliases (see gpubfs list datasets)."),
    all_: bool = typer.Option(False, "--all", help="Every dataset in the catalogue."),
    paper: str = typer.Option(None, "--paper", help="Every dataset of one paper (merrill, luo, bfs4k, raval, lbbfs)."),
    directory: str = DIR_OPTION,
    force: bool = typer.Option(False, "--force", help="Fetch and rebuild even if cached."),
    seed: int = typer.Option(None, "--seed", help="Generated graphs: this seed instead of the catalogue's (cached apart)."),
    url: str = typer.Option(None, "--url", help="Your own graph: download it from this URL (give one NAME)."),
    file: str = typer.Option(None, "--file", help="Your own graph: read this local file (give one NAME). With a catalogue NAME: its archive, already downloaded."),
    fmt: str = typer.Option(None, "--format", help="Format of --url/--file: dimacs9, metis, snap, mtx, gtgraph."),
    undirected: bool = typer.Option(False, "--undirected", help="--url/--file: treat edges as undirected (symmetrize)."),
    compact_ids: bool = typer.Option(False, "--compact-ids", help="--url/--file: renumber the vertex ids that occur to 0..k-1 (sparse ids)."),
    keep_download: bool = typer.Option(False, "--keep-download", help="Keep the downloaded file under DIR/.downloads."),
    mirror: str = typer.Option(None, "--mirror", help="A folder of archives under their upstream names, read before any URL (default: $GPUBFS_MIRROR)."),
    accept_checksum: bool = typer.Option(False, "--accept-checksum", help="Use an archive whose sha256 differs from the catalogue's (recorded in the results)."),
    download_only: bool = typer.Option(False, "--download-only", help="Only download the archives into the mirror folder (--mirror or $GPUBFS_MIRROR), for nodes without a network; convert nothing."),
) -> None:
    """Download (or generate) graphs, verify, convert to CSR and cache them."""
    from gpubfs_cli.datasets.acquire import MIRROR_ENV, fill_mirror, mirror_dir
    from gpubfs_cli.datasets.catalogue import load_catalogue
    from gpubfs_cli.datasets.prepare import add_user_dataset, ensure_dataset
    from gpubfs_cli.errors import UserError
    from gpubfs_cli.gpu.backend import cupy_if_usable

    names = list(names or [])
    shown = not quiet_mode()  # --quiet: no progress lines, no download bar
    catalogue_file = (file is not None and url is None and len(names) == 1 and not all_ and not paper
                      and load_catalogue().resolve(names[0]) is not None)
    if download_only:
        if url is not None or file is not None:
            raise UserError("--download-only fills the mirror from the catalogue's URLs: it takes no --url/--file")
        if not mirror and not os.environ.get(MIRROR_ENV):
            raise UserError(f"--download-only needs the mirror folder to fill: give --mirror DIR or set {MIRROR_ENV}")
        entries = _catalogue_names(names, all_, paper)
        folder = mirror_dir(mirror, create=True)
        jobs = {n: functools.partial(fill_mirror, n, folder, accept_checksum=accept_checksum, progress=shown)
                for n in entries}
        _run_fetch_jobs(jobs, _mirror_line, "mirrored")
        return
    if seed is not None and (url is not None or file is not None):
        raise UserError("--seed applies to generated catalogue graphs; a graph from --url/--file has no seed")
    if catalogue_file:
        entry = load_catalogue().get(names[0])
        if fmt is not None and entry.format is not None and fmt != entry.format:  # else: not downloaded (below)
            raise UserError(f"dataset '{entry.name}' is {entry.format} in the catalogue: --format {fmt} "
                            "contradicts it (leave --format out)")
        if undirected or compact_ids:
            raise UserError(f"--undirected/--compact-ids do not apply to catalogue dataset '{entry.name}': "
                            "the catalogue says how it is read")
        jobs = {entry.name: functools.partial(
            ensure_dataset, entry.name, directory, force=force, keep_download=keep_download, gpu_xp=cupy_if_usable,
            archive=file, accept_checksum=accept_checksum, progress=shown)}
    elif url is not None or file is not None:
        if len(names) != 1 or all_ or paper:
            raise UserError("--url/--file add one graph: give exactly one NAME (and no --all/--paper)")
        if fmt is None:
            raise UserError("--url/--file need --format (dimacs9, metis, snap, mtx, gtgraph)")
        jobs = {names[0]: functools.partial(
            add_user_dataset, names[0], fmt, url=url, file=file, undirected=undirected,
            compact_ids=compact_ids, data_dir=directory, force=force, keep_download=keep_download, progress=shown)}
    else:
        if fmt is not None or undirected or compact_ids:
            raise UserError("--format/--undirected/--compact-ids apply only with --url or --file")
        cat = load_catalogue()
        if all_:
            names += cat.names()
        if paper:
            names += [e.name for e in cat.for_paper(paper)]
        if not names:
            raise UserError("name a dataset (gpubfs list datasets), or give --all or --paper KEY")
        jobs = {n: functools.partial(ensure_dataset, n, directory, force=force, seed=seed, keep_download=keep_download,
                                     gpu_xp=cupy_if_usable, mirror=mirror, accept_checksum=accept_checksum,
                                     progress=shown)
                for n in dict.fromkeys(names)}
    sweep_cache(directory)
    _run_fetch_jobs(jobs, _graph_line, "fetched")


def _catalogue_names(names: list[str], all_: bool, paper: str | None) -> list[str]:
    """The catalogue entries named, of --all and of --paper, each once, by entry name."""
    from gpubfs_cli.datasets.catalogue import load_catalogue
    from gpubfs_cli.errors import UserError

    cat = load_catalogue()
    wanted = [cat.get(n).name for n in names]
    if all_:
        wanted += cat.names()
    if paper:
        wanted += [e.name for e in cat.for_paper(paper)]
    if not wanted:
        raise UserError("name a dataset (gpubfs list datasets), or give --all or --paper KEY")
    return list(dict.fromkeys(wanted))


def _graph_line(g) -> str:
    return f"{g.name}: n = {g.n:,}, m = {g.m:,} ({'directed' if g.directed else 'undirected'})"


def _mirror_line(filled) -> str:
    from gpubfs_cli.datasets.inventory import human_bytes

    a = filled.archive
    if a is None:
        return f"{filled.name}: skipped ({filled.skipped})"
    how = "downloaded" if filled.downloaded and a.download_s is not None else "already in the mirror"
    return f"{filled.name}: {a.path} ({human_bytes(a.bytes)}), sha256 {a.sha256}, {a.checksum}, {how}"


def _run_fetch_jobs(jobs: dict, line, done: str) -> None:
    """Each job in turn, its result printed by `line`; a failure is one line and the
    others go on (a single job's failure is the command's error); the failures are
    listed at the end and make the exit status non-zero."""
    from gpubfs_cli.errors import UserError

    failed = []
    for name, job in jobs.items():
        try:
            result = job()
        except UserError as exc:
            if len(jobs) == 1:
                raise
            text = str(exc)  # named once: many messages start with the dataset's name already
            err_console.print(f"error: {text if text.startswith(f'{name}: ') else f'{name}: {text}'}", markup=False)
            failed.append(name)
            continue
        except KeyboardInterrupt:
            where = ("the cache holds only complete graphs" if done == "fetched"
                     else "a partial download resumes on the next call")
            err_console.print(f"interrupted while fetching {name}: {where}", markup=False)
            raise typer.Exit(130) from None
        console.print(line(result), markup=False, soft_wrap=True)
    if failed:
        raise UserError(f"{len(failed)} of {len(jobs)} datasets not {done}: {', '.join(failed)} (why: above)")


@list_app.command("datasets")
@user_errors
def list_datasets(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
    directory: str = DIR_OPTION,
) -> None:
    """The catalogue and what is cached: papers, kind, n, m, size on disk."""
    from gpubfs_cli.datasets.inventory import dataset_rows, human_bytes, human_count

    sweep_cache(directory)
    rows = dataset_rows(directory)
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
        return
    wide = console.width >= 110  # aliases only where they fit
    columns = ["name", "papers", "kind", "n", "m", "cached", "aliases"][: 7 if wide else 6]
    table = list_table("datasets", columns, whole=("name", "n", "m", "cached"), right=("n", "m", "cached"))
    for r in rows:
        cells = [
            r["name"],
            " ".join(r["papers"]) or "-",
            r["kind"],
            human_count(r["n"]),
            human_count(r["m"]),
            "broken" if r["broken"] else human_bytes(r["size_bytes"]) if r["cached"] else "no",
            ", ".join(r["aliases"]),
        ]
        table.add_row(*cells[: len(columns)])
    console.print(table)
    for r in rows:  # an entry that cannot be read: why, and how to replace it
        if r["broken"]:
            console.print(f"broken: {r['broken']}", markup=False, soft_wrap=True, highlight=False)
    console.print("n, m: the cached graph's when cached, else what the paper lists (m = directed edges); "
                  "cached: the size on disk.")


@app.command("export")
@user_errors
def export(
    name: str = typer.Argument(..., help="A cached dataset."),
    path: str = typer.Argument(..., help="File to write (-: standard output)."),
    fmt: str = typer.Option("mtx", "--format", help="mtx (Matrix Market pattern), wmtx (Matrix Market with integer weights, Gunrock's sssp input), el (0-based edge list), wel (0-based u v w lines, gapbs's sssp input) or sg (gapbs's binary graph)."),
    directory: str = DIR_OPTION,
    force: bool = typer.Option(False, "--force", help="Replace PATH if it exists (never a file of the cached graph itself)."),
) -> None:
    """Write a cached graph as Matrix Market or an edge list (to run another BFS on it).

    mtx loads in Gunrock and scipy, wmtx (mtx with the SSSP weights) in Gunrock's sssp;
    el (bare `u v` lines, 0-based) and sg (its serialized CSR, loaded in a fraction of a
    second) in gapbs, wel in gapbs's sssp."""
    from gpubfs_cli.datasets.store import cached_files, load_graph
    from gpubfs_cli.errors import unknown_name
    from gpubfs_cli.files import check_output_path, refuse_input
    from gpubfs_cli.graph.io.export import (
        EXPORT_FORMATS,
        WEIGHT_LIMITS,
        export_graph,
        needs_tail_loop,
    )

    if fmt not in EXPORT_FORMATS:
        raise unknown_name("export format", fmt, EXPORT_FORMATS)
    to_stdout = path == "-"
    if not to_stdout:
        check_output_path(path, "export", force=force, option="PATH")
    sweep_cache(directory)
    graph = load_graph(name, directory)
    if fmt in WEIGHT_LIMITS:  # a graph without weights of its own has them by its rule, as a SSSP run does
        from gpubfs_cli.datasets.weights import ensure_weights

        graph = ensure_weights(graph, directory)
    if not to_stdout:
        refuse_input(path, cached_files(graph.name, directory), "export")
    lines = export_graph(graph, path, fmt, comment=f"gpubfs export of dataset {graph.name}: n={graph.n} m={graph.m}",
                         force=force)
    loop = f"; the last, {graph.n - 1} {graph.n - 1}, keeps n for readers that drop self-loops" if (
        fmt == "el" and needs_tail_loop(graph)) else ""
    what = "edges" if fmt == "sg" else "edge lines"
    # on stderr when the graph went to stdout
    (err_console if to_stdout else console).print(f"wrote {'standard output' if to_stdout else path}: {lines:,} "
                                                  f"{what} ({fmt}{loop})", markup=False, soft_wrap=True)


# ---------------------------------------------------------------- report
@app.command("report")
@user_errors
def report(
    ctx: typer.Context,
    results: list[str] = typer.Argument(None, help="Results files, or a stopped run's journal (*.journal.jsonl) "
                                        "(default: the newest results file in the results folder: gpubfs info); several are pooled."),
    metric: str = typer.Option("ms", "--metric", help="ms (median), gteps (harmonic mean), speedup (over the problem's baseline), us_level (per BFS level), us_iteration (per worklist round), gteps_per_watt and watts (from a run with energy_s) or counter.NAME (median of a strategy counter)."),
    fmt: str = typer.Option("table", "--format", help="table, md, csv, json or html."),
    out: str = typer.Option(None, "--out", help="Write the report to FILE instead of the terminal (-: to "
                            "stdout, as a file would get it)."),
    paper: str = typer.Option(None, "--paper", help="A paper's table layout, published | measured (gpubfs list papers)."),
    compare_files: tuple[str, str] = typer.Option(None, "--compare", help="A B: per-cell time ratio with a bootstrap interval; SAME / FASTER / SLOWER only beyond the noise."),
    plot: str = typer.Option(None, "--plot", help="Also write PNG and SVG figures to this folder."),
    rows: str = typer.Option("auto", "--rows", help="datasets, strategies, or auto (the more numerous down the page)."),
    teps: str = typer.Option("edges", "--teps", help="TEPS convention: edges (out-degrees of the reached vertices, directed) or graph500 (undirected input edges)."),
    fail_on_regression: float = typer.Option(None, "--fail-on-regression", metavar="PCT", help="With --compare: exit 1 when a cell of B is slower than A by more than PCT percent beyond the noise."),
    min_change: float = typer.Option(10.0, "--min-change", metavar="PCT", help="With --compare: the smallest change (percent) called FASTER / SLOWER; raise it on a shared, noisy machine."),
    force: bool = typer.Option(False, "--force", help="Let --out, and --plot's figures, replace existing files (never one of the report's own inputs)."),
    check: bool = typer.Option(False, "--check", help="Check each results file's internal consistency instead (schema, statuses, sources, samples against the config's plan): one line per file, OK or each problem; exit 1 if any has one."),
    graph500: bool = typer.Option(False, "--graph500", help="The Graph 500 reference's statistics per graph and variant "
                                  "(BFS: kernel 2, SSSP: kernel 3; times, edge counts, TEPS) instead of tables."),
) -> None:
    """Tables from results files: datasets x strategies, a paper's layout, or A vs B."""
    if graph500:
        from gpubfs_cli.report.graph500 import check_options

        check_options(_given(ctx, "paper", "compare_files", "plot", "metric", "check", "rows", "teps",
                             "fail_on_regression", "min_change"))
    if check:
        from gpubfs_cli.report.check import check_file, check_lines

        if not results:
            raise UserError("--check: name the results files to check")
        if paper or compare_files or out or plot:
            raise UserError("--check reads only the results files given: no --paper, --compare, --out or --plot")
        bad = 0
        for r in dict.fromkeys(results):  # each file's lines as soon as it is checked
            problems = check_file(r)
            bad += bool(problems)
            sys.stdout.write("".join(f"{line}\n" for line in check_lines(r, problems)))
            sys.stdout.flush()
        if bad:
            raise typer.Exit(1)
        return
    from pathlib import Path

    from gpubfs_cli.files import check_output_path
    from gpubfs_cli.report.command import make_report
    from gpubfs_cli.report.render import print_rich, render

    to_stdout = out == STDOUT
    if out is not None and not to_stdout:
        check_output_path(out, "report", force=force)
    if graph500:
        from gpubfs_cli.report.graph500 import graph500_report

        _emit(graph500_report([Path(r) for r in results or []], fmt, out=None if to_stdout else out), out, force)
        return
    doc = make_report(
        [Path(r) for r in results or []], metric=metric, fmt=fmt, paper=paper,
        compare_files=(Path(compare_files[0]), Path(compare_files[1])) if compare_files else None,
        plot_dir=Path(plot) if plot else None, rows=rows, teps=teps, fail_on_regression=fail_on_regression,
        min_change=min_change, out=None if to_stdout else out, force=force,
    )
    if out is None and fmt == "table":
        print_rich(doc, console)
    else:  # --out -: the text a file would get (a table: plain, unwrapped)
        _emit(render(doc, fmt), out, force)
    regressions = doc.data.get("regressions") if fail_on_regression is not None else None
    if regressions:
        from gpubfs_cli.report.build import regression_label

        err_console.print(f"error: {len(regressions)} regression(s) beyond the noise (over "
                          f"{fail_on_regression:g}% slower): " + "; ".join(map(regression_label, regressions)),
                          markup=False, soft_wrap=True)
        raise typer.Exit(1)


def _emit(text: str, out: str | None, force: bool) -> None:
    """A report's text to stdout (no --out, or --out -), else to the file --out names."""
    from gpubfs_cli.report.render import write_output

    if out is None or out == STDOUT:
        sys.stdout.write(text)
    else:
        write_output(out, text, force=force)
        log.info(f"wrote {out}")


def _given(ctx: typer.Context, *names: str) -> list[str]:
    """The options among `names` (parameter names) given on the command line, as flags."""
    return [p.opts[0] for p in ctx.command.params
            if p.name in names and getattr(ctx.get_parameter_source(p.name), "name", "DEFAULT") != "DEFAULT"]


@list_app.command("papers")
@user_errors
def list_papers(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """The five papers: venue, hardware, tables reproduced, strategies implemented here."""
    from gpubfs_cli.report.command import papers_listing

    rows = papers_listing()
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
        return
    table = list_table("papers", ["key", "title / venue", "hardware", "tables", "strategies here"],
                       whole=("key", "strategies here"))
    for r in rows:  # one strategy name a line: names stay whole
        done = "unknown (strategy\ndiscovery failed)" if r["registry_error"] else "\n".join(r["implemented"]) or "-"
        if r["not_implemented"]:
            done += "\nnot yet:\n" + "\n".join(r["not_implemented"])
        hw = f"GPU {r['hardware']['gpu']}\nCPU {r['hardware']['cpu']}"
        table.add_row(r["key"], f"{r['title']}\n{r['venue']}", hw, ", ".join(r["tables"]), done)
    console.print(table)


@list_app.command("configs")
@user_errors
def list_configs(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """The shipped run configs (`gpubfs run NAME`): purpose, and what each runs."""
    from gpubfs_cli.bench.config import load_config
    from gpubfs_cli.configs import STUDIES_NOTE, run_config_listing

    rows = run_config_listing(load_config)
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
        return
    table = list_table("run configs", ["name", "purpose", "datasets x variants"], whole=("name",))
    for r in rows:
        table.add_row(r["name"], r["purpose"], f"{r['datasets']} x {r['variants']}")
    console.print(table)
    console.print(Text(STUDIES_NOTE))


# ---------------------------------------------------------------- run
@app.command("run")
@user_errors
def run(
    config: str = typer.Argument(None, help="Run config: a shipped one by name (default, smoke, luo, ...) or a YAML file; flags override its keys."),
    datasets: list[str] = typer.Option(None, "--dataset", "-d", help="Dataset name (repeatable, or comma-separated)."),
    strategies: list[str] = typer.Option(None, "--strategy", "-s", help="Strategy name or pattern (merrill.*), or all; "
                                         "NAME[KNOB=VALUE,...] sets knobs, as runs and reports name a variant "
                                         "(repeatable, or comma-separated)."),
    sources: int = typer.Option(None, "--sources", help="Random sources per graph (default 100)."),
    seed: int = typer.Option(None, "--seed", help="Seed of the source generator (default 0)."),
    fixed: list[int] = typer.Option(None, "--source", help="Run from this vertex instead of random ones (repeatable)."),
    out: str = typer.Option(None, "--out", help="Results file (default NAME-<UTC time>.json in the results folder: "
                            "gpubfs info); not - (stdout): the file is rewritten after each graph."),
    directory: str = DIR_OPTION,
    warmup: int = typer.Option(None, "--warmup", help="Untimed runs per strategy and graph (default 1)."),
    warmup_ms: float = typer.Option(None, "--warmup-ms", help="Untimed runs (if --warmup is not 0) go on until this many ms have passed (default 50)."),
    rounds: int = typer.Option(None, "--rounds", help="Variants take turns over this many rounds of the sources, "
                               "round r starting from the r-th variant (default 1: one variant after another)."),
    time_limit: float = typer.Option(None, "--time-limit", help="Seconds per traversal before out-of-time (default 60)."),
    predecessors: str = typer.Option(None, "--predecessors", help="false, true or both: also compute (and check) BFS parents."),
    validate: str = typer.Option(None, "--validate", help="all (check every answer against the problem's baseline), certificate (an answer by its parent tree's certificate, or by its distances alone where every weight is positive: no baseline) or none."),
    require_gpu: bool = typer.Option(
        None, "--require-gpu/--no-require-gpu",
        help="Fail unless a GPU is usable (for GPU CI); --no-require-gpu runs a config that sets "
             "require_gpu: true anyway (its CPU rows run, GPU rows are unavailable)."),
    problem: str = typer.Option(None, "--problem", help="bfs or sssp (default: what the strategy names imply, else bfs)."),
    l2: str = typer.Option(None, "--l2", help="warm (default) or cold: evict the GPU's L2 before each timed sample, untimed."),
    prime: bool = typer.Option(None, "--prime/--no-prime", help="Before each timed call of a GPU strategy, one "
                               "untimed call, waited for, so it starts as in a loop of traversals rather than "
                               "after the CPU's check of the last answer (default off)."),
    gpus: int = typer.Option(None, "--gpus", help="GPUs a multi-GPU strategy (merrill.multi_gpu*) spans (default 1)."),
    reorder: list[str] = typer.Option(None, "--reorder", help="none (default), degree, rcm or hub: relabel each graph's "
                                      "vertices in that order first, its cost recorded as prepare time; several "
                                      "(repeatable, or comma-separated): each order its own variant (docs/reordering.md)."),
    resume: str = typer.Option(None, "--resume", metavar="JOURNAL", help="Go on with a stopped run from its "
                               "journal (results/NAME-TIME.journal.jsonl), skipping what it holds; its config "
                               "is the journal's unless given (then it must be the same)."),
    force: bool = typer.Option(False, "--force", help="Let --out (or the config's out) replace an existing "
                               "results file, and a stopped run's journal beside it."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Say what would be fetched and run, and how long it "
                                 "should take here (as gpubfs reproduce --dry-run); run and write nothing."),
) -> None:
    """Run strategies x datasets x sources; write the results file; print the summary.

    Every turn's samples go to a journal beside the results file as they are measured
    (flushed to disk), so a killed run keeps them: `gpubfs run --resume JOURNAL` goes on.

    Exit status: 0, or 1 when any answer was wrong, a strategy raised an error, a
    dataset could not be loaded or nothing was measured (no strategy could run here:
    then no results file is written), 2 for a bad config, 128 + the signal when Ctrl-C
    (130), SIGTERM (143) or SIGHUP (129) stopped it (the results file keeps what was
    measured, partial cells marked).
    """
    from gpubfs_cli.bench.config_cli import config_from_cli
    from gpubfs_cli.bench.progress import for_console
    from gpubfs_cli.bench.resume import journal_config
    from gpubfs_cli.bench.runner import Runner
    from gpubfs_cli.bench.stop import run_exit
    from gpubfs_cli.folders import results_dir
    from gpubfs_cli.report.build import run_summary
    from gpubfs_cli.report.load import results_from_doc
    from gpubfs_cli.report.render import print_rich

    if resume is not None and out is not None:
        raise UserError("--resume writes the results file beside its journal; give no --out")
    if resume is not None and dry_run:
        raise UserError("--dry-run plans a new run; what a stopped run holds: gpubfs report JOURNAL")
    cfg = config_from_cli(
        config, datasets=datasets, strategies=strategies, sources=sources, seed=seed,
        fixed_sources=fixed, out=out, data_dir=directory, warmup=warmup, warmup_ms=warmup_ms, rounds=rounds, time_limit_s=time_limit,
        predecessors=predecessors, validate=validate, require_gpu=require_gpu, problem=problem, l2=l2,
        prime=prime, gpus=gpus, reorder=reorder, base=journal_config(resume) if resume is not None else None, base_where=str(resume),
    )
    log.debug(f"run {cfg.name}: {len(cfg.datasets)} dataset(s) x {len(cfg.variants)} variant(s), "
              f"{len(cfg.fixed_sources) or cfg.sources} sources, results {cfg.out or 'in the results folder'}")
    if dry_run:
        from gpubfs_cli.folders import results_folder
        from gpubfs_cli.workflows.reproduce import dry_run_lines

        where = cfg.out or str(results_folder().path / f"{cfg.name}-<UTC time>.json")
        for line in dry_run_lines(cfg, where):
            console.print(line, markup=False, soft_wrap=True, highlight=False)
        return
    progress = for_console(err_console, quiet_mode())
    if resume is None and cfg.out is None:  # the results folder (gpubfs_cli/folders.py): one line when unusable
        results_dir()
    runner = Runner(cfg, progress=progress, resume=resume, replace=force)
    sweep_cache(cfg.data_dir)
    outcome = runner.run()
    if outcome.nothing is not None:  # nothing ran: no table, no results file, one line
        err_console.print(f"error: nothing was measured: {outcome.nothing}; no results file written",
                          markup=False, soft_wrap=True)
        raise typer.Exit(run_exit(outcome, 0, 0))
    doc = outcome.doc
    stopped = (f"interrupted by {outcome.stopped_by}"
               + (f" during {doc['interrupted_during']}" if doc.get("interrupted_during") else ""))
    not_run = {n: i for n, i in doc["datasets"].items() if i.get("status") not in ("ok", "skipped")}
    bad = []
    if not outcome.written:
        for name, info in not_run.items():
            err_console.print(f"{name}: not run: {info.get('reason')}", markup=False, soft_wrap=True)
        err_console.print(f"{stopped}: nothing was measured, so no results file" if outcome.interrupted
                          else "nothing ran: no results file written", markup=False, soft_wrap=True)
    else:
        summary = run_summary(results_from_doc(doc, str(outcome.path)), cfg.name)
        print_rich(summary, console)
        bad = summary.data["failed"]
    if outcome.written:
        for name, info in not_run.items():
            console.print(f"{name}: not run: {info.get('reason')}", markup=False, soft_wrap=True)
        console.print(f"results: {outcome.path}", markup=False, soft_wrap=True)
        log.debug(f"results: {outcome.path}")
        if outcome.interrupted:
            err_console.print(f"{stopped}: the results file keeps every sample measured, cells marked "
                              f"(measured/planned) are partial; go on with: gpubfs run --resume {outcome.journal}",
                              markup=False, soft_wrap=True)
        elif bad or not_run:
            err_console.print(f"{len(bad)} cells failed (wrong-answer or error), {len(not_run)} datasets not run: "
                              "see above", markup=False)
    code = run_exit(outcome, len(bad), len(not_run))
    if code:
        raise typer.Exit(code)


# ---------------------------------------------------------------- reproduce
@app.command("reproduce")
@user_errors
def reproduce(
    paper: str = typer.Argument(..., help="merrill, luo, bfs4k, raval, lbbfs, or all."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Say what would be fetched and run, and how long it should take here; run nothing."),
    directory: str = DIR_OPTION,
    results_dir: str = typer.Option(None, "--results", help="Folder of the per-paper results (default reproduce/ of the results folder, with --quick reproduce-quick/: gpubfs info); KEY/ inside it."),
    quick: bool = typer.Option(False, "--quick", help="Fewer sources a graph (--quick-sources), and the parallel CPU BFS where a paper's CPU column is gpubfs's own (docs/reproduce.md); every answer still checked."),
    quick_sources: int = typer.Option(None, "--quick-sources", help="Sources a graph in quick mode (default 5; a config with fewer keeps its own); implies --quick."),
    graphs: list[str] = typer.Option(None, "--graph", "-g", help="Run only this graph of the paper's tables (repeatable; a catalogue name or alias)."),
    mirror: str = typer.Option(None, "--mirror", help="Read the graphs' archives from this folder first, under their upstream file names (default: $GPUBFS_MIRROR)."),
    accept_checksum: bool = typer.Option(False, "--accept-checksum", help="Use an archive whose sha256 differs from the catalogue's pin (recorded in the cache and the results)."),
) -> None:
    """Fetch what a paper's tables need, run every unfinished cell, then print its report
    and write it as HTML (results/reproduce/KEY/report.html; --quick:
    results/reproduce-quick/KEY/report-quick.html).

    Each graph is listed first: where it comes from, its download, its converted size, the
    memory it needs and whether it fits here. A graph that cannot be had here leaves its
    cells missing, with the command that fills them; the rest goes on.

    An interrupted reproduction resumes: finished cells are not run again (quick and full
    cells apart). Without a GPU the CPU rows run and the GPU rows are skipped (each said once)."""
    from gpubfs_cli.bench.progress import for_console
    from gpubfs_cli.gpu.backend import unavailable_reason
    from gpubfs_cli.report.command import make_report
    from gpubfs_cli.report.render import print_rich, render, write_output
    from gpubfs_cli.workflows import history
    from gpubfs_cli.workflows import reproduce as rp
    from gpubfs_cli.workflows.graphs import this_host

    def say(line: str) -> None:
        console.print(line, markup=False, soft_wrap=True, highlight=False)

    mode = rp.quick_mode(quick, quick_sources)
    keys = rp.paper_keys_for(paper)
    for key in keys:  # a bad layout or config list fails before anything is said
        rp.paper_config_paths(key)
    root = mode.root(results_dir)
    rp.check_results_folder(root, keys)  # before any graph is fetched or built
    gpu, cpu = history.device_label()
    if gpu is None:
        say(f"no usable GPU here ({unavailable_reason()}): only the CPU rows run; GPU rows are skipped")
    machine = history.this_machine(gpu, cpu, rp.history_folders(keys, root))
    say(machine.describe())
    sweep_cache(directory)
    only = rp.only_graphs(keys, list(graphs or []), directory)
    here = this_host(directory, mirror)
    if here.mirror is not None:
        say(f"mirror: {here.mirror} (archives read from it first, under their upstream file names)")
    outcomes = rp.plan_papers(keys, root, machine, directory, mode, here, only)
    for outcome in outcomes:
        for line in rp.plan_lines(outcome):
            say(line)
    if len(outcomes) > 1:
        say(rp.total_line(outcomes))
    if dry_run:
        return
    progress = functools.partial(for_console, err_console, quiet_mode())
    failed = 0
    clock = rp.Clock.of(outcomes, say)
    for outcome in outcomes:
        rp.run_paper(outcome, machine, clock, progress, rp.Fetch(mirror, accept_checksum))
        if outcome.interrupted:
            err_console.print(f"interrupted: {outcome.folder} keeps what finished; run again to resume",
                              markup=False)
            raise typer.Exit(130)
        files, left_out = rp.report_files(outcome)
        if left_out:
            say(left_out)
        if not files:
            say(f"{outcome.key}: no results here yet, so no report")
            continue
        print_rich(make_report(files, paper=outcome.key), console)
        html = outcome.report_html
        write_output(html, render(make_report(files, paper=outcome.key, fmt="html"), "html"))
        say(f"{outcome.key}: report written to {html}")
        for line in outcome.missing():
            say(f"{outcome.key}: {line}")
        failed += rp.failed_cells(files)
    if failed:  # as `gpubfs run`: a wrong answer or an error is a failed reproduction
        err_console.print(f"{failed} cells failed (wrong-answer or error): see the reports above", markup=False)
        raise typer.Exit(1)


# ---------------------------------------------------------------- info
@app.command("info")
@user_errors
def info(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
    directory: str = DIR_OPTION,
) -> None:
    """The environment: GPU, driver, CUDA, CuPy, CPU, memory, versions; says why no GPU is
    usable; where the dataset cache and the results files are, and why there."""
    from gpubfs_cli import folders
    from gpubfs_cli.bench.environment import collect_environment, describe_lines

    env = collect_environment()
    data, results = folders.data_folder(directory), folders.results_folder()
    places = {"data_dir": str(data.path.resolve()), "data_dir_from": data.origin,
              "results_dir": str(results.path.resolve()), "results_dir_from": results.origin}
    if as_json:
        sys.stdout.write(json.dumps({**env, "paths": places}, indent=1) + "\n")
    else:
        for line in describe_lines(env):
            console.print(line, markup=False, soft_wrap=True, highlight=False)
        for line in (
            f"datasets: {places['data_dir']} ({data.why()}; --dir DIR on a command or ${folders.DATA_ENV} "
            "sets it)",
            f"results: {places['results_dir']} ({results.why()}; ${folders.RESULTS_ENV} sets it; gpubfs run "
            "writes NAME-TIME.json there, --out FILE elsewhere; gpubfs reproduce writes reproduce/PAPER/ there, "
            "with --quick reproduce-quick/PAPER/, --results DIR elsewhere)",
        ):
            console.print(line, markup=False, soft_wrap=True, highlight=False)
    data.checked()  # a folder that cannot be used: one error line after the rest, exit 2
    results.checked()


def main() -> None:
    from gpubfs_cli.streams import run_guarded

    run_guarded(app, err_console)


if __name__ == "__main__":
    main()
