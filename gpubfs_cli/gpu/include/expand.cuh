// Load-balanced gathering of adjacency lists, generic over what happens to each
// neighbour (Merrill, Garland, Grimshaw PPoPP'12, section 4.1, "scan+warp+CTA"):
// lists of at least BLOCK neighbours are strip-mined by the whole CTA, one list at a
// time; lists of 32 or more by a warp; the rest are packed through shared memory by a
// CTA prefix sum, BLOCK neighbours per round. Every thread of the CTA calls
// gather_lists with its own list (len 0 for none).
//
// The sink is a functor with `void emit(int v, int u, bool active)`: neighbour v of u
// (active false for padding lanes). It is called warp-converged (every lane of a warp
// the same number of times), so a sink may use warp collectives (ballots for queue
// reservations). Optional members: `static constexpr bool kPositions = true` makes it
// `emit(v, u, pos, active)`, pos the neighbour's place in an output the caller reserved
// (from the offsets it passes the stages); `kParents = false` says it ignores u, so the
// scan window stores none; `kOffsets = true` makes it `emit(v, u, off, active)`, off the
// neighbour's offset in the column array (a sink that reads a weight beside it).
//
// gather_lists runs the three stages (gather_cta, gather_warp, gather_scan) with one
// prefix sum; merrill.cu composes them per its gather knob, with positions from its own
// prefix sums and one queue reservation a tile. The stages' `sh` is a GatherShared or
// any struct with its members (merrill.cu's, laid out among its own fields).
//
// A list's start (an edge offset) has the caller's type O: int, or long long for graphs
// of 2^31 edges or more, whose `sh` must carry starts as wide (bcast, win_src:
// GatherShared<BLOCK, long long>). Lengths and positions stay int.
#pragma once

#include "common.cuh"

template <int BLOCK, class O = int>
struct GatherShared {
    int scratch[33];       // block_exclusive_scan
    O bcast[5];            // the CTA-wide list: owner thread, start, length, vertex, position
    O win_src[BLOCK];      // scan gathering: column-index offsets of this round
    int win_par[BLOCK];    // scan gathering: the vertex each offset came from
};

// A sink's optional flag: NAME<S>::value is S::MEMBER where the sink declares it, else DEFAULT.
#define GPUBFS_SINK_FLAG(NAME, MEMBER, DEFAULT)                 \
    template <class S, class = void>                            \
    struct NAME {                                               \
        static constexpr bool value = DEFAULT;                  \
    };                                                          \
    template <class S>                                          \
    struct NAME<S, decltype(void(S::MEMBER))> {                 \
        static constexpr bool value = S::MEMBER;                \
    };
GPUBFS_SINK_FLAG(SinkPositions, kPositions, false)
GPUBFS_SINK_FLAG(SinkParents, kParents, true)
GPUBFS_SINK_FLAG(SinkOffsets, kOffsets, false)
#undef GPUBFS_SINK_FLAG

// Neighbour v of u, at position pos when the sink takes positions.
template <class Sink>
__device__ __forceinline__ void sink_emit(Sink& sink, int v, int u, int pos, bool active) {
    if constexpr (SinkPositions<Sink>::value) sink.emit(v, u, pos, active);
    else sink.emit(v, u, active);
}

// ... read from the column array at offset off, which a sink that takes offsets gets.
template <class Sink, class O>
__device__ __forceinline__ void sink_emit(Sink& sink, int v, int u, int pos, O off, bool active) {
    if constexpr (SinkOffsets<Sink>::value) sink.emit(v, u, off, active);
    else sink_emit(sink, v, u, pos, active);
}

// CTA: lists of at least BLOCK neighbours, one at a time (every thread runs the same
// number of rounds); the owner's len becomes 0. pos: where the thread's list goes.
template <int BLOCK, class Sh, class O, class Sink>
__device__ __forceinline__ void gather_cta(Sh& sh, const int* __restrict__ col, int u,
                                           O start, int& len, int pos, Sink& sink) {
    static_assert(sizeof(sh.bcast[0]) >= sizeof(O), "bcast holds a list's start");
    constexpr bool P = SinkPositions<Sink>::value;
    const int tid = threadIdx.x;
    while (__syncthreads_or(len >= BLOCK)) {
        if (len >= BLOCK) sh.bcast[0] = tid;
        __syncthreads();
        if (tid == sh.bcast[0]) {
            sh.bcast[1] = start;
            sh.bcast[2] = len;
            sh.bcast[3] = u;
            if (P) sh.bcast[4] = pos;
            len = 0;
        }
        __syncthreads();
        const O cs = sh.bcast[1];
        const int cl = (int)sh.bcast[2], cu = (int)sh.bcast[3];
        const int cp = P ? (int)sh.bcast[4] : 0;
        for (int i = tid; i - tid < cl; i += BLOCK) {
            const bool a = i < cl;
            sink_emit(sink, a ? col[cs + i] : -1, cu, cp + i, cs + i, a);
        }
    }
}

// Warp: lanes with a list of at least MIN neighbours vie for the warp; the winner's list
// is strip-mined by all 32 and its len becomes 0.
template <int MIN = 32, class O, class Sink>
__device__ __forceinline__ void gather_warp(const int* __restrict__ col, int u, O start, int& len, int pos,
                                            Sink& sink) {
    constexpr bool P = SinkPositions<Sink>::value;
    const int lane = threadIdx.x & 31;
    for (;;) {
        const unsigned int want = __ballot_sync(GPUBFS_FULL_MASK, len >= MIN);
        if (!want) break;
        const int leader = __ffs(want) - 1;
        const O ws = __shfl_sync(GPUBFS_FULL_MASK, start, leader);
        const int wl = __shfl_sync(GPUBFS_FULL_MASK, len, leader);
        const int wu = __shfl_sync(GPUBFS_FULL_MASK, u, leader);
        const int wp = P ? __shfl_sync(GPUBFS_FULL_MASK, pos, leader) : 0;
        if (lane == leader) len = 0;
        for (int i = lane; i - lane < wl; i += 32) {
            const bool a = i < wl;
            sink_emit(sink, a ? col[ws + i] : -1, wu, wp + i, ws + i, a);
        }
    }
}

// Scan: the lists packed BLOCK neighbours per round through shared memory. ex and total:
// the CTA's exclusive prefix sum of len and its total; pos: where the first packed
// neighbour goes.
template <int BLOCK, class Sh, class O, class Sink>
__device__ __forceinline__ void gather_scan(Sh& sh, const int* __restrict__ col, int u,
                                            O start, int len, int ex, int total, int pos, Sink& sink) {
    static_assert(sizeof(sh.win_src[0]) >= sizeof(O), "win_src holds column-index offsets");
    constexpr bool PAR = SinkParents<Sink>::value;
    const int tid = threadIdx.x;
    int r = ex;
    const int end = ex + len;
    for (int base = 0; base < total; base += BLOCK) {
        for (; r < end && r - base < BLOCK; ++r) {
            sh.win_src[r - base] = start + (r - ex);
            if (PAR) sh.win_par[r - base] = u;
        }
        __syncthreads();
        const bool a = base + tid < total;
        const O src = a ? sh.win_src[tid] : O(0);
        const int par = (a && PAR) ? sh.win_par[tid] : -1;
        __syncthreads();  // the window is rewritten next round
        sink_emit(sink, a ? col[src] : -1, par, pos + base + tid, src, a);
    }
}

template <int BLOCK, class O, class Sink>
__device__ __forceinline__ void gather_lists(GatherShared<BLOCK, O>& sh, const int* __restrict__ col,
                                             int u, O start, int len, Sink& sink) {
    static_assert(!SinkPositions<Sink>::value, "a sink with positions needs the stages' offsets");
    gather_cta<BLOCK>(sh, col, u, start, len, 0, sink);
    gather_warp(col, u, start, len, 0, sink);
    int total;
    const int ex = block_exclusive_scan(len, sh.scratch, &total);
    gather_scan<BLOCK>(sh, col, u, start, len, ex, total, 0, sink);
}
