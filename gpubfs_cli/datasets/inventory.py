"""What `gpubfs list datasets` shows: the catalogue joined with the cache."""

from __future__ import annotations

from pathlib import Path

from gpubfs_cli.datasets import store
from gpubfs_cli.datasets.catalogue import load_catalogue
from gpubfs_cli.errors import UserError


def dataset_rows(data_dir: str | Path | None = None) -> list[dict]:
    """One dict per catalogue entry, then per cached graph not in the catalogue
    (user graphs, generated graphs with another seed).

    Keys: name, aliases, papers, kind, description, expected {n, m, note}, cached,
    broken (why a cached entry cannot be loaded, by store.open_cached's checks: a file
    missing or a link to none, meta.json unreadable, an array empty, cut or foreign;
    else None), n and m (the cached graph's
    when cached, else the expected ones), size_bytes, stats (cached only),
    expected_diff {n, m} (cached only), source (cached only).
    """
    cat = load_catalogue()
    cached = set(store.cached_keys(data_dir))
    broken = set(store.broken_keys(data_dir))  # listed as cached: _row says what is missing
    cached |= broken
    rows = []
    for e in cat.entries.values():
        rows.append(
            _row(e.name, e.kind, e.papers, e.aliases, e.description, e.expected.n, e.expected.m, e.expected.note, data_dir, cached)
        )
        cached.discard(e.name)
    for key in sorted(cached):
        try:
            meta = store.read_meta(key, data_dir)
        except UserError:  # _row marks it broken, with why; the rest are listed
            meta = {}
        exp = meta.get("expected") or {}
        entry = meta.get("entry") or {}
        papers = entry.get("papers")
        rows.append(
            _row(
                key,
                meta.get("kind", "?"),
                [str(p) for p in papers] if isinstance(papers, list) else (),
                (),
                str(entry.get("description", "")),
                exp.get("n"),
                exp.get("m"),
                exp.get("note", ""),
                data_dir,
                {key},
            )
        )
    return rows


def _row(name, kind, papers, aliases, description, en, em, note, data_dir, cached) -> dict:
    row = {
        "name": name,
        "aliases": list(aliases),
        "papers": list(papers),
        "kind": kind,
        "description": description,
        "expected": {"n": en, "m": em, "note": note},
        "cached": name in cached,
        "n": en,
        "m": em,
        "size_bytes": 0,
        "broken": None,
    }
    if row["cached"]:
        try:  # the loader's checks that read no array through: a broken cache says why here
            meta = store.open_cached(name, data_dir)[0]
        except UserError as exc:
            row.update(cached=False, broken=str(exc), size_bytes=store.cache_size_bytes(name, data_dir))
            return row
        exp = meta.get("expected") or {}
        row.update(
            n=meta.get("n"),
            m=meta.get("m"),
            directed=meta.get("directed"),
            size_bytes=store.cache_size_bytes(name, data_dir),
            stats=meta.get("stats"),
            expected_diff={"n": exp.get("n_diff"), "m": exp.get("m_diff")},
            source=meta.get("source"),
            created=meta.get("created"),
        )
    return row


def human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if size < 1000 or unit == "TB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{n} B"


def human_count(n: int | None) -> str:
    if n is None:
        return "-"
    if n >= 1_000_000:
        return f"{n / 1e6:.1f} M"
    if n >= 1_000:
        return f"{n / 1e3:.1f} K"
    return str(n)
