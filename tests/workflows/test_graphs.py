"""A reproduction's graph plans: the line a dry run prints, what does not fit here (said
before any download), quick mode's leave-outs, and the download rate measured here."""

from __future__ import annotations

import json

from gpubfs_cli.datasets.catalogue import DatasetEntry, Expected
from gpubfs_cli.datasets.footprint import Footprint, download_of, planned_counts
from gpubfs_cli.workflows.graphs import QUICK_MAX_DOWNLOAD, GraphPlan, Here, blocked, download_rate

GB = 10**9


def _plan(action="fetch", download=None, host=GB, gpu=GB, n=1000, m=4000) -> GraphPlan:
    entry = DatasetEntry(name="road", kind="download", urls=("https://h/road.gr.gz",), format="dimacs9",
                         expected=Expected(n=n, m=m))
    d = download_of(entry, m)
    if download is not None:
        d = type(d)(download, "published")
    return GraphPlan("road", entry, action, n, m, Footprint(d, 10**6, host, gpu))


def here(host=20 * GB, gpu=80 * GB, rate=None) -> Here:
    return Here(host, gpu, "NVIDIA H100" if gpu else None, rate)


def test_a_graph_that_does_not_fit_the_host_or_the_gpu_is_blocked_before_its_download():
    assert blocked(_plan(host=30 * GB), here(), quick=False) == (
        "its conversion needs 30 GB of host memory, 20 GB is available")
    assert blocked(_plan(gpu=75 * GB), here(), quick=False) == (
        "a BFS on it needs 75 GB of GPU memory, the NVIDIA H100 has 80 GB")
    assert blocked(_plan(gpu=70 * GB), here(), quick=False) is None  # within 90% of the GPU
    assert blocked(_plan(gpu=75 * GB), here(gpu=None), quick=False) is None  # no GPU: CPU rows run


def test_quick_mode_leaves_out_large_downloads_only():
    big = _plan(download=QUICK_MAX_DOWNLOAD + 1)
    assert blocked(big, here(), quick=True) == "quick mode leaves out downloads over 100 MB"
    assert blocked(big, here(), quick=False) is None
    assert blocked(_plan(download=QUICK_MAX_DOWNLOAD), here(), quick=True) is None
    assert blocked(_plan(action="mirror", download=QUICK_MAX_DOWNLOAD * 3), here(), quick=True) is None


def test_the_dry_run_line_names_sizes_fit_and_download_time():
    p = _plan(download=50 * 10**6)
    line = p.line(here())
    assert line.startswith("road: download 50 MB (as published), 1.0 MB converted")
    assert "conversion needs 1.0 GB of host memory (20 GB available)" in line
    assert "a BFS needs 1.0 GB of GPU memory (fits the NVIDIA H100's 80 GB)" in line
    assert line.endswith("download time unknown (no download measured here)")
    timed = p.line(here(rate=10 * 10**6))
    assert timed.endswith("download about 5 s at 10 MB/s measured here")
    assert "(no GPU here)" in p.line(here(gpu=None))
    assert "does not fit the NVIDIA H100's 80 GB" in _plan(gpu=79 * GB).line(here())
    cached = _plan(action="cached").line(here())
    assert cached.startswith("road: cached (1.0 MB on disk), a BFS needs") and "host memory" not in cached


def test_a_missing_line_names_the_command_and_the_download():
    line = _plan(download=50 * 10**6).missing_line("luo", "not fetched")
    assert line == ("road: its cells stay missing: not fetched; to fill them: gpubfs fetch-dataset road "
                    "(50 MB to download), then gpubfs reproduce luo")


def test_download_rate_is_the_median_of_the_network_downloads_recorded(tmp_path, monkeypatch):
    from gpubfs_cli.datasets import store

    metas = {
        "a": {"source": {"origin": "url", "bytes": 100}, "times": {"download_s": 1.0}},
        "b": {"source": {"origin": "url", "bytes": 300}, "times": {"download_s": 1.0}},
        "c": {"source": {"origin": "url", "bytes": 1000}, "times": {"download_s": 1.0}},
        "d": {"source": {"origin": "mirror", "bytes": 10**9}, "times": {"download_s": 0.01}},  # no network
        "e": {"source": {"origin": "url"}, "times": {"download_s": 1.0}},  # no size recorded
        "f": {"kind": "generated", "times": {"generate_s": 1.0}},
    }
    keys = list(metas)
    monkeypatch.setattr(store, "cached_keys", lambda d=None: keys)
    monkeypatch.setattr(store, "read_meta", lambda key, d=None: json.loads(json.dumps(metas[key])))
    assert download_rate(str(tmp_path)) == 300
    keys[:] = ["d", "e", "f"]
    assert download_rate(str(tmp_path)) is None


def test_a_generated_graph_without_catalogue_counts_is_planned_from_its_generator():
    """Graph 500 scale 28 gives no n and m in the catalogue: the plan takes 2^28 vertices
    and every record both ways as m (an upper bound), so its sizes are not zero; and its
    host figure never blocks it (the build takes the GPU, or CPU parts that fit)."""
    from gpubfs_cli.datasets.catalogue import load_catalogue
    from gpubfs_cli.workflows.graphs import plan_graph

    entry = load_catalogue().get("g500-s28-ef16")
    assert planned_counts(entry) == (2**28, 2 * 16 * 2**28)
    plan = plan_graph("g500-s28-ef16", None, None, here(host=20 * GB, gpu=141 * GB))
    assert (plan.n, plan.m) == (2**28, 2**33) and plan.costs.disk_bytes > 30 * GB
    assert plan.costs.host_bytes > 20 * GB and plan.blocked is None
    line = plan.line(here(host=20 * GB, gpu=141 * GB))
    assert "host memory if built on the CPU in one part" in line and "conversion needs" not in line
    fetched = _plan(host=30 * GB)  # a download converted on the host is still held to it
    assert blocked(fetched, here(), quick=False) is not None
    # the road-like geometric graph (a CPU family) is planned from its family's bound
    road = load_catalogue().get("geo-road-1M")
    assert planned_counts(road) == (10**6, 2 * (3 * 10**6 - 1))


def test_a_generated_graph_of_unknown_size_says_so_instead_of_planning_zero_bytes(tmp_path, monkeypatch):
    from gpubfs_cli.workflows.graphs import plan_graph

    catalogue = tmp_path / "catalogue.yaml"
    catalogue.write_text("datasets:\n  ff-test:\n    kind: generated\n    description: a forest fire graph\n"
                         "    generator: forest_fire\n    params: {n: 5000}\n    seed: 1\n    directed: true\n")
    monkeypatch.setenv("GPUBFS_CATALOGUE", str(catalogue))
    plan = plan_graph("ff-test", None, str(tmp_path / "data"), here())
    assert (plan.n, plan.m) == (None, None) and plan.blocked is None
    assert plan.line(here()) == ("ff-test: generated here; its sizes are not known before generating (its "
                                 "catalogue entry gives no n and m, and its generator forest_fire no bound)")
