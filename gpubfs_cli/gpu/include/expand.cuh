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
// reservations). merrill.cu keeps its own copy, specialised for its edge queues; it
// could use this one.
#pragma once

#include "common.cuh"

template <int BLOCK>
struct GatherShared {
    int scratch[33];       // block_exclusive_scan
    int bcast[4];          // the CTA-wide list: owner thread, start, length, vertex
    int win_src[BLOCK];    // scan gathering: column-index offsets of this round
    int win_par[BLOCK];    // scan gathering: the vertex each offset came from
};

template <int BLOCK, class Sink>
__device__ __forceinline__ void gather_lists(GatherShared<BLOCK>& sh, const int* __restrict__ col,
                                             int u, int start, int len, Sink& sink) {
    const int tid = threadIdx.x, lane = tid & 31;
    // CTA: one long list at a time (every thread runs the same number of rounds).
    while (__syncthreads_or(len >= BLOCK)) {
        if (len >= BLOCK) sh.bcast[0] = tid;
        __syncthreads();
        if (tid == sh.bcast[0]) {
            sh.bcast[1] = start;
            sh.bcast[2] = len;
            sh.bcast[3] = u;
            len = 0;
        }
        __syncthreads();
        const int cs = sh.bcast[1], cl = sh.bcast[2], cu = sh.bcast[3];
        for (int i = tid; i - tid < cl; i += BLOCK) {
            const bool a = i < cl;
            sink.emit(a ? col[cs + i] : -1, cu, a);
        }
    }
    // Warp: lanes vie for the warp; the winner's list is strip-mined by all 32.
    for (;;) {
        const unsigned int want = __ballot_sync(GPUBFS_FULL_MASK, len >= 32);
        if (!want) break;
        const int leader = __ffs(want) - 1;
        const int ws = __shfl_sync(GPUBFS_FULL_MASK, start, leader);
        const int wl = __shfl_sync(GPUBFS_FULL_MASK, len, leader);
        const int wu = __shfl_sync(GPUBFS_FULL_MASK, u, leader);
        if (lane == leader) len = 0;
        for (int i = lane; i - lane < wl; i += 32) {
            const bool a = i < wl;
            sink.emit(a ? col[ws + i] : -1, wu, a);
        }
    }
    // Scan: the short lists, packed BLOCK neighbours per round.
    int total;
    const int ex = block_exclusive_scan(len, sh.scratch, &total);
    int r = ex;
    const int end = ex + len;
    for (int base = 0; base < total; base += BLOCK) {
        for (; r < end && r - base < BLOCK; ++r) {
            sh.win_src[r - base] = start + (r - ex);
            sh.win_par[r - base] = u;
        }
        __syncthreads();
        const bool a = base + tid < total;
        const int src = a ? sh.win_src[tid] : 0;
        const int par = a ? sh.win_par[tid] : -1;
        __syncthreads();  // the window is rewritten next round
        sink.emit(a ? col[src] : -1, par, a);
    }
}
