"""Counter-based random numbers: the same bits on numpy, cupy and numba.

Every draw is a pure function of (seed, stream, index). A stream key is derived from the
seed and small integer stream ids on the host (Python ints); draw `i` of a stream is
splitmix64's finalizer applied to `key + i * GAMMA` (mod 2**64). Nothing depends on the
order draws are made in, so a generator can work in chunks, on any device, and redraw
rejected samples in numbered rounds, and still produce the same edges.

Conversions used by the generators (integer and exact float64 only, so numpy, cupy and
numba agree to the bit):
  unit53(x)    uniform float64 in [0, 1) from the top 53 bits
  hi32/lo32    two uniform float64 in [0, 1) from one draw (32 bits each)
  below(x, n)  uniform integer in [0, n), n < 2**32: floor(x * n / 2**64) (Lemire)
"""

from __future__ import annotations

import numba
import numpy as np

from gpubfs_cli.graph import interruptible

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
MUL1 = 0xBF58476D1CE4E5B9
MUL2 = 0x94D049BB133111EB

_G = np.uint64(GAMMA)
_M1 = np.uint64(MUL1)
_M2 = np.uint64(MUL2)
_S11, _S27, _S30, _S31, _S32 = (np.uint64(s) for s in (11, 27, 30, 31, 32))
_LO32 = np.uint64(0xFFFFFFFF)
TWO_M53 = 2.0**-53
TWO_M32 = 2.0**-32


def mix_int(z: int) -> int:
    """splitmix64 finalizer on a Python int (host side: keys)."""
    z &= MASK
    z = ((z ^ (z >> 30)) * MUL1) & MASK
    z = ((z ^ (z >> 27)) * MUL2) & MASK
    return z ^ (z >> 31)


def stream_key(seed: int, *ids: int) -> int:
    """The key of stream `ids` under `seed` (a uint64 as a Python int)."""
    k = mix_int(int(seed) ^ 0x6A09E667F3BCC909)
    for s in ids:
        k = sub_key(k, s)
    return k


def sub_key(key: int, s: int) -> int:
    """Key of sub-stream `s` of `key` (e.g. redraw round s); sub_key_nb is the same."""
    return mix_int(key ^ mix_int((int(s) + 1) * GAMMA))


# ---- array versions (numpy or cupy; `xp` is the module) ----------------------------

def mix(z):
    """splitmix64 finalizer on a uint64 array, in place; returns it."""
    z ^= z >> _S30
    z *= _M1
    z ^= z >> _S27
    z *= _M2
    z ^= z >> _S31
    return z


def draws(key: int, index, xp):
    """Draw `index` (uint64 array) of the stream with `key`: a new uint64 array."""
    z = index.astype(xp.uint64) * _G
    z += np.uint64(key)
    return mix(z)


def draws_range(key: int, start: int, count: int, xp, step: int = 1):
    """Draws start, start+step, ... (count of them)."""
    idx = xp.arange(count, dtype=xp.uint64)
    if step != 1:
        idx *= np.uint64(step)
    idx += np.uint64(start)
    return draws(key, idx, xp)


def unit53(x, xp):
    return (x >> _S11).astype(xp.float64) * TWO_M53


def hi32(x, xp):
    return (x >> _S32).astype(xp.float64) * TWO_M32


def lo32(x, xp):
    return (x & _LO32).astype(xp.float64) * TWO_M32


def below(x, n: int, xp):
    """floor(x * n / 2**64) for n < 2**32, exact in uint64 arithmetic."""
    nn = np.uint64(n)
    lo = (x & _LO32) * nn
    lo >>= _S32
    hi = (x >> _S32) * nn
    hi += lo
    hi >>= _S32
    return hi


def permutation(key: int, n: int, xp):
    """A uniformly random permutation of 0..n-1 (int64), the same on every backend.

    Sorting unique keys (random high 32 bits, the index in the low 32) fixes the order
    whatever sort algorithm the backend uses.
    """
    if n >= 2**32:
        raise ValueError("permutation supports n < 2**32")
    k = draws_range(key, 0, n, xp)
    k >>= _S32
    k <<= _S32
    k |= xp.arange(n, dtype=xp.uint64)
    interruptible.sort(k)
    k &= _LO32
    return k.astype(xp.int64)


# ---- numba scalar versions (the same arithmetic, for CPU hot loops) ---------------

@numba.njit(inline="always")
def mix_nb(z):
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@numba.njit(inline="always")
def draw_nb(key, i):
    """key: uint64; i: uint64 index."""
    return mix_nb(key + i * _G)


@numba.njit(inline="always")
def unit53_nb(x):
    return np.float64(x >> _S11) * TWO_M53


@numba.njit(inline="always")
def hi32_nb(x):
    return np.float64(x >> _S32) * TWO_M32


@numba.njit(inline="always")
def lo32_nb(x):
    return np.float64(x & _LO32) * TWO_M32


@numba.njit(inline="always")
def below_nb(x, n):
    """n: uint64 < 2**32."""
    lo = ((x & _LO32) * n) >> _S32
    return ((x >> _S32) * n + lo) >> _S32


@numba.njit(inline="always")
def sub_key_nb(key, s):
    """sub_key on uint64 scalars: key, s."""
    return mix_nb(key ^ mix_nb((s + np.uint64(1)) * _G))
