"""core/knobs.knobs_key: one spelling per knob set, whatever the order of its keys, and
never one for two sets that differ only in a value's type (True == 1 == 1.0 in Python);
and every numeric knob's Range: declared by every strategy, checked in one place."""

from __future__ import annotations

from gpubfs_cli.core.knobs import knobs_key


def test_equal_sets_in_any_order_share_a_key():
    assert knobs_key({"b": 1, "a": 2}) == knobs_key({"a": 2, "b": 1}) == '{"a": 2, "b": 1}'


def test_a_bool_an_int_and_a_float_of_equal_value_keep_their_own_keys():
    keys = [knobs_key({"k": v}) for v in (True, 1, 1.0)] * 2  # twice: the second time from the memo
    assert keys[:3] == ['{"k": true}', '{"k": 1}', '{"k": 1.0}'] and keys[3:] == keys[:3]


def test_lists_and_nested_values_are_spelled_too():
    assert knobs_key({"sizes": [1, 2], "x": None}) == '{"sizes": [1, 2], "x": null}'


# ---- every numeric knob carries its range, checked in one place ------------------

def _numeric_knobs():
    import dataclasses

    from gpubfs_cli.core.knobs import is_numeric, knob_range
    from gpubfs_cli.core.strategy import registry

    for problem, names in registry().items():
        for cls in names.values():
            for f in dataclasses.fields(cls.Knobs):
                if is_numeric(f.default) or knob_range(f) is not None:
                    yield problem, cls, f, knob_range(f)


def test_every_numeric_knob_of_every_strategy_declares_its_range():
    knobs = list(_numeric_knobs())
    assert len(knobs) > 80
    missing = [f"{cls.name}.{f.name}" for _, cls, f, rng in knobs if rng is None]
    assert missing == []


def test_each_range_agrees_with_its_strategy_s_own_checks():
    """The declared range's ends (or each listed value) make knobs; a step outside is
    refused by make_knobs in one line naming the strategy, the knob and the range."""
    import pytest

    from gpubfs_cli.core.strategy import make_knobs
    from gpubfs_cli.errors import UserError

    for _, cls, f, rng in _numeric_knobs():
        cast = float if isinstance(f.default, float) else int
        inside = list(rng.among) or [v for v in (rng.low, rng.high) if v is not None]
        for v in inside:
            if v == rng.low and rng.above:
                continue
            make_knobs(cls, {f.name: cast(v)})
        outside = [rng.low - 1] if rng.low is not None and not rng.among else []
        outside += [rng.high + 1] if rng.high is not None and not rng.among else []
        outside += [max(rng.among) + 1] if rng.among else []
        for v in [*outside, float("nan")]:
            with pytest.raises(UserError) as err:
                make_knobs(cls, {f.name: cast(v) if v == v else v})
            msg = str(err.value)
            assert msg.startswith(f"knobs of {cls.name}: {f.name}: expected "), msg
            assert "\n" not in msg


def test_a_range_says_what_it_expects():
    from gpubfs_cli.core.knobs import Range

    said = {
        Range(1): "a positive whole number",
        Range(0, means="0: all cores"): "a whole number >= 0 (0: all cores)",
        Range(-1): "a whole number >= -1",
        Range(1, 2**31 - 1, optional=True): "a whole number from 1 to 2^31 - 1, or null",
        Range(0, 2**62): "a whole number from 0 to 2^62",
        Range(0, above=True, whole=False, unit="seconds"): "a positive number of seconds",
        Range(0, whole=False, unit="milliseconds"): "0 or more milliseconds",
        Range(0, 100, whole=False): "a number from 0 to 100",
        Range(among=(128, 256)): "one of 128, 256",
    }
    for rng, text in said.items():
        assert rng.expected() == text
    assert Range(1).problem(0) == "expected a positive whole number, got 0"
    assert Range(1).problem(True) == "expected a positive whole number, got True"
    assert Range(1).problem(2.0) == "expected a positive whole number, got 2.0"
    assert Range(1).problem(10**400) is None  # too large for a float: still a whole number
    assert Range(0, whole=False).problem(float("inf")) == "expected a number >= 0, got inf"
    assert Range(0, whole=False, infinite=True).problem(float("inf")) is None
    assert Range(1, optional=True).problem(None) is None and Range(1).problem(None) == (
        "expected a positive whole number, got null")


def test_registration_refuses_a_numeric_knob_without_its_range():
    import dataclasses

    import pytest

    from gpubfs_cli.core.knobs import knob
    from gpubfs_cli.core.strategy import Strategy, register

    @dataclasses.dataclass(frozen=True)
    class Loose:
        depth: int = 3

    class Unbounded(Strategy):
        name = "test.unbounded"
        Knobs = Loose

    with pytest.raises(RuntimeError, match="knob depth declares no valid range"):
        register(Unbounded)
    with pytest.raises(ValueError, match="default -1 is outside its own range"):
        knob(-1, 0)
