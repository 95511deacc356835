"""configs/datasets.yaml: the schema checks, and that every paper graph is in it."""

from __future__ import annotations

import re

import pytest

from gpubfs_cli.datasets.catalogue import load_catalogue, parse_catalogue
from gpubfs_cli.errors import UserError

GOOD = """
datasets:
  road:
    papers: [luo, raval]
    aliases: [Florida, road-FLA]
    kind: download
    description: a road graph
    urls: [http://example.org/r.gr.gz]
    format: dimacs9
    sha256: 22CFB3E6BF0C89193414C4310DBCF51266632C943C420728386D8EBAEE1282AF
    directed: false
    expected: {n: 10, m: 30, note: "Raval Table II"}
  grid:
    papers: [luo]
    kind: generated
    generator: lattice
    params: {dims: [10, 10, 10]}
    seed: 3
    directed: false
    self_loops: keep
    fixed_source: center
"""

# The real graphs of DATASETS.md section 1a, by the name each has in the catalogue.
SECTION_1A = [
    "europe.osm", "hugebubbles-00020", "coPapersCiteseer", "kron_g500-logn20", "nlpkkt160",
    "audikw1", "cage15", "kkt_power", "wikipedia-20070206", "USA-road-d.NY", "USA-road-d.FLA",
    "USA-road-d.E", "USA-road-d.W", "USA-road-d.USA", "amazon0505", "web-Google", "com-youtube",
    "as-skitter", "roadNet-CA", "soc-LiveJournal1", "germany.osm",
]
# Names the papers print, which must find the same entries.
PRINTED = {
    "New York": "USA-road-d.NY", "Florida": "USA-road-d.FLA", "USA-East": "USA-road-d.E",
    "USA-West": "USA-road-d.W", "road-FLA": "USA-road-d.FLA", "road-W": "USA-road-d.W",
    "road-USA": "USA-road-d.USA", "Amazon0505": "amazon0505", "hugehubbles-00020": "hugebubbles-00020",
}


def test_good_file_parses_to_typed_entries():
    cat = parse_catalogue(GOOD, "t.yaml")
    road, grid = cat.get("road"), cat.get("grid")
    assert road.kind == "download" and road.format == "dimacs9" and road.urls == ("http://example.org/r.gr.gz",)
    assert road.sha256 == "22cfb3e6bf0c89193414c4310dbcf51266632c943c420728386d8ebaee1282af"
    assert (road.expected.n, road.expected.m, road.expected.note) == (10, 30, "Raval Table II")
    assert (road.self_loops, road.duplicates, road.directed, road.compact_ids) == ("drop", "drop", False, False)
    assert cat.get("road-FLA") is road and cat.get("florida") is road  # alias, any letter case
    assert grid.generator == "lattice" and grid.params == {"dims": [10, 10, 10]} and grid.seed == 3
    assert grid.self_loops == "keep" and grid.fixed_source == "center"
    assert [e.name for e in cat.for_paper("luo")] == ["road", "grid"]
    assert [e.name for e in cat.for_paper("raval")] == ["road"]


@pytest.mark.parametrize(
    "edit, message",
    [
        (("format: dimacs9", "format: dimacs"), "t.yaml: dataset 'road': key 'format': 'dimacs' is not valid (did you mean: dimacs9"),
        (("kind: download", "kind: downlaod"), "t.yaml: dataset 'road': key 'kind': 'downlaod' is not valid (did you mean: download"),
        (("directed: false\n    expected", "direction: false\n    expected"), "t.yaml: dataset 'road': key 'direction': unknown key (did you mean: directed"),
        (("urls: [", "url: ["), "t.yaml: dataset 'road': key 'url': unknown key (did you mean: urls"),
        (("self_loops: keep", "self_loops: remove"), "t.yaml: dataset 'grid': key 'self_loops': 'remove' is not valid (expected one of: drop, keep)"),
        (("papers: [luo]", "papers: [merill]"), "t.yaml: dataset 'grid': key 'papers': 'merill' is not valid (did you mean: merrill"),
        (("seed: 3", "seed: three"), "t.yaml: dataset 'grid': key 'seed': expected a whole number"),
        (("seed: 3", "seed: 3\n    format: mtx"), "t.yaml: dataset 'grid': key 'format': not allowed in a 'generated' entry"),
        (("sha256: 22CF", "sha256: 2F"), "t.yaml: dataset 'road': key 'sha256': expected 64 hex digits"),
        (("{n: 10, m: 30,", "{n: 10, edges: 30,"), "t.yaml: dataset 'road': key 'expected.edges': unknown key"),
        (("{n: 10,", "{n: true,"), "t.yaml: dataset 'road': key 'expected.n': expected a whole number"),
        (("directed: false\n    expected", "directed: no-idea\n    expected"), "t.yaml: dataset 'road': key 'directed': expected true or false"),
        (("urls: [http://example.org/r.gr.gz]", "urls: [example.org/r.gr.gz]"), "t.yaml: dataset 'road': key 'urls': 'example.org/r.gr.gz' is not an http(s) or file URL"),
        (("fixed_source: center", "fixed_source: middle"), "t.yaml: dataset 'grid': key 'fixed_source': expected 'center' or a vertex id"),
        (("    generator: lattice\n", ""), "t.yaml: dataset 'grid': key 'generator': missing"),
        (("aliases: [Florida, road-FLA]", "aliases: [grid]"), "t.yaml: dataset 'road': alias 'grid' is already used by 'grid'"),
    ],
)
def test_each_kind_of_bad_key_is_named(edit, message):
    old, new = edit
    assert old in GOOD
    with pytest.raises(UserError) as exc:
        parse_catalogue(GOOD.replace(old, new, 1), "t.yaml")
    assert str(exc.value).startswith(message), str(exc.value)
    assert "\n" not in str(exc.value)


def test_not_yaml_and_wrong_top_level():
    with pytest.raises(UserError, match=r"t.yaml:3: not valid YAML \(expected ','"):
        parse_catalogue("datasets:\n  a: [1, 2\n", "t.yaml")
    with pytest.raises(UserError, match="expected a mapping with a 'datasets' key"):
        parse_catalogue("- 1\n", "t.yaml")
    with pytest.raises(UserError, match="key 'dataset': unknown key"):
        parse_catalogue("datasets: {}\ndataset: {}\n", "t.yaml")


def test_unknown_dataset_suggests_close_names():
    cat = parse_catalogue(GOOD, "t.yaml")
    with pytest.raises(UserError, match=r"unknown dataset 'rood' \(did you mean: road"):
        cat.get("rood")
    with pytest.raises(UserError, match="unknown paper 'merril'"):
        cat.for_paper("merril")


def test_env_override(tmp_path, monkeypatch):
    path = tmp_path / "cat.yaml"
    path.write_text(GOOD)
    monkeypatch.setenv("GPUBFS_CATALOGUE", str(path))
    assert load_catalogue().names() == ["road", "grid"]
    monkeypatch.setenv("GPUBFS_CATALOGUE", str(tmp_path / "none.yaml"))
    with pytest.raises(UserError, match="none.yaml: cannot read the dataset catalogue"):
        load_catalogue()


def test_real_catalogue_holds_every_section_1a_graph():
    cat = load_catalogue()
    missing = [name for name in SECTION_1A if cat.resolve(name) != name]
    assert missing == []
    for printed, name in PRINTED.items():
        assert cat.resolve(printed) == name
    for name in SECTION_1A:
        e = cat.get(name)
        assert e.kind == "download" and e.urls and e.format and e.papers
        assert e.expected.n and e.expected.m and e.expected.note
        if e.format == "snap":
            assert e.compact_ids is False  # BFS-4K sized graphs by max id + 1
        if e.format == "mtx":
            stem = e.urls[0].rsplit("/", 1)[1].removesuffix(".tar.gz")
            assert e.member == f"{stem}/{stem}.mtx"  # how SuiteSparse tarballs unpack


def test_real_catalogue_matches_shared_datasets_md(shared_data):
    """Cross-check against ../shared/DATASETS.md itself: names and recorded checksums."""
    text = (shared_data.parent / "DATASETS.md").read_text()
    section = text.split("### 1a.")[1].split("### 1b.")[0]
    names = []
    for line in section.splitlines():
        if line.startswith("| ") and not line.startswith(("| name", "|---")):
            first = line.split("|")[1].strip()
            if not first.startswith("lbbfs Table"):
                names.append(first.split(" (")[0])
    assert sorted(names) == sorted(SECTION_1A)
    cat = load_catalogue()
    for name in names:
        row = next(line for line in section.splitlines() if line.startswith(f"| {name}"))
        sha = re.search(r"sha256 `([0-9a-f]{64})`", row)
        if sha and "road_usa" not in row:
            assert cat.get(name).sha256 == sha.group(1), name
