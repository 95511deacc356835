// A top-down level over tiles of its frontier queue (do.cu, msbfs.cu): each of the
// `parts` CTAs sharing the level takes tiles of at most BLOCK entries, a thread an entry,
// and the CTA gathers the tile's lists load-balanced (expand.cuh). Tiles shrink while the
// frontier is under BLOCK per CTA, so that every CTA gets one rather than a few CTAs all.
//
// The customisation points, as Gunrock composes its operators:
//   load(i, u, start, len)   entry i of the queue as a list: vertex u, its first edge
//                            and length (len 0: nothing to gather)
//   sink.emit(v, u, active)  what is done with each gathered edge (expand.cuh's sink)
// top_down_tiles loads from a vertex queue and leaves long lists to a hub pass
// (spread.cuh), so that a hub is not one CTA's.
#pragma once

#include "common.cuh"
#include "expand.cuh"

// The tile of each of `parts` CTAs sharing `count` entries: an equal share rounded up to
// a multiple of MIN (delta.cu: whole warps), at least MIN and at most BLOCK.
template <int BLOCK, int MIN = 1>
__device__ __forceinline__ int tile_share(long long count, int parts) {
    static_assert(MIN >= 1 && MIN <= BLOCK, "a tile of 1 to BLOCK entries");
    const long long t = ((count + parts - 1) / parts + MIN - 1) / MIN * MIN;
    return (int)max((long long)MIN, min((long long)BLOCK, t));
}

// Every thread of CTAs 0 .. parts - 1: entries 0 .. count - 1 by tiles. N: the count's
// type (the caller's, so that the loop's arithmetic is the one it had).
template <int BLOCK, class O, class N, class Load, class Sink>
__device__ __forceinline__ void gather_tiles(GatherShared<BLOCK, O>& sh, const int* __restrict__ col, N count,
                                             int parts, Load& load, Sink& sink) {
    const int tile = tile_share<BLOCK>((long long)count, parts);
    const int ntiles = (int)((count + tile - 1) / tile);
    for (int t = blockIdx.x; t < ntiles; t += parts) {
        const int i = t * tile + (int)threadIdx.x;
        int u = -1;
        O start = 0;
        int len = 0;
        if ((int)threadIdx.x < tile && i < count) load(i, u, start, len);
        gather_lists<BLOCK>(sh, col, u, start, len, sink);
    }
}

// A top-down level's entry: vertex in[i] and its out-list. A list of hub_edges or more
// (S.hub_edges; 0: none) goes to the hub queue instead while it has room (the first CAP,
// reserved on S.hub_slot(L), stored in S.hubs(); more such lists are many CTAs' tiles
// anyway). With COUNT, each entry adds one to c.vertices. The family's state is read in
// place, as its own loop would: copies of its fields held across the gathering cost
// registers, and spills where the launch bounds cap them.
template <int CAP, bool COUNT, class State, class Counts>
struct TopDownLoad {
    const State& S;
    const int* in;
    int L;
    Counts& c;
    template <class O>
    __device__ __forceinline__ void operator()(int i, int& u, O& start, int& len) {
        u = __ldcg(in + i);
        start = S.row[u];
        len = (int)(S.row[u + 1] - start);
        if (COUNT) ++c.vertices;
        if (S.hub_edges > 0 && len >= S.hub_edges) {
            const unsigned long long h = atomicAdd(S.hub_slot(L), 1ull);
            if (h < CAP) {
                S.hubs()[h] = u;
                len = 0;
            }
        }
    }
};

// Every thread of the grid: the nf vertices of queue `in` (level L), their lists to
// `sink` or, hub_edges or more long, to the hub queue. State: the family's, with row,
// col, hub_edges, hub_slot(L) and hubs(); Counts: with vertices.
template <int BLOCK, int CAP, bool COUNT, class O, class State, class Counts, class Sink>
__device__ __forceinline__ void top_down_tiles(GatherShared<BLOCK, O>& sh, const State& S, int L, const int* in,
                                               int nf, Counts& c, Sink& sink) {
    TopDownLoad<CAP, COUNT, State, Counts> load{S, in, L, c};
    gather_tiles<BLOCK>(sh, S.col, nf, (int)gridDim.x, load, sink);
}
