"""NUMBA_NUM_THREADS checked before numba reads it.

numba reads the variable when it is first imported: 0 or a negative count makes that
import raise ValueError (a traceback from whatever module imported it first), and a value
that is not a number is dropped with a multi-line warning. gpubfs checks it once, before
any command runs, so either is one line naming the variable.
"""

from __future__ import annotations

import os

from gpubfs_cli.errors import UserError

VARIABLE = "NUMBA_NUM_THREADS"


def check_numba_threads(environ=None) -> None:
    """A UserError unless NUMBA_NUM_THREADS is unset or a whole number >= 1."""
    value = (os.environ if environ is None else environ).get(VARIABLE)
    if value is None:  # numba uses every core
        return
    try:
        count = int(value)  # as numba parses it (spaces around the digits pass)
    except ValueError:
        count = None
    if count is None or count < 1:
        raise UserError(f"{VARIABLE}={value!r}: expected a whole number of threads >= 1 "
                        f"(or unset it to use every core)")
