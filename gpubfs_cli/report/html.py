"""The HTML report: one self-contained page (no network needed to view it).

The tables come from the Document like every other format; the rest of the page
(figures as inline PNG, the machines the results files were measured on, each once with
the files it covers, the report's command line, each strategy's adaptations and caveats)
is gathered by `attach_page` into doc.data["page"] when the format is html, and drawn by
`html_text`. No external CSS, JavaScript or fonts.
"""

from __future__ import annotations

import base64
import html
import json
import os
import shlex
import sys
from typing import Any

from gpubfs_cli.report.load import Results, code_text, describe_environment, shown_path
from gpubfs_cli.report.table import Document, Table

PAGE_KEY = "page"
_STYLE = (
    "body{font-family:sans-serif;max-width:1400px;margin:0 1em}"
    "table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
    "table.env td,table.env th{text-align:left}"
    "caption{font-weight:bold;text-align:left}.pub{color:#06c}.missing,.unavailable{color:#888}"
    ".wrong-answer,.error{color:#c00}.out-of-time,.out-of-memory{color:#b60}"
    "figure{margin:1em 0}figure img{max-width:100%;border:1px solid #eee}"
    "pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap}"
    "nav a{margin-right:1em}"
)


# ---------------------------------------------------------------------- tables
def _html_table(t: Table) -> str:
    e = html.escape
    parts = [f'<table id="{e(t.id)}">', f"<caption>{e(t.title)}</caption>", "<thead><tr>"]
    parts += [f"<th>{e(c)}</th>" for c in t.columns]
    parts.append("</tr></thead><tbody>")
    for row in t.rows:
        parts.append(f"<tr><th>{e(row[0].text)}</th>")
        for c in row[1:]:
            pub = ""
            if t.side_by_side:
                pub = f'<span class="pub">{e(c.published if c.published is not None else "-")}</span> | '
            parts.append(f'<td class="{e(c.status)}">{pub}{e(c.text)}</td>')
        parts.append("</tr>")
    parts.append("</tbody></table>")
    notes = (["each cell: published | measured here"] if t.side_by_side else []) + t.footnotes
    if notes:
        parts.append("<ul>" + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul>")
    return "\n".join(parts)


# ---------------------------------------------------------------------- page data
def command_line(argv: list[str] | None = None) -> str:
    """The report's own command, its absolute paths shown as the header shows files
    (load.shown_path): the page may be shared."""
    argv = list(sys.argv if argv is None else argv)
    return shlex.join(["gpubfs", *(_shown_arg(a) for a in argv[1:])])


def _shown_arg(arg: str) -> str:
    """An absolute path (alone or as `--out=PATH`) through shown_path; any other as it is."""
    option, eq, value = arg.partition("=") if arg.startswith("--") else ("", "", arg)
    if option and not eq:
        return arg
    return option + eq + shown_path(value) if os.path.isabs(value) else arg


def _cuda_version(v: Any) -> str:
    """CUDA's integer versions: 13020 -> 13.2."""
    if isinstance(v, int) and not isinstance(v, bool) and v > 0:
        return f"{v // 1000}.{(v % 1000) // 10}"
    return str(v)


def _compact(v: Any) -> str:
    text = v if isinstance(v, str) else json.dumps(v, default=str, sort_keys=True)
    return text if len(text) <= 300 else text[:297] + "..."


_GPU_SHOWN = {"available", "name", "reason", "memory_bytes", "sm_count", "compute_capability",
              "driver_version", "runtime_version"}
_ENV_SHOWN = {"gpu", "gpus", "cpu", "memory_bytes", "os", "python", "versions", "git_commit",
              "command_line", "tool_version"}
# What differs from run to run on one machine: the code and the command, not the machine.
RUN_KEYS = ("tool_version", "git_commit", "source_tree", "code", "command_line")


def run_text(env: Any) -> str:
    """One run's code and command: `gpubfs 0.1.0, commit abc123; gpubfs run x.yaml`."""
    if not isinstance(env, dict):
        return "not recorded"
    text = f"gpubfs {env.get('tool_version') or '?'}, commit {env.get('git_commit') or 'not recorded'}"
    if env.get("source_tree"):
        text += f", tree {str(env['source_tree'])[:12]}"
    if isinstance(env.get("code"), dict):
        text += f", {code_text(env['code'])}"
    if env.get("command_line"):
        text += f"; {_compact(env['command_line'])}"
    return text


def machines(results: Results) -> list[dict[str, Any]]:
    """The distinct machines of the pool, in the order their first file comes: each one's
    caption, environment rows (RUN_KEYS left out) and its files with their run_text.
    Files whose environments agree but for RUN_KEYS share one machine."""
    found: dict[str, dict[str, Any]] = {}
    for path, env in zip(results.files, results.environments, strict=True):
        machine = {k: v for k, v in env.items() if k not in RUN_KEYS} if isinstance(env, dict) else env
        key = json.dumps(machine, sort_keys=True, default=str)
        if key not in found:
            found[key] = {"caption": describe_environment(machine) if machine else "environment not recorded",
                          "rows": environment_rows(machine, run=False), "files": []}
        found[key]["files"].append((path, run_text(env)))
    return list(found.values())


def environment_rows(env: Any, run: bool = True) -> list[tuple[str, str]]:
    """(label, text) rows of one results file's environment (`run`: with its code and
    command too). Keys this version does not know (clocks, L2 mode, ... added by later
    runners) are shown as recorded."""
    if not isinstance(env, dict) or not env:
        return [("environment", "not recorded")]
    rows: list[tuple[str, str]] = []
    gpu = env.get("gpu")
    if isinstance(gpu, dict):
        if gpu.get("name"):
            facts = [f"{gpu['sm_count']} SMs" if gpu.get("sm_count") else None,
                     f"sm_{str(gpu['compute_capability']).replace('.', '')}" if gpu.get("compute_capability") else None,
                     f"{gpu['memory_bytes'] / 2**30:.0f} GiB" if isinstance(gpu.get("memory_bytes"), (int, float)) else None]
            shown = ", ".join(f for f in facts if f)
            rows.append(("GPU", f"{gpu['name']}" + (f" ({shown})" if shown else "")))
        else:
            rows.append(("GPU", f"none ({gpu.get('reason') or 'not recorded'})"))
        if "driver_version" in gpu:
            rows.append(("CUDA driver", _cuda_version(gpu["driver_version"])))
        if "runtime_version" in gpu:
            rows.append(("CUDA runtime", _cuda_version(gpu["runtime_version"])))
        rows += [(f"GPU {k}", _compact(v)) for k, v in gpu.items() if k not in _GPU_SHOWN]
    elif gpu:
        rows.append(("GPU", _compact(gpu)))
    gpus = env.get("gpus")
    if isinstance(gpus, list) and len(gpus) > 1:
        rows.append(("GPUs", str(len(gpus))))
    cpu = env.get("cpu")
    if isinstance(cpu, dict):
        model = cpu.get("model") or cpu.get("name") or "unknown"
        rows.append(("CPU", f"{model}" + (f" ({cpu['cores']} cores)" if cpu.get("cores") else "")))
    elif cpu:
        rows.append(("CPU", _compact(cpu)))
    if isinstance(env.get("memory_bytes"), (int, float)):
        rows.append(("memory", f"{env['memory_bytes'] / 2**30:.0f} GiB"))
    for key, name in (("os", "OS"), ("python", "Python")):
        if env.get(key):
            rows.append((name, _compact(env[key])))
    versions = env.get("versions")
    if isinstance(versions, dict):
        rows.append(("packages", ", ".join(f"{k} {v}" for k, v in versions.items() if v)))
    if run:
        rows.append(("gpubfs", f"{env.get('tool_version') or '?'}, commit {env.get('git_commit') or 'not recorded'}"))
        if env.get("command_line"):
            rows.append(("run command", _compact(env["command_line"])))
    rows += [(k, _compact(v)) for k, v in env.items() if k not in _ENV_SHOWN and (run or k not in RUN_KEYS)]
    return rows


_PER_GROUP_WORDS = ("clock", "temperature", "l2")


def per_group_records(results: Results) -> list[tuple[str, str, str]]:
    """(dataset, strategy, what) for what a runner recorded per strategy about the
    machine (clocks, temperature, L2 mode) in the prepares section, when it did."""
    out = []
    for p in results.prepares:
        found = {k: v for k, v in p.items() if any(w in k.lower() for w in _PER_GROUP_WORDS)}
        if found:
            what = "; ".join(f"{k}: {_compact(v)}" for k, v in sorted(found.items()))
            out.append((str(p.get("dataset", "?")), str(p.get("strategy", "?")), what))
    return out


def strategy_notes(results: Results) -> list[dict[str, Any]]:
    """What each strategy of the pool declares: paper section, summary, adaptations and
    caveats (from this version's registry: a results file does not carry them)."""
    from gpubfs_cli.core.strategy import canonical_name, registry

    try:
        reg = registry()
        why = None
    except Exception as exc:  # noqa: BLE001 - a broken module must not cost the whole page
        reg, why = {}, f"strategy discovery failed ({exc})"
    seen = dict.fromkeys((s.problem, canonical_name(s.strategy)) for s in results.samples)
    notes = []
    for problem, name in sorted(seen, key=lambda k: (k[0] != "bfs", k)):
        cls = reg.get(problem, {}).get(name)
        if cls is None:
            notes.append({"name": name, "problem": problem, "section": "", "summary": "",
                          "caveats": [why or "not registered in this version of gpubfs: nothing declared"]})
            continue
        notes.append({"name": name, "problem": problem, "section": cls.section, "summary": cls.summary,
                      "caveats": list(cls.caveats)})
    return notes


def attach_page(doc: Document, results: Results, paper=None, argv: list[str] | None = None) -> None:
    """Gather the page-only sections into doc.data[PAGE_KEY]; `paper` (a Paper) adds the
    figures of its tables, drawn from doc.tables."""
    from gpubfs_cli.report.plots import Palette, paper_plots, png_bytes, result_plots

    palette = Palette.of(results)  # one colour per strategy on every figure of the page
    plots, skipped = result_plots(results, palette)
    if paper is not None:
        more, more_skipped = paper_plots(paper, doc.tables, palette)
        plots, skipped = plots + more, skipped + more_skipped
    doc.data[PAGE_KEY] = {
        "figures": [{"id": p.stem, "title": p.title,
                     "png": base64.b64encode(png_bytes(p)).decode("ascii")} for p in plots],
        "skipped": skipped,
        "machines": machines(results),
        "per_group": per_group_records(results),
        "command": command_line(argv),
        "strategies": strategy_notes(results),
    }


# ---------------------------------------------------------------------- page
def _figures(page: dict) -> list[str]:
    e = html.escape
    out = ['<section id="figures"><h2>Figures</h2>']
    for f in page["figures"]:
        out.append(f'<figure id="fig-{e(f["id"])}"><img alt="{e(f["title"])}" '
                   f'src="data:image/png;base64,{f["png"]}"><figcaption>{e(f["title"])}</figcaption></figure>')
    if page["skipped"]:
        out.append("<ul>" + "".join(f"<li>{e(n)}</li>" for n in page["skipped"]) + "</ul>")
    out.append("</section>")
    return out


def _environment(page: dict) -> list[str]:
    e = html.escape
    out = ['<section id="environment"><h2>Environment</h2>']
    for m in page["machines"]:  # each machine once, then the files measured on it
        n = len(m["files"])
        out.append(f'<table class="env machine"><caption>{e(m["caption"])} ({n} file{"" if n == 1 else "s"})'
                   "</caption><tbody>")
        out += [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in m["rows"]]
        out += [f'<tr class="file"><th>{e(f)}</th><td>{e(run)}</td></tr>' for f, run in m["files"]]
        out.append("</tbody></table>")
    if page["per_group"]:
        out.append('<table class="env"><caption>recorded per strategy</caption><thead><tr>'
                   "<th>dataset</th><th>strategy</th><th>record</th></tr></thead><tbody>")
        out += [f"<tr><td>{e(d)}</td><td>{e(s)}</td><td>{e(w)}</td></tr>" for d, s, w in page["per_group"]]
        out.append("</tbody></table>")
    out.append(f'<h3>Command</h3><pre id="command">{e(page["command"])}</pre></section>')
    return out


def _strategies(page: dict) -> list[str]:
    e = html.escape
    out = ['<section id="strategies"><h2>Strategies: adaptations and caveats</h2>']
    for s in page["strategies"]:
        head = s["name"] + ("" if s["problem"] == "bfs" else f" ({s['problem'].upper()})")
        out.append(f'<div class="strategy"><h3>{e(head)}</h3>')
        if s["section"] or s["summary"]:
            out.append(f"<p>{e(' - '.join(x for x in (s['section'], s['summary']) if x))}</p>")
        items = s["caveats"] or ["nothing declared: the paper's algorithm as published"]
        out.append("<ul>" + "".join(f"<li>{e(c)}</li>" for c in items) + "</ul></div>")
    out.append("</section>")
    return out


def html_text(doc: Document) -> str:
    e = html.escape
    page = doc.data.get(PAGE_KEY)
    body = [f"<h1>{e(doc.title)}</h1>"]
    if page:
        body.append('<nav><a href="#tables">tables</a><a href="#figures">figures</a>'
                    '<a href="#environment">environment</a><a href="#strategies">strategies</a></nav>')
    body += [f"<p>{e(h)}</p>" for h in doc.header]
    body.append('<section id="tables">')
    body += [_html_table(t) for t in doc.tables]
    body.append("</section>")
    if doc.notes:
        body.append("<ul>" + "".join(f"<li>{e(n)}</li>" for n in doc.notes) + "</ul>")
    if page:
        body += _figures(page) + _environment(page) + _strategies(page)
    return (
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
        f"<title>{e(doc.title)}</title><style>{_STYLE}</style></head><body>\n"
        + "\n".join(body) + "\n</body></html>\n"
    )
