"""compare_and_swap for numba's CPU target: numba has atomics only on CUDA, so this
intrinsic emits LLVM's `cmpxchg` on one array element (a `lock cmpxchg` on x86-64).

The parallel BFS claims a vertex with it, as gapbs does with __sync_bool_compare_and_swap:
of the threads that find the same unvisited vertex in one level, exactly one wins, so the
next frontier holds each vertex once and `reached` is an exact count. Relaxed ordering
is enough: what a claim publishes (distance, parent) is read only after the level's
parallel loop has joined, and that join orders every write before it.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array


@intrinsic
def compare_and_swap(typingctx, array, index, expected, value):
    """`array[index] = value` if it still holds `expected`, atomically; True when this
    call stored. No bounds or negative-index check: the caller passes a valid index."""
    if not (isinstance(array, types.Array) and isinstance(array.dtype, types.Integer)
            and isinstance(index, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        arrty, idxty, expty, valty = signature.args
        ary, idx, exp, val = args
        arr = make_array(arrty)(context, builder, ary)
        idx = context.cast(builder, idx, idxty, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, arrty, arr, [idx])
        exp = context.cast(builder, exp, expty, arrty.dtype)
        val = context.cast(builder, val, valty, arrty.dtype)
        pair = builder.cmpxchg(ptr, exp, val, "monotonic", "monotonic")
        return builder.extract_value(pair, 1)

    return types.boolean(array, index, expected, value), codegen
