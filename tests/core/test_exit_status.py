"""errors.exit_status, the scripts' one way out: a step's own status, or a UserError's
code after one line on stderr; any other error is not swallowed."""

from __future__ import annotations

import pytest

from gpubfs_cli.errors import UserError, exit_status


def test_the_step_s_own_status():
    assert exit_status(lambda: None) == 0
    assert exit_status(lambda: 1) == 1


def test_a_user_error_is_one_line_and_its_code(capsys):
    def step():
        raise UserError("results.json: no sample\nof that kind")

    assert exit_status(step) == UserError.exit_code == 2
    err = capsys.readouterr().err
    assert err == "error: results.json: no sample\\nof that kind\n"


def test_other_errors_propagate():
    def step():
        raise KeyError("bug")

    with pytest.raises(KeyError):
        exit_status(step)
