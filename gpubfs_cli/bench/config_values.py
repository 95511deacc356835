"""Each run-config key's value read and checked (bench/config.py lists the keys): plain
numbers (each against its key's Range, bench/config.RANGES, the kind every numeric knob
declares: core/knobs.py), names, paths, choices, vertex ids, vertex orders and the
dataset entries. A bad value is one UserError naming where it came from (the file, or
the command line) and the key."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpubfs_cli.bench.variants import config_error as _err
from gpubfs_cli.core.knobs import Range
from gpubfs_cli.errors import UserError, unknown_name
from gpubfs_cli.graph.reorder import ORDERS

SEED = Range(0)  # a generated graph's seed


@dataclass(frozen=True)
class DatasetSpec:
    name: str
    seed: int | None = None


def typed(where: str, key: str, value: Any, kind: type | tuple) -> Any:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    bad_bool = isinstance(value, bool) and bool not in kinds
    if bad_bool or not isinstance(value, kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise _err(where, key, f"expected {names}, got {value!r}")
    return value


def run_name(where: str, value: Any) -> str:
    """The run's name: the results file is results/NAME-<time>.json, so a name is one
    plain file name (no folder, no leading '.', no control characters)."""
    name = typed(where, "name", value, str)
    bad = (
        not name or len(name) > 200 or name.startswith(".")
        or any(c in name for c in "/\\") or any(ord(c) < 32 or ord(c) == 127 for c in name)
    )
    if bad:
        raise _err(where, "name", f"{name!r} cannot name a results file (expected a plain name: "
                                  "no '/' or '\\', no leading '.', at most 200 characters)")
    return name


def number(where: str, key: str, value: Any, valid: Range) -> Any:
    """A numeric key's value: of its kind (int; int or float, read as a float), then in
    its Range."""
    value = typed(where, key, value, int) if valid.whole else float(typed(where, key, value, (int, float)))
    problem = valid.problem(value)
    if problem is not None:
        raise _err(where, key, problem)
    return value


def optional_str(where: str, key: str, value: Any) -> str | None:
    return None if value is None else str(typed(where, key, value, (str, Path)))


def optional_path(where: str, key: str, value: Any) -> str | None:
    """A path key: absent, or a name (an empty one would silently mean the default)."""
    text = optional_str(where, key, value)
    if text == "":
        raise _err(where, key, "expected a path, got an empty string")
    return text


def choice(where: str, key: str, value: Any, valid: Iterable[str]) -> str:
    valid = tuple(valid)
    if str(value) not in valid:
        raise _err(where, key, str(unknown_name("value", str(value), valid)))
    return str(value)


def mode_text(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def int_list(where: str, key: str, value: Any) -> list[int]:
    items = value if isinstance(value, list) else [value]
    for v in items:
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise _err(where, key, f"expected vertex ids (whole numbers >= 0), got {v!r}")
    return list(items)


def orders(where: str, value: Any) -> list[str]:
    """`reorder`: one order name or a list of them, no repeats (graph/reorder.ORDERS)."""
    items = value if isinstance(value, list) else [value]
    expected = f"expected {', '.join(ORDERS)} or a list of them"
    if not items:
        raise _err(where, "reorder", f"{expected}, got an empty list")
    for v in items:
        if not isinstance(v, str):
            raise _err(where, "reorder", f"{expected}, got {v!r}")
        if v not in ORDERS:
            raise _err(where, "reorder", str(unknown_name("vertex order", v, ORDERS)))
    return list(dict.fromkeys(items))


def datasets(where: str, value: Any) -> list[DatasetSpec]:
    items = value if isinstance(value, list) else [value]
    out = []
    for i, item in enumerate(items):
        key = f"datasets[{i}]"
        if isinstance(item, str):
            _, at, seed = _without_weights(where, key, item).partition("@seed=")
            if at and not (seed.isascii() and seed.isdigit()):
                raise _err(where, key, f"expected NAME or NAME@seed=S with S {SEED.expected()}, got {item!r}")
            out.append(DatasetSpec(item))
        elif isinstance(item, dict):
            for k in item:
                if k not in ("name", "seed"):
                    raise _err(where, key, str(unknown_name("key", str(k), ("name", "seed"))))
            if not isinstance(item.get("name"), str):
                raise _err(where, key, "a mapping needs 'name' (and optionally 'seed')")
            _without_weights(where, f"{key}.name", item["name"])
            seed = item.get("seed")
            if seed is not None:
                number(where, f"{key}.seed", seed, SEED)
            out.append(DatasetSpec(item["name"], seed))
        else:
            raise _err(where, key, f"expected a dataset name or {{name, seed}}, got {item!r}")
    return out


def _without_weights(where: str, key: str, name: str) -> str:
    """NAME without its @weights=file|rule option; any other value of it one line."""
    from gpubfs_cli.datasets.weights import split_option

    try:
        return split_option(name)[0]
    except UserError as exc:
        raise _err(where, key, str(exc)) from None


def graph_key(spec: DatasetSpec, data_dir: str | None = None) -> tuple:
    """The graph a dataset entry names: an alias, the catalogue's own seed given, or a
    weights option that names the plain graph's weights (datasets/weights.py), name the
    graph its plain name does."""
    from gpubfs_cli.datasets.catalogue import load_catalogue
    from gpubfs_cli.datasets.prepare import resolve_entry
    from gpubfs_cli.datasets.weights import rule_apart, split_option

    plain, choice = split_option(spec.name)
    name, _, seed = plain.partition("@seed=")
    seed = int(seed) if seed.isdigit() else spec.seed
    catalogue = load_catalogue()
    key = catalogue.resolve(name)
    if key is None:  # a user graph: its cached record says whether it has weights of its own
        try:
            apart = rule_apart(resolve_entry(name, data_dir), choice, data_dir)
        except UserError:
            apart = choice in ("rule", "graph500")
        return name, seed, choice if apart else None
    entry = catalogue.get(key)
    return key, None if seed == entry.seed else seed, choice if rule_apart(entry, choice) else None
