"""The HTML report in a real browser: headless Chromium (Debian's package, which `make
test` installs where it can) loads the page from disk with no network, and the DOM it
built and a screenshot show the tables and the plots rendered. Skipped, with the reason,
where no Chromium is found."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from gpubfs_cli.cli import app
from tests.report.docs import write
from tests.report.test_html import Page, non_blank, png_of, results_doc

CANDIDATES = ("chromium", "chromium-browser", "/usr/bin/chromium")
TIMEOUT_S = 60


def chromium() -> str:
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium found (install Debian's `chromium`, e.g. with `make chromium` as root)")


def browse(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--no-first-run", f"--user-data-dir={profile}", *args, page.as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    chromium()  # skip before building anything
    tmp = tmp_path_factory.mktemp("browser")
    out = tmp / "report.html"
    r = CliRunner().invoke(app, ["report", str(write(tmp, "main.json", results_doc())),
                                 "--format", "html", "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out


def test_chromium_builds_the_tables_and_images(page, tmp_path):
    r = browse(page, tmp_path / "profile", "--dump-dom")
    assert r.returncode == 0, r.stderr[-2000:]
    dom, source = Page(r.stdout), Page(page.read_text())
    # the browser's DOM holds what the file says: nothing dropped by a parse error
    assert dom.tags["table"] == source.tags["table"] == 2
    assert dom.tags["tr"] == source.tags["tr"]
    assert dom.tags["tr"] >= 3 + 5  # the overview (header, g1, g2) and the environment rows
    assert len(dom.images) == len(source.images) == 4
    for src in dom.images:
        assert non_blank(png_of(src))


def test_screenshot_shows_the_plots(page, tmp_path):
    import matplotlib.image

    shot = tmp_path / "shot.png"
    r = browse(page, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1280,1600")
    assert r.returncode == 0 and shot.is_file(), r.stderr[-2000:]
    image = matplotlib.image.imread(shot)[..., :3]
    assert image.shape[:2] == (1600, 1280)
    assert non_blank(image)
    # the bars and lines are colours no text on the page is drawn in (text is black, grey
    # or link blue): a page whose images failed would have almost none of them
    r_, g_, b_ = image[..., 0], image[..., 1], image[..., 2]
    orange = (r_ > 0.9) & (g_ > 0.4) & (g_ < 0.75) & (b_ < 0.3)  # tab colours: orange bars
    green = (g_ > 0.5) & (r_ < 0.35) & (b_ < 0.35)  # and green
    assert int(orange.sum()) + int(green.sum()) > 2000, (int(orange.sum()), int(green.sum()))
    rgb = (image * 255).astype(np.uint32)
    assert np.unique((rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]).size > 50


SHIPPED = Path(__file__).parents[2] / "docs" / "results" / "h200-2026-11-22" / "merrill-fig10.json.gz"
FIGURES = ("fig-throughput", "fig-per-level", "fig-merrill-fig10", "fig-frontier-grid7pt.300")


@pytest.fixture(scope="module")
def paper_page(tmp_path_factory) -> Path:
    """`gpubfs report --paper merrill --format html` of a shipped results file."""
    chromium()
    out = tmp_path_factory.mktemp("paper") / "merrill.html"
    r = CliRunner().invoke(app, ["report", str(SHIPPED), "--paper", "merrill", "--format", "html", "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out


def test_paper_page_screenshot_shows_its_figures(paper_page, tmp_path):
    import matplotlib.image

    r = browse(paper_page, tmp_path / "profile", "--dump-dom")
    assert r.returncode == 0, r.stderr[-2000:]
    dom = Page(r.stdout)
    assert all(f'id="{f}"' in r.stdout for f in FIGURES)  # Fig. 10 among them
    assert len(dom.images) >= len(FIGURES) and all(non_blank(png_of(src)) for src in dom.images)
    # the whole page in one shot (the figures stand below the paper's tables)
    shot = tmp_path / "shot.png"
    r = browse(paper_page, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1280,12000")
    assert r.returncode == 0 and shot.is_file(), r.stderr[-2000:]
    image = matplotlib.image.imread(shot)[..., :3]
    assert non_blank(image)
    drawn = np.flatnonzero((image < 0.99).any(axis=(1, 2)))
    assert drawn.max() < image.shape[0] - 100  # the page ended inside the shot: nothing cut off
    # the bars of the three strategies measured, in their colours (tab blue, orange, green)
    r_, g_, b_ = image[..., 0], image[..., 1], image[..., 2]
    orange = (r_ > 0.9) & (g_ > 0.4) & (g_ < 0.75) & (b_ < 0.3)
    green = (g_ > 0.5) & (r_ < 0.35) & (b_ < 0.35)
    blue = (b_ > 0.6) & (r_ < 0.25) & (g_ > 0.35) & (g_ < 0.6)
    assert min(int(orange.sum()), int(green.sum()), int(blue.sum())) > 5000, (orange.sum(), green.sum(), blue.sum())
