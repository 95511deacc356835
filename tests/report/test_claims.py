"""Every figure the docs quote from a shipped results file, recomputed from that file
through docs/results/claims.yaml (the index: tests/report/claims.py says its format), and
docs/results/ holding exactly the files the index names, each named by its doc."""

from __future__ import annotations

import dataclasses
import fnmatch

import pytest

from tests.report.claims import (
    DOCS,
    RESULTS,
    ROOT,
    Reader,
    bare_names,
    citations,
    cites,
    figures,
    folders,
    indexed_files,
    load_index,
    sections,
    shipped_files,
    stands_in,
)

CLAIMS = load_index()
FIGURES = figures(CLAIMS)
PAIRED = [f for f in FIGURES if "paired" in f.how and f.how.get("field", "value") == "value"]


@pytest.fixture(scope="module")
def reader() -> Reader:
    return Reader()


def _figure_id(fig) -> str:
    return f"{fig.claim}={fig.figure}"


@pytest.mark.parametrize("fig", FIGURES, ids=[f"{_figure_id(f)}#{i}" for i, f in enumerate(FIGURES)])
def test_each_figure_is_what_its_files_give(reader, fig):
    assert reader.recompute(fig) == fig.figure, f"{fig.doc}, {fig.claim}: the files give another figure"


def test_the_index_holds_paired_figures():
    assert PAIRED, "no claim reads a paired ratio: the shuffle test below would check nothing"


@pytest.mark.parametrize("fig", PAIRED, ids=[_figure_id(f) for f in PAIRED])
def test_a_paired_figure_is_not_what_its_files_give_once_one_side_is_shuffled(fig):
    """The first side's times moved one source along (each source gets another's time):
    a paired ratio read from the files must change, or it was not paired by source. A
    ratio of medians does not move at all; the value is compared unrounded, since where
    every source takes about the same time the printed figure may not move either."""
    reader = Reader()
    real = reader.group
    unshuffled = reader.value(fig, fig.how)

    def shuffled(f, files, how, variant):
        agg, group = real(f, files, how, variant)
        if variant is how["paired"][0]:
            keys = sorted(group.times)
            values = [group.times[k] for k in keys]
            group = dataclasses.replace(group, times=dict(zip(keys, values[1:] + values[:1], strict=True)))
        return agg, group

    reader.group = shuffled
    assert reader.value(fig, fig.how) != unshuffled


MARKED = [f for f in FIGURES if "mark" in f.how]


@pytest.mark.parametrize("fig", MARKED, ids=[_figure_id(f) for f in MARKED])
def test_a_marked_figure_with_its_mark_flipped_is_not_what_its_files_give(reader, fig):
    """A dense table's cell carries its mark exactly where its interval contains 1.00:
    the same figure with the mark added or taken away reads as wrong."""
    mark = fig.how["mark"]
    flipped = fig.figure.removesuffix(mark) if fig.figure.endswith(mark) else fig.figure + mark
    assert reader.recompute(dataclasses.replace(fig, figure=flipped)) != flipped


@pytest.mark.parametrize("claim", CLAIMS, ids=[c["id"] for c in CLAIMS])
def test_each_claim_stands_in_its_doc_beside_its_files(claim):
    text = (ROOT / claim["doc"]).read_text()
    cited_as = claim.get("cited_as", [])
    parts = sections(text)
    for name in claim["files"]:
        assert (RESULTS / name).is_file(), f"{claim['id']}: docs/results/{name} is not shipped"
        assert any(cites(s, name) for s in parts) or any(c in text for c in cited_as), \
            f"{claim['doc']} does not name docs/results/{name} ({claim['id']})"
    # each figure in a section of the doc that names one of the claim's files
    citing = [s for s in parts if any(cites(s, f) for f in claim["files"]) or any(c in s for c in cited_as)]
    for fig in claim["figures"]:
        assert any(stands_in(str(fig["figure"]), s) for s in citing), \
            f"{claim['doc']}: {fig['figure']!r} is not beside its file's name ({claim['id']})"


def test_docs_results_holds_exactly_the_indexed_files():
    shipped, indexed = shipped_files(), indexed_files(CLAIMS)
    assert not shipped - indexed, f"no claim cites these: {sorted(shipped - indexed)}"
    assert not indexed - shipped, f"the index names files not shipped: {sorted(indexed - shipped)}"


@pytest.mark.parametrize("doc", DOCS)
def test_every_file_a_doc_names_is_shipped_and_indexed(doc):
    text = (ROOT / doc).read_text()
    shipped, indexed = shipped_files(), indexed_files(CLAIMS)
    for pattern in citations(text):
        found = fnmatch.filter(sorted(shipped), pattern)
        assert found, f"{doc} names docs/results/{pattern}: no such file"
        assert set(found) <= indexed, f"{doc} names {sorted(set(found) - indexed)}: not in the index"
    for folder in folders(text):
        assert (RESULTS / folder).is_dir(), f"{doc} names docs/results/{folder}/: no such folder"
    names = {p.rsplit("/", 1)[1] for p in shipped}
    for bare in bare_names(text):
        assert fnmatch.filter(sorted(names), bare), f"{doc} names {bare}: no shipped file of that name"
