"""`gpubfs run --resume JOURNAL`: the same run, continued where its journal ends.

A run resumes only as the run it was: the config must be the journal's (the keys that
change what is measured), the machine the one it began on (CPU, GPUs, gpubfs
version) and the code the same (the package's source tree: a strategy's new default
knob or kernel would make its samples a second variant beside the first), else one line
says what differs. What the journal holds is not run again (results/done.py): a
variant's mode with a sample from a source skips that source, and one that ended (a
failure that stops a variant) is not run again at all.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpubfs_cli.errors import UserError
from gpubfs_cli.files import plain_json
from gpubfs_cli.results.journal import results_path
from gpubfs_cli.results.replay import read_journal

# Config keys that do not change what is measured: where files go, and the GPU check.
NOT_COMPARED = ("out", "path", "data_dir", "require_gpu")


def journal_config(journal: str | Path) -> dict[str, Any]:
    """The journal's run config as a config mapping (bench/config.build_config reads it)."""
    results_path(journal)
    config = read_journal(journal).header["config"]
    raw = {k: v for k, v in config.items() if k not in ("variants", "datasets", "path", "out")}
    raw["datasets"] = [d["name"] if d.get("seed") is None else {"name": d["name"], "seed": d["seed"]}
                       for d in config["datasets"]]
    raw["strategies"] = [{"name": v["strategy"], "problem": v["problem"], "knobs": v["knobs"]}
                         for v in config["variants"]]
    return raw


def check_same_run(journal: Path, header: dict, config: dict, environment: dict) -> None:
    """One UserError line when this run's config, machine or code is not the journal's."""
    theirs = header["config"]
    config = json.loads(json.dumps(plain_json(config)))  # as the journal holds it
    for key in sorted(set(theirs) | set(config)):
        if key in NOT_COMPARED or theirs.get(key) == config.get(key):
            continue
        raise UserError(f"{journal}: the run config differs from the journal's ({key}: {_shown(key, config.get(key))} "
                        f"here, {_shown(key, theirs.get(key))} in the journal); resume with its own config: "
                        f"gpubfs run --resume {journal}")
    for what, here, there in (("CPU", _cpu(environment), _cpu(header["environment"])),
                              ("GPUs", _gpus(environment), _gpus(header["environment"])),
                              ("gpubfs version", environment.get("tool_version"),
                               header["environment"].get("tool_version"))):
        if here != there:
            raise UserError(f"{journal}: begun on another machine or version ({what}: {_short(there)} there, "
                            f"{_short(here)} here); its samples would not compare: resume it where it began")
    here, there = environment.get("source_tree"), header["environment"].get("source_tree")
    if here != there:
        raise UserError(f"{journal}: begun with other code (gpubfs source tree {there} there, {here} here); its "
                        f"samples would not compare: resume it with the code it began with "
                        f"({header['environment'].get('git_commit') or 'unknown commit'}), or run it afresh")


def _cpu(env: dict) -> Any:
    cpu = env.get("cpu")
    return cpu.get("model") if isinstance(cpu, dict) else cpu


def _gpus(env: dict) -> str:
    """The GPU models, in index order; the first GPU's record where the list is absent."""
    gpus = env.get("gpus")
    if not gpus and isinstance(env.get("gpu"), dict) and env["gpu"].get("available", True):
        gpus = [env["gpu"]]
    names = [str(g.get("name")) for g in gpus or [] if isinstance(g, dict) and g.get("name")]
    return ", ".join(names) or "none"


def _shown(key: str, value: Any) -> str:
    """A config value as the config gives it: names for datasets and variants."""
    if key == "variants" and isinstance(value, list):
        value = ", ".join(v["strategy"] + (f"{v['knobs']}" if v.get("knobs") else "") for v in value)
    elif key == "datasets" and isinstance(value, list):
        value = ", ".join(d["name"] + (f"@seed={d['seed']}" if d.get("seed") is not None else "") for d in value)
    return _short(value)


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."
