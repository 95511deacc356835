// A few frontier vertices' adjacency lists spread over every warp of the grid: every CTA
// scans their out-degrees into shared memory (spread_scan), then each warp of the grid
// takes 32 consecutive edges of the concatenated lists per round and finds each edge's
// vertex by binary search (spread_edges). Tiling by vertices leaves a hub's list to one
// CTA however long it is; here its edges go to every warp. Used by do.cu and msbfs.cu
// (whole out-lists of row), and by delta.cu (a part of each list: spread_scan_of and
// spread_edges_of take where a vertex's list starts and how long it is from `lists`).
#pragma once

#include "common.cuh"
#include "expand.cuh"
#include "mergepath.cuh"
#include "persistent.cuh"

// The scanned lists (up to CAP of them): where each starts in the concatenation, and
// its vertex. O: the edge offset type.
template <int CAP, class O>
struct SpreadLists {
    O off[CAP + 1];
    int v[CAP];
};

// A vertex's whole out-list: where it starts in col and how long it is.
template <class O>
struct WholeLists {
    const O* __restrict__ row;
    __device__ __forceinline__ O start(int u) const { return row[u]; }
    __device__ __forceinline__ int len(int u) const { return (int)(row[u + 1] - row[u]); }
};

// Every thread of every CTA: in[0..nf) (nf <= the lists' CAP) and their lists' lengths
// (lists.len) into `off` and `v`; returns the edges of all the lists. `scratch`:
// block_exclusive_scan_t's (33 values of O).
template <int BLOCK, class O, class Lists>
__device__ __forceinline__ O spread_scan_of(const Lists& lists, const int* in, int nf, O* off, int* v, O* scratch) {
    O carry = 0;  // up to CAP whole lists: offset-wide
    for (int base = 0; base < nf; base += BLOCK) {
        const int i = base + threadIdx.x;
        int u = -1, len = 0;
        if (i < nf) {
            u = __ldcg(in + i);
            len = lists.len(u);
        }
        O total;
        const O ex = block_exclusive_scan_t<O>(len, scratch, &total);
        if (i < nf) {
            off[i] = carry + ex;
            v[i] = u;
        }
        carry += total;
        __syncthreads();  // block_exclusive_scan's scratch is reused next round
    }
    return carry;
}

// Every thread of the grid: the `total` edges of the nf lists spread_scan put in `off`
// and `v`, 32 consecutive ones per warp and round, to the sink as expand.cuh's stages
// hand them (col's entry, its list's vertex, its offset for a sink that takes offsets),
// warp-converged (bounds are warp-uniform).
template <int BLOCK, class O, class Lists, class Sink>
__device__ __forceinline__ void spread_edges_of(const Lists& lists, const int* __restrict__ col, const O* off,
                                                const int* v, int nf, O total, Sink& sink) {
    const int lane = lane_id();
    const int gwarp = grid_warp<BLOCK>(), nwarps = grid_warps<BLOCK>();
    for (O b = (O)gwarp << 5; b < total; b += (O)nwarps << 5) {
        const O e = b + lane;
        const bool a = e < total;
        int w = -1, u = -1;
        O at = 0;
        if (a) {
            const int lo = mergepath_vertical(off, nf, e) - 1;  // the last list starting <= e owns it
            u = v[lo];
            at = lists.start(u) + (e - off[lo]);
            w = col[at];
        }
        sink_emit(sink, w, u, 0, at, a);
    }
}

// The whole out-lists of row (do.cu, msbfs.cu).
template <int BLOCK, class O>
__device__ __forceinline__ O spread_scan(const O* __restrict__ row, const int* in, int nf, O* off, int* v,
                                         O* scratch) {
    return spread_scan_of<BLOCK>(WholeLists<O>{row}, in, nf, off, v, scratch);
}

template <int BLOCK, class O, class Sink>
__device__ __forceinline__ void spread_edges(const O* __restrict__ row, const int* __restrict__ col, const O* off,
                                             const int* v, int nf, O total, Sink& sink) {
    spread_edges_of<BLOCK>(WholeLists<O>{row}, col, off, v, nf, total, sink);
}
