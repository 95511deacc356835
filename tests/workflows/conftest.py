"""The real New York road graph served to `gpubfs` under its upstream URL: what the
workflow tests on it share (skipped, saying so, where ../shared/data is absent)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpubfs_cli.configs import shipped
from gpubfs_cli.datasets import catalogue
from gpubfs_cli.gpu import backend
from tests.datasets.conftest import LoopbackServer

NY = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "USA-road-d.NY.gr.gz"
UPSTREAM_PATH = "/~challenge9/data/USA-road-d/USA-road-d.NY.gr.gz"

needs_ny = pytest.mark.skipif(not NY.is_file(), reason=f"{NY} is absent (the shared test data)")


@pytest.fixture
def served(tmp_path, monkeypatch):
    """No GPU; the shipped catalogue with New York's URLs on a loopback server (the
    upstream path), everything else as shipped; the test's own folder as the cwd."""
    monkeypatch.setattr(backend, "unavailable_reason", lambda: "disabled for this test")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GPUBFS_MIRROR", raising=False)
    server = LoopbackServer()
    server.files[UPSTREAM_PATH] = NY.read_bytes()
    text = shipped("datasets.yaml").read_text()
    text = re.sub(r"https?://[^\s]*/USA-road-d\.NY\.gr\.gz", server.url(UPSTREAM_PATH), text)
    cat = tmp_path / "datasets.yaml"
    cat.write_text(text)
    monkeypatch.setenv(catalogue.CATALOGUE_ENV, str(cat))
    yield server
    server.close()
