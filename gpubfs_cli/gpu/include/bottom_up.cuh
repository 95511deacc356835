// A bottom-up level's parent search for the 32 vertices of a warp (Beamer et al.'s
// bottom-up step): each unvisited vertex scans its in-neighbours for one in the frontier
// bitmap and stops at the first. A lane scans its own vertex's list for `thread_edges`
// in-edges (0: its whole list); the lists still unfinished then go to the whole warp,
// one list at a time, 32 in-edges a step, so on a skewed graph a hub's list costs its warp 1/32 of what one
// thread would spend and no lane waits on another's hub. The position found is the one
// a serial scan finds (the lowest lane of the first step with a hit): parents and the
// edges-examined counts do not depend on thread_edges.
//
// Every lane of the warp calls it (warp-converged: it holds ballots); `want` false for a
// lane with no vertex or one already visited. Returns the position of the first in-edge
// from the frontier in [s, e), else e (also for a lane that did not want one).
#pragma once

#include "common.cuh"

#ifndef BU_BATCH
#define BU_BATCH 4  // in-edges a lane probes at once past the first (knob probe_batch; msbfs.cu too)
#endif

#ifndef BU_FRONT_L1
#define BU_FRONT_L1 0  // 1: frontier words cached in L1 too (knob frontier_cache l1; msbfs.cu too)
#endif

// A frontier word, as a bottom-up lane reads it. The frontier is written only in earlier
// levels, before a grid barrier whose acquire fence leaves no stale line in any L1, so a
// build may read it through L1 (BU_FRONT_L1): a graph of 2 M vertices has a 256 KB
// bitmap, which L1 holds much of where L2 is a round trip of hundreds of cycles away.
template <class T>
__device__ __forceinline__ T frontier_word(const T* p) {
#if BU_FRONT_L1
    return __ldca(p);
#else
    return __ldcg(p);
#endif
}

template <class O>
__device__ __forceinline__ bool in_frontier(const unsigned int* front, const int* in_col, O k) {
    const int u = in_col[k];
    return (frontier_word(front + (u >> 5)) >> (u & 31)) & 1u;
}

template <class O>
__device__ O bottom_up_search(bool want, O s, O e, const int* __restrict__ in_col, const unsigned int* front,
                              int thread_edges) {
    const int lane = lane_id();
    O k = want ? s : e;
    bool found = false;
    if (want) {
        const O stop = thread_edges > 0 && e - s > (O)thread_edges ? s + (O)thread_edges : e;
        // The first in-edge alone (on skewed graphs most vertices find their parent there),
        // then BU_BATCH at a time: a batch's loads do not wait on each other, so a lane
        // pays the two dependent loads of an edge once per batch, not once per edge.
        if (k < stop) {
            if (in_frontier(front, in_col, k)) found = true;
            else ++k;
        }
        while (!found && k < stop) {
            // Every probe of a batch is loaded unconditionally (past `stop` it repeats the
            // last in-edge, masked out below), so its BU_BATCH column loads and then its
            // BU_BATCH bitmap loads issue back to back instead of behind branches.
            int u[BU_BATCH];
#pragma unroll
            for (int j = 0; j < BU_BATCH; ++j) u[j] = in_col[k + (O)j < stop ? k + (O)j : stop - 1];
            unsigned int hits = 0;
#pragma unroll
            for (int j = 0; j < BU_BATCH; ++j)
                hits |= ((frontier_word(front + (u[j] >> 5)) >> (u[j] & 31)) & 1u) << j;
            if (stop - k < (O)BU_BATCH) hits &= (1u << (int)(stop - k)) - 1u;
            if (hits) {
                k += (O)(__ffs(hits) - 1);
                found = true;
            } else {
                k += BU_BATCH;
            }
        }
        if (!found) k = stop;
    }
    for (unsigned int rest = __ballot_sync(GPUBFS_FULL_MASK, !found && k < e); rest; rest &= rest - 1) {
        const int j = __ffs(rest) - 1;
        const O ej = __shfl_sync(GPUBFS_FULL_MASK, e, j);
        O kj = ej;
        for (O b = __shfl_sync(GPUBFS_FULL_MASK, k, j); b < ej; b += 32) {
            const unsigned int hits = __ballot_sync(GPUBFS_FULL_MASK, b + lane < ej && in_frontier(front, in_col, b + lane));
            if (hits) {
                kj = b + (__ffs(hits) - 1);
                break;
            }
        }
        if (lane == j) k = kj;
    }
    return k;
}
