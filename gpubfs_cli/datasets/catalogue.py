"""The dataset catalogue: the shipped configs/datasets.yaml, checked against its header's schema.

Every mistake in the file (unknown key, wrong kind, format or policy, wrong type)
is a UserError naming the file, the dataset and the key, with the closest valid
names. Graphs a user adds with `fetch-dataset --url/--file` are not in the yaml:
their entries live in the cache's meta.json (see `entry_from_meta`).
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gpubfs_cli.configs import catalogue_path
from gpubfs_cli.errors import UserError, unknown_name
from gpubfs_cli.files import parse_yaml, read_text_file

CATALOGUE_ENV = "GPUBFS_CATALOGUE"
PAPERS = ("merrill", "luo", "bfs4k", "raval", "lbbfs")
KINDS = ("download", "generated")
FORMATS = ("dimacs9", "metis", "snap", "mtx", "gtgraph")
POLICIES = ("drop", "keep")
TOLERANCE = 0.01  # relative difference from the paper's n or m that earns a warning

COMMON_KEYS = {
    "papers", "kind", "description", "aliases", "directed", "self_loops", "duplicates",
    "expected", "fixed_source", "weights", "weight_range",
}
DOWNLOAD_KEYS = {"urls", "format", "member", "sha256", "compact_ids", "multiplicity", "published_size"}
GENERATED_KEYS = {"generator", "params", "seed"}
EXPECTED_KEYS = {"n", "m", "note"}
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(B|KB|MB|GB|TB)\s*$", re.IGNORECASE)
_UNIT = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}


def parse_size(text: str, where: str = "size") -> int:
    """'164 MB' -> 164,000,000 (decimal units, as the collections print them)."""
    m = _SIZE.match(str(text))
    if not m:
        raise UserError(f"{where}: expected a size such as '164 MB', got {text!r}")
    return int(float(m.group(1)) * _UNIT[m.group(2).lower()])


@dataclass(frozen=True)
class Expected:
    """What the paper's table lists (n vertices, m directed edges), and where."""

    n: int | None = None
    m: int | None = None
    note: str = ""


@dataclass(frozen=True)
class DatasetEntry:
    """One graph: where it comes from and how it becomes a CSR graph."""

    name: str
    kind: str  # download | generated | user
    papers: tuple[str, ...] = ()
    description: str = ""
    aliases: tuple[str, ...] = ()
    directed: bool | None = False  # None (user graphs only): the file format's own default
    self_loops: str = "drop"
    duplicates: str = "drop"
    weights: bool = False
    # SSSP weights by rule (datasets/weights.py) where the graph keeps none: None = 1..100
    weight_range: tuple[int, int] | None = None
    expected: Expected = field(default_factory=Expected)
    fixed_source: str | int | None = None
    # download
    urls: tuple[str, ...] = ()
    format: str | None = None
    member: str | None = None
    sha256: str | None = None
    published_size: str | None = None  # the archive's size as its source prints it ('164 MB')
    compact_ids: bool = False
    multiplicity: bool = False
    # generated
    generator: str | None = None
    params: dict = field(default_factory=dict)
    seed: int | None = None
    # user graphs (--file): the local path
    file: str | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["papers"], d["aliases"], d["urls"] = list(self.papers), list(self.aliases), list(self.urls)
        d["weight_range"] = list(self.weight_range) if self.weight_range is not None else None
        return d


@dataclass
class Catalogue:
    path: Path
    entries: dict[str, DatasetEntry]
    _alias: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for entry in self.entries.values():
            for a in entry.aliases:
                self._alias[a] = entry.name
        for key in list(self.entries) + list(self._alias):
            self._alias.setdefault(key.lower(), self._alias.get(key, key))

    def names(self) -> list[str]:
        return list(self.entries)

    def resolve(self, name: str) -> str | None:
        """The entry name for a name, an alias, or either in another letter case."""
        if name in self.entries:
            return name
        return self._alias.get(name) or self._alias.get(name.lower())

    def get(self, name: str) -> DatasetEntry:
        key = self.resolve(name)
        if key is None:
            raise unknown_name("dataset", name, list(self.entries) + [a for e in self.entries.values() for a in e.aliases])
        return self.entries[key]

    def for_paper(self, paper: str) -> list[DatasetEntry]:
        if paper not in PAPERS:
            raise unknown_name("paper", paper, PAPERS)
        return [e for e in self.entries.values() if paper in e.papers]


def default_path() -> Path:
    """GPUBFS_CATALOGUE (a user's own catalogue) if set, else the shipped one."""
    env = os.environ.get(CATALOGUE_ENV)
    return Path(env) if env else catalogue_path()


_cache: dict[tuple[str, float], Catalogue] = {}


def load_catalogue(path: str | Path | None = None) -> Catalogue:
    """Read and validate the catalogue (cached per path and modification time). A
    mistake in the one $GPUBFS_CATALOGUE names says that the variable chose it."""
    from_env = path is None and bool(os.environ.get(CATALOGUE_ENV))
    path = Path(path) if path is not None else default_path()
    try:
        try:
            mtime = path.stat().st_mtime
        except OSError as exc:
            raise UserError(f"{path}: cannot read the dataset catalogue ({exc.strerror})") from None
        key = (str(path), mtime)
        if key not in _cache:
            _cache.clear()
            _cache[key] = parse_catalogue(read_text_file(path, "dataset catalogue"), str(path))
    except UserError as exc:
        if from_env:
            raise UserError(f"{exc} (the catalogue named by ${CATALOGUE_ENV})") from None
        raise
    return _cache[key]


def parse_catalogue(text: str, where: str = "datasets.yaml") -> Catalogue:
    doc = parse_yaml(text, where)
    if not isinstance(doc, dict) or "datasets" not in doc:
        raise UserError(f"{where}: expected a mapping with a 'datasets' key at the top")
    _no_unknown(where, None, doc, {"datasets"})
    raw = doc["datasets"] or {}
    if not isinstance(raw, dict):
        raise UserError(f"{where}: 'datasets' must be a mapping of name -> entry")
    entries = {str(name): _entry(where, str(name), body) for name, body in raw.items()}
    seen: dict[str, str] = {}
    for e in entries.values():
        for a in e.aliases:
            owner = a if a in entries else seen.get(a)
            if owner is not None:
                raise UserError(f"{where}: dataset '{e.name}': alias '{a}' is already used by '{owner}'")
            seen[a] = e.name
    return Catalogue(Path(where), entries)


def _err(where: str, name: str | None, key: str | None, msg: str) -> UserError:
    parts = [where]
    if name is not None:
        parts.append(f"dataset '{name}'")
    if key is not None:
        parts.append(f"key '{key}'")
    return UserError(": ".join(parts) + f": {msg}")


def _no_unknown(where: str, name: str | None, body: dict, allowed: set[str], inside: str = "") -> None:
    for key in body:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), sorted(allowed), n=3, cutoff=0.5)
            hint = f"did you mean: {', '.join(close)}?" if close else f"valid: {', '.join(sorted(allowed))}"
            raise _err(where, name, f"{inside}{key}", f"unknown key ({hint})")


def _choice(where: str, name: str, key: str, value: Any, valid: tuple[str, ...]) -> str:
    if value not in valid:
        close = difflib.get_close_matches(str(value), valid, n=3, cutoff=0.5)
        hint = f"did you mean: {', '.join(close)}?" if close else f"expected one of: {', '.join(valid)}"
        raise _err(where, name, key, f"'{value}' is not valid ({hint})")
    return value


def _typed(where: str, name: str, key: str, value: Any, kind: type | tuple, what: str) -> Any:
    # bool is an int in Python; a count must not be `true`.
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise _err(where, name, key, f"expected {what}, got {value!r}")
    if not isinstance(value, kind):
        raise _err(where, name, key, f"expected {what}, got {value!r}")
    return value


def _str_list(where: str, name: str, key: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _err(where, name, key, "expected a list of strings")
    return tuple(value)


def _weight_range(where: str, name: str, value: Any) -> tuple[int, int]:
    ok = (
        isinstance(value, list) and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )
    if not ok:
        raise _err(where, name, "weight_range", f"expected [lo, hi], two whole numbers, got {value!r}")
    lo, hi = value
    if not 0 <= lo <= hi < 2**62:
        raise _err(where, name, "weight_range", f"expected 0 <= lo <= hi < 2^62, got [{lo}, {hi}]")
    return (lo, hi)


def _entry(where: str, name: str, body: Any) -> DatasetEntry:
    if not isinstance(body, dict):
        raise _err(where, name, None, "expected a mapping of keys")
    if "kind" not in body:
        raise _err(where, name, "kind", f"missing (expected one of: {', '.join(KINDS)})")
    kind = _choice(where, name, "kind", body["kind"], KINDS)
    allowed = COMMON_KEYS | (DOWNLOAD_KEYS if kind == "download" else GENERATED_KEYS)
    other = GENERATED_KEYS if kind == "download" else DOWNLOAD_KEYS
    for key in body:
        if key in other:
            raise _err(where, name, key, f"not allowed in a '{kind}' entry")
    _no_unknown(where, name, body, allowed)
    f: dict[str, Any] = {"name": name, "kind": kind}
    papers = _str_list(where, name, "papers", body.get("papers", []))
    for p in papers:
        _choice(where, name, "papers", p, PAPERS)
    f["papers"] = papers
    if "description" in body:
        f["description"] = _typed(where, name, "description", body["description"], str, "a string")
    if "aliases" in body:
        f["aliases"] = _str_list(where, name, "aliases", body["aliases"])
    for key in ("directed", "weights", "compact_ids", "multiplicity"):
        if key in body:
            f[key] = _typed(where, name, key, body[key], bool, "true or false")
    for key in ("self_loops", "duplicates"):
        if key in body:
            f[key] = _choice(where, name, key, body[key], POLICIES)
    if "weight_range" in body:
        f["weight_range"] = _weight_range(where, name, body["weight_range"])
        if f.get("weights"):
            raise _err(where, name, "weight_range", "not allowed with 'weights: true' (the file's weights are kept)")
    if "expected" in body:
        exp = body["expected"]
        if not isinstance(exp, dict):
            raise _err(where, name, "expected", "expected a mapping {n: int, m: int, note: str}")
        _no_unknown(where, name, exp, EXPECTED_KEYS, inside="expected.")
        vals = {}
        for k in ("n", "m"):
            v = exp.get(k)
            if v is not None:
                _typed(where, name, f"expected.{k}", v, int, "a whole number")
                if v < 0:
                    raise _err(where, name, f"expected.{k}", "must not be negative")
            vals[k] = v
        note = _typed(where, name, "expected.note", exp.get("note", ""), str, "a string")
        f["expected"] = Expected(vals["n"], vals["m"], note)
    if "fixed_source" in body:
        fs = body["fixed_source"]
        if not (fs == "center" or (isinstance(fs, int) and not isinstance(fs, bool) and fs >= 0)):
            raise _err(where, name, "fixed_source", f"expected 'center' or a vertex id, got {fs!r}")
        f["fixed_source"] = fs
    if kind == "download":
        if "urls" not in body:
            raise _err(where, name, "urls", "missing (a download needs at least one URL)")
        urls = _str_list(where, name, "urls", body["urls"])
        for u in urls:
            if not re.match(r"^(https?|file)://", u):
                raise _err(where, name, "urls", f"'{u}' is not an http(s) or file URL")
        f["urls"] = urls
        if "format" not in body:
            raise _err(where, name, "format", f"missing (expected one of: {', '.join(FORMATS)})")
        f["format"] = _choice(where, name, "format", body["format"], FORMATS)
        if "member" in body:
            f["member"] = _typed(where, name, "member", body["member"], str, "a path inside the archive")
        if "sha256" in body:
            sha = _typed(where, name, "sha256", body["sha256"], str, "64 hex digits")
            if not _SHA256.match(sha.lower()):
                raise _err(where, name, "sha256", f"expected 64 hex digits, got '{sha}'")
            f["sha256"] = sha.lower()
        if "published_size" in body:
            size = _typed(where, name, "published_size", body["published_size"], str, "a size such as '164 MB'")
            parse_size(size, f"{where}: dataset '{name}': key 'published_size'")
            f["published_size"] = size
    else:
        if "generator" not in body:
            raise _err(where, name, "generator", "missing (the generator family name)")
        f["generator"] = _typed(where, name, "generator", body["generator"], str, "a family name")
        params = body.get("params", {}) or {}
        f["params"] = dict(_typed(where, name, "params", params, dict, "a mapping"))
        if "seed" in body:
            f["seed"] = _typed(where, name, "seed", body["seed"], int, "a whole number")
    return DatasetEntry(**f)


def entry_from_meta(meta: dict) -> DatasetEntry:
    """The entry of a user graph, as `fetch-dataset --url/--file` stored it in meta.json."""
    d = dict(meta.get("entry") or {})
    d["expected"] = Expected(**(d.get("expected") or {}))
    for key in ("papers", "aliases", "urls"):
        d[key] = tuple(d.get(key) or ())
    if d.get("weight_range") is not None:
        d["weight_range"] = tuple(d["weight_range"])
    known = set(DatasetEntry.__dataclass_fields__)
    return DatasetEntry(**{k: v for k, v in d.items() if k in known})
