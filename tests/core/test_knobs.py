"""core/knobs.knobs_key: one spelling per knob set, whatever the order of its keys, and
never one for two sets that differ only in a value's type (True == 1 == 1.0 in Python)."""

from __future__ import annotations

from gpubfs_cli.core.knobs import knobs_key


def test_equal_sets_in_any_order_share_a_key():
    assert knobs_key({"b": 1, "a": 2}) == knobs_key({"a": 2, "b": 1}) == '{"a": 2, "b": 1}'


def test_a_bool_an_int_and_a_float_of_equal_value_keep_their_own_keys():
    keys = [knobs_key({"k": v}) for v in (True, 1, 1.0)] * 2  # twice: the second time from the memo
    assert keys[:3] == ['{"k": true}', '{"k": 1}', '{"k": 1.0}'] and keys[3:] == keys[:3]


def test_lists_and_nested_values_are_spelled_too():
    assert knobs_key({"sizes": [1, 2], "x": None}) == '{"sizes": [1, 2], "x": null}'
