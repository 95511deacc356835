"""Run configs: every kind of mistake is one line naming the file and key, with close
names; knob sweeps expand into variants; flags override the file."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from gpubfs_cli.bench.config import expand_strategies, load_config
from gpubfs_cli.bench.config_cli import config_from_cli
from gpubfs_cli.core.strategy import Strategy
from gpubfs_cli.errors import UserError

DATASETS = ("smoke-rmat", "smoke-gnm", "smoke-grid")


def check(name: str) -> None:
    if name not in DATASETS:
        raise UserError(f"unknown dataset '{name}' (did you mean: smoke-gnm?)")


class Knobby(Strategy):
    name = "test.knobby"
    paper = "cpu"
    section = "test"

    @dataclass(frozen=True)
    class Knobs:
        width: int = 32
        mode: str = "scan"
        ratio: float = 0.5


class Plain(Strategy):
    name = "test.plain"
    paper = "cpu"
    section = "test"


REGISTRY = {"bfs": {"test.knobby": Knobby, "test.plain": Plain}}


def write(tmp_path, text: str):
    p = tmp_path / "exp.yaml"
    p.write_text(text)
    return p


def load(tmp_path, text: str, **overrides):
    return load_config(write(tmp_path, text), overrides, dataset_check=check, registry=REGISTRY)


def test_a_full_config(tmp_path):
    cfg = load(
        tmp_path,
        """
datasets: [smoke-rmat, {name: smoke-gnm, seed: 5}]
strategies: [test.plain, {name: test.knobby, knobs: {width: [8, 16], mode: warp}}]
sources: 7
seed: 3
validate: none
predecessors: both
time_limit_s: 2.5
warmup: 0
warmup_ms: 25
rounds: 4
out: somewhere.json
""",
    )
    assert cfg.name == "exp"
    assert [(d.name, d.seed) for d in cfg.datasets] == [("smoke-rmat", None), ("smoke-gnm", 5)]
    assert [v.label for v in cfg.variants] == [
        "test.plain",
        "test.knobby[width=8,mode=warp]",
        "test.knobby[width=16,mode=warp]",
    ]
    assert (cfg.sources, cfg.seed, cfg.validate, cfg.modes) == (7, 3, "none", [False, True])
    assert (cfg.time_limit_s, cfg.warmup, cfg.warmup_ms, cfg.rounds, cfg.out) == (2.5, 0, 25.0, 4, "somewhere.json")


def test_sweeps_of_two_knobs_give_every_combination():
    variants = expand_strategies(
        "x.yaml", [{"name": "test.knobby", "knobs": {"width": [8, 16], "ratio": [0.25, 0.5, 1]}}], REGISTRY
    )
    assert len(variants) == 6
    assert variants[-1].overrides == {"width": 16, "ratio": 1}


def test_all_and_patterns(tmp_path):
    assert [v.label for v in load(tmp_path, "datasets: [smoke-rmat]\nstrategies: all").variants] == [
        "test.knobby",
        "test.plain",
    ]
    cfg = load(tmp_path, "datasets: [smoke-rmat]\nstrategies: ['test.k*', test.knobby]")
    assert [v.label for v in cfg.variants] == ["test.knobby"]  # no repeats


@pytest.mark.parametrize(
    "text,message",
    [
        ("datasets: [smoke-rmat]\nsourcez: 3", "exp.yaml: unknown key 'sourcez' (did you mean: sources, fixed_sources?)"),
        ("datasets: [smoke-rmta]", "exp.yaml: datasets[0]: unknown dataset 'smoke-rmta'"),
        (
            "datasets: [smoke-rmat]\nstrategies: [test.plian]",
            "exp.yaml: strategies[0]: unknown bfs strategy 'test.plian' (did you mean: test.plain",
        ),
        (
            "datasets: [smoke-rmat]\nstrategies: [{name: test.knobby, knobs: {widht: 3}}]",
            "exp.yaml: strategies[0].knobs: unknown knob of test.knobby 'widht' (did you mean: width?)",
        ),
        (
            "datasets: [smoke-rmat]\nstrategies: [{name: test.knobby, knobs: {width: wide}}]",
            "exp.yaml: strategies[0].knobs.width: test.knobby: expected int like the default 32, got 'wide'",
        ),
        (
            "datasets: [smoke-rmat]\nstrategies: [{nmae: test.knobby}]",
            "exp.yaml: strategies[0]: unknown key 'nmae' (did you mean: name?)",
        ),
        ("datasets: [smoke-rmat]\nstrategies: ['zzz.*']", "exp.yaml: strategies[0]: pattern 'zzz.*' matches no bfs strategy"),
        ("datasets: [smoke-rmat]\npredecessors: some", "exp.yaml: predecessors: unknown value 'some'"),
        ("datasets: [smoke-rmat]\nvalidate: al", "exp.yaml: validate: unknown value 'al' (did you mean: all?)"),
        ("datasets: [smoke-rmat]\nsources: 0", "exp.yaml: sources: expected a positive whole number, got 0"),
        ("datasets: [smoke-rmat]\nsources: many", "exp.yaml: sources: expected int, got 'many'"),
        ("datasets: [smoke-rmat]\nrounds: 0", "exp.yaml: rounds: expected a positive whole number, got 0"),
        ("datasets: [smoke-rmat]\ntime_limit_s: -1", "exp.yaml: time_limit_s: expected a positive number"),
        ("datasets: [smoke-rmat]\nwarmup_ms: -5", "exp.yaml: warmup_ms: expected 0 or more milliseconds, got -5.0"),
        ("datasets: [smoke-rmat]\nwarmup_ms: .inf", "exp.yaml: warmup_ms: expected 0 or more milliseconds, got inf"),
        ("datasets: [smoke-rmat]\nwarmup_ms: soon", "exp.yaml: warmup_ms: expected int or float, got 'soon'"),
        ("datasets: [{name: smoke-rmat, sead: 1}]", "exp.yaml: datasets[0]: unknown key 'sead' (did you mean: seed?)"),
        ("strategies: all", "exp.yaml: datasets: no datasets given"),
        ("datasets: [smoke-rmat\n", "exp.yaml:2: not valid YAML"),
        ("- just\n- a list", "exp.yaml: expected a mapping of keys"),
        (
            "datasets: [smoke-rmat]\nstrategies: [{name: test.knobby, knobs: {width: []}}]",
            "exp.yaml: strategies[0].knobs.width: test.knobby: an empty list; give a value, or a list of values",
        ),
        ("datasets: [smoke-rmat]\nsources: 3\nseed: 1\nsources: 4",
         "exp.yaml:4: key 'sources' given twice in one mapping (first at line 2)"),
        ("datasets: [smoke-rmat]\nstrategies: [{name: test.knobby, knobs: {width: 8, width: 16}}]",
         "exp.yaml:2: key 'width' given twice in one mapping (first at line 2)"),
        ("datasets: [smoke-rmat]\nout: ''", "exp.yaml: out: expected a path, got an empty string"),
        ("datasets: [smoke-rmat]\ndata_dir: ''", "exp.yaml: data_dir: expected a path, got an empty string"),
    ],
)
def test_each_mistake_is_one_line(tmp_path, text, message):
    with pytest.raises(UserError) as err:
        load(tmp_path, text)
    text = str(err.value)
    assert message in text
    assert "\n" not in text


@pytest.mark.parametrize("flags, message", [
    ({"out": ""}, "--out: an empty value; expected a path"),
    ({"data_dir": ""}, "--dir: an empty value; expected a path"),
    ({"strategies": [""]}, "--strategy/-s: an empty value; expected a strategy name or pattern, or all"),
    ({"strategies": ["test.plain", ","]}, "--strategy/-s: an empty value"),
    ({"datasets": [" "]}, "--dataset/-d: an empty value; expected a dataset name"),
    ({"reorder": [""]}, "--reorder: an empty value"),
])
def test_an_empty_flag_value_is_refused_not_the_default(tmp_path, flags, message):
    """`-s ''` would otherwise run every strategy, `--out ''` write to the default place."""
    path = write(tmp_path, "datasets: [smoke-rmat]\nstrategies: [test.plain]")
    with pytest.raises(UserError, match=f"^{message}"):
        config_from_cli(str(path), **flags, dataset_check=check, registry=REGISTRY)


def test_missing_file_is_a_user_error(tmp_path):
    with pytest.raises(UserError, match="nope.yaml: no such run config"):
        load_config(tmp_path / "nope.yaml", dataset_check=check, registry=REGISTRY)


def test_flags_override_the_file_and_stand_alone(tmp_path):
    path = write(tmp_path, "datasets: [smoke-rmat]\nsources: 9\nstrategies: all")
    cfg = config_from_cli(
        str(path), strategies=["test.plain"], sources=3, fixed_sources=[4, 5],
        predecessors="true", rounds=2, warmup_ms=40, dataset_check=check, registry=REGISTRY,
    )
    assert [v.label for v in cfg.variants] == ["test.plain"] and (cfg.rounds, cfg.warmup_ms) == (2, 40)
    assert (cfg.sources, cfg.fixed_sources, cfg.modes, cfg.datasets[0].name) == (3, [4, 5], [True], "smoke-rmat")
    cfg = config_from_cli(None, datasets=["smoke-gnm,smoke-grid"], dataset_check=check, registry=REGISTRY)
    assert [d.name for d in cfg.datasets] == ["smoke-gnm", "smoke-grid"]
    assert cfg.name == "run" and len(cfg.variants) == 2
    with pytest.raises(UserError, match="command line: strategies\\[0\\]: unknown bfs strategy 'nope'"):
        config_from_cli(str(path), strategies=["nope"], dataset_check=check, registry=REGISTRY)
    with pytest.raises(UserError, match="give a run config"):
        config_from_cli(None, dataset_check=check, registry=REGISTRY)


# ---- problems ------------------------------------------------------------------------


def _variants(spec, problem=None):
    from gpubfs_cli.bench.config import expand_strategies

    return [(v.problem, v.strategy) for v in expand_strategies("x.yaml", spec, None, problem)]


def test_the_names_imply_the_problem():
    # cpu.dijkstra is SSSP's alone, so cpu.scipy beside it is SSSP's cpu.scipy
    assert _variants(["cpu.dijkstra", "cpu.scipy"]) == [("sssp", "cpu.dijkstra"), ("sssp", "cpu.scipy")]
    assert _variants(["cpu.scipy"]) == [("bfs", "cpu.scipy")]  # ambiguous alone: bfs
    assert _variants(["cpu.scipy"], "sssp") == [("sssp", "cpu.scipy")]


def test_one_run_holds_two_problems():
    got = _variants(["cpu.sequential", {"name": "cpu.dijkstra", "problem": "sssp"},
                     {"name": "cpu.scipy", "problem": "sssp"}, "cpu.scipy"])
    assert got == [("bfs", "cpu.sequential"), ("sssp", "cpu.dijkstra"), ("sssp", "cpu.scipy"),
                   ("bfs", "cpu.scipy")]


def test_old_names_run_under_the_new_ones():
    assert _variants(["hong.vwarp", "harish"]) == [("bfs", "classic.vwarp"), ("bfs", "classic.harish")]


def test_problem_mistakes_are_one_line():
    from gpubfs_cli.bench.config import expand_strategies

    with pytest.raises(UserError, match="x.yaml: problem: unknown problem 'ssp'"):
        expand_strategies("x.yaml", ["cpu.dijkstra"], None, "ssp")
    with pytest.raises(UserError, match=r"x.yaml: strategies\[0\]: unknown sssp strategy 'merrill.hybrid'"):
        expand_strategies("x.yaml", ["merrill.hybrid"], None, "sssp")


@pytest.mark.parametrize("text, message", [
    ("strategies: [{name: cpu.networkx, knobs: {max_edges: -5}}]",
     "exp.yaml: strategies[0].knobs.max_edges: cpu.networkx: expected a positive whole number, got -5"),
    ("strategies: [{name: cpu.parallel_td, knobs: {threads: -2}}]",
     "exp.yaml: strategies[0].knobs.threads: cpu.parallel_td: expected a whole number >= 0 (0: all of numba's "
     "threads), got -2"),
    ("strategies: [cpu.sequential, {name: merrill.multi_gpu_do, knobs: {alpha: [1.5, 0]}}]",
     "exp.yaml: strategies[1].knobs.alpha: merrill.multi_gpu_do: expected a positive number, got 0"),
    ("strategies: [{name: do.bfs, knobs: {hub_edges: -1}}]",
     "exp.yaml: strategies[0].knobs.hub_edges: do.bfs: expected a whole number from 0 to 2^31 - 1 (0: no hub "
     "pass), got -1"),
    ("strategies: [{name: do.bfs, knobs: {cta_size: 100}}]",
     "exp.yaml: strategies[0].knobs.cta_size: do.bfs: expected one of 128, 256, 512, 1024, got 100"),
    ("strategies: [{name: bfs4k.bfs4k, knobs: {K2: 101}}]",
     "exp.yaml: strategies[0].knobs.K2: bfs4k.bfs4k: expected a number from 0 to 100, got 101"),
    ("strategies: [{name: merrill.multi_gpu, knobs: {timeout_s: .nan}}]",
     "exp.yaml: strategies[0].knobs.timeout_s: merrill.multi_gpu: expected a positive number of seconds, got nan"),
    ("problem: sssp\nstrategies: [{name: raval.hp, knobs: {wd_threshold: -1}}]",
     "exp.yaml: strategies[0].knobs.wd_threshold: raval.hp: expected a whole number from 0 to 2^31 - 1 (0: "
     "never), got -1"),
    ("networkx_max_edges: -5", "exp.yaml: networkx_max_edges: expected a positive whole number, got -5"),
    ("gpus: 0", "exp.yaml: gpus: expected a positive whole number, got 0"),
    ("time_limit_s: .nan", "exp.yaml: time_limit_s: expected a positive number of seconds, got nan"),
    ("warmup: -1", "exp.yaml: warmup: expected 0 or more runs, got -1"),
    ("seed: -3", "exp.yaml: seed: expected a whole number >= 0, got -3"),
    ("datasets: [{name: smoke-gnm, seed: -1}]", "exp.yaml: datasets[0].seed: expected a whole number >= 0, got -1"),
    ("datasets: [smoke-gnm@seed=-1]",
     "exp.yaml: datasets[0]: expected NAME or NAME@seed=S with S a whole number >= 0, got 'smoke-gnm@seed=-1'"),
])
def test_each_numeric_knob_and_key_is_checked_against_its_range(tmp_path, text, message):
    """Real strategies' knobs and the config's numeric keys: a value out of range is one
    line naming the file, the key and what was expected, before anything runs."""
    if not text.startswith("datasets"):
        text = "datasets: [smoke-gnm]\n" + text
    path = write(tmp_path, text)
    with pytest.raises(UserError) as err:
        load_config(path, dataset_check=check)
    assert str(err.value) == message.replace("exp.yaml", str(path), 1)


def test_a_flag_out_of_range_names_the_command_line():
    with pytest.raises(UserError, match=r"^command line: gpus: expected a positive whole number, got -2$"):
        config_from_cli(None, datasets=["smoke-gnm"], strategies=["cpu.sequential"], gpus=-2, dataset_check=check)
