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
# numba starts that many threads at the first parallel call: a few per core oversubscribe
# the machine; ten billion ended in the kernel's OOM killer, not in one line.
MAX_PER_CORE = 64


def check_numba_threads(environ=None) -> None:
    """A UserError unless NUMBA_NUM_THREADS is unset or a whole number from 1 to
    MAX_PER_CORE per core."""
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
    cores = os.cpu_count() or 1
    if count > MAX_PER_CORE * cores:
        raise UserError(f"{VARIABLE}={value!r}: more than {MAX_PER_CORE} threads per core of the {cores} "
                        f"here (at most {MAX_PER_CORE * cores:,}; or unset it to use every core)")
