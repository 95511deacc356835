// Raval, Nasre, Kumar, Vasudevan, Vadhiyar, Pingali, "Dynamic Load Balancing Strategies
// for Graph Applications on GPUs": the data-driven relaxation of BFS and SSSP (sections
// II-III) under five work distributions, one kernel file for both problems:
//   RAVAL_SSSP=1  int64 distances (unsigned long long here), weights int32 or int64
//                 (RAVAL_WEIGHT64), a node re-enters the worklist when its distance drops;
//   RAVAL_SSSP=0  BFS: int32 levels, every edge weighs 1.
// Unreached is all ones: DIST_INF compares above every distance as an unsigned value
// and reads as -1 through the int32/int64 array the launcher returns, so no final pass
// converts it.
//
// Worklists hold node ids (BS, WD, NS, HP) or edge ids (EP). A round reads one list and
// appends to the other with atomicAdd on a control word (raval.cuh: CTL_*). Duplicates:
// BFS pushes a vertex only from the atomicMin that took it from unreached, which happens
// once (every round's list is exactly one level). SSSP can lower a vertex several times
// in one round, so stamp[v] (the last round v was pushed for) turns the later pushes
// away: each list holds a vertex at most once and is bounded by n (EP: m edges).
#include "common.cuh"
#include "raval.cuh"

#ifndef RAVAL_SSSP
#define RAVAL_SSSP 0
#endif
#ifndef RAVAL_WEIGHT64
#define RAVAL_WEIGHT64 0
#endif

#if RAVAL_SSSP
typedef unsigned long long dist_t;
#if RAVAL_WEIGHT64
typedef long long weight_t;
#else
typedef int weight_t;
#endif
#else
typedef unsigned int dist_t;
typedef int weight_t;  // never read: BFS passes no weights
#endif
#define DIST_INF (~(dist_t)0)

// The graph and the state every relaxation kernel takes, in this order.
#define RELAX_PARAMS                                                                        \
    const long long *__restrict__ row_offsets, const int *__restrict__ col_indices,         \
        const weight_t *__restrict__ weights, dist_t *dist, int *stamp, int *ctl

__device__ __forceinline__ dist_t edge_weight(const weight_t* weights, long long e) {
#if RAVAL_SSSP
    return (dist_t)weights[e];
#else
    (void)weights;
    (void)e;
    return 1;
#endif
}

// Lowers dist[v] to nd; true when this call lowered it. The plain read filters out most
// hopeless updates; a stale value is only ever too high, so the filter never skips one
// that the atomic would have made.
__device__ __forceinline__ bool lower(dist_t* dist, long long v, dist_t nd) {
    if (nd >= dist[v]) return false;
    return nd < atomicMin(&dist[v], nd);
}

// True for the first push of v in this round (SSSP); BFS needs no stamp (see above).
__device__ __forceinline__ bool claim(int* stamp, long long v, int round) {
#if RAVAL_SSSP
    return atomicMax(&stamp[v], round + 1) <= round;
#else
    (void)stamp;
    (void)v;
    (void)round;
    return true;
#endif
}

// Where a relaxation pushes what it lowered.
struct Relax {
    const long long* row_offsets;
    dist_t* dist;
    int* stamp;
    int round;
    int* out_items;
    long long* out_counts;  // WD, HP: the out-degree beside each node (null: not kept)
    int* out_size;
    const int* child_off;   // NS, atomic propagation: v's children are n + child_off[v] ..
    int n;
};

__device__ __forceinline__ void push(const Relax& r, int v) {
    const int pos = atomicAdd(r.out_size, 1);
    r.out_items[pos] = v;
    if (r.out_counts != nullptr) r.out_counts[pos] = r.row_offsets[v + 1] - r.row_offsets[v];
}

__device__ __forceinline__ void relax(const Relax& r, int v, dist_t nd) {
    if (!lower(r.dist, v, nd)) return;
    if (claim(r.stamp, v, r.round)) push(r, v);
    if (r.child_off != nullptr) {
        // NS (section III-B): a parent's distance is reflected onto its children with
        // one more atomic each, whenever the parent is updated.
        const int end = r.child_off[v + 1];
        for (int k = r.child_off[v]; k < end; ++k) {
            const int c = r.n + k;
            if (lower(r.dist, c, nd) && claim(r.stamp, c, r.round)) push(r, c);
        }
    }
}

__device__ __forceinline__ int* out_slot(int* ctl, int round) { return ctl + CTL_OUT + 2 * (round & 1); }

// Round `round` appends to its own slot and clears the other parity's, which the host
// has read already; the next round appends there.
__device__ __forceinline__ void clear_next(int* ctl, int round) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        int* next = out_slot(ctl, round + 1);
        next[0] = 0;
        next[1] = 0;
    }
}

// ---- per traversal ---------------------------------------------------------------------

// dist = unreached except 0 at the source (and NS's children of the source); stamps and
// control words 0; the first worklist: the source (+ its children), or, for EP
// (edge_items), the source's edges.
extern "C" __global__ void raval_init(int n, int n_total, int source, dist_t* dist, int* stamp,
                                      int* ctl, const long long* __restrict__ row_offsets,
                                      const int* __restrict__ child_off, int* items,
                                      long long* counts, int edge_items) {
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long c0 = child_off != nullptr ? n + (long long)child_off[source] : 0;
    const long long c1 = child_off != nullptr ? n + (long long)child_off[source + 1] : 0;
    for (long long v = tid; v < n_total; v += stride) {
        dist[v] = (v == source || (v >= c0 && v < c1)) ? 0 : DIST_INF;
        if (stamp != nullptr) stamp[v] = 0;
    }
    if (tid < CTL_WORDS) ctl[tid] = 0;
    const long long b = row_offsets[source];
    const long long deg = row_offsets[source + 1] - b;
    if (edge_items) {
        for (long long i = tid; i < deg; i += stride) items[i] = (int)(b + i);
        return;
    }
    if (tid == 0) {
        items[0] = source;
        if (counts != nullptr) counts[0] = deg;
    }
    for (long long i = tid; i < c1 - c0; i += stride) items[1 + i] = (int)(c0 + i);
}

// ---- BS (LonestarGPU's node-based baseline) and NS: one thread per worklist node ----
// split_begin/split_end (NS): the node's edge range in the split graph (children are
// ids n .. n_total - 1); null: the CSR's own ranges.
extern "C" __global__ void __launch_bounds__(RAVAL_MAX_BLOCK)
raval_node_relax(int round, int size, const int* __restrict__ items, int* out_items,
                 long long* out_counts, const long long* __restrict__ split_begin,
                 const long long* __restrict__ split_end, const int* __restrict__ child_off,
                 int n, RELAX_PARAMS) {
    clear_next(ctl, round);
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= size) return;
    const Relax r = {row_offsets, dist, stamp, round, out_items, out_counts, out_slot(ctl, round),
                     child_off, n};
    const int u = items[i];
    long long e = split_begin != nullptr ? split_begin[u] : row_offsets[u];
    const long long end = split_begin != nullptr ? split_end[u] : row_offsets[u + 1];
    const dist_t du = dist[u];
    for (; e < end; ++e) relax(r, col_indices[e], du + edge_weight(weights, e));
}

// NS with the propagation pass: after the round's relaxation, each pushed parent copies
// its distance (final for the round) to its children and appends them, counted in the
// slot's second word.
extern "C" __global__ void raval_ns_propagate(int round, int* items, const int* __restrict__ child_off,
                                              int n, dist_t* dist, int* ctl) {
    int* slot = out_slot(ctl, round);
    const int parents = *(volatile int*)slot;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < parents; i += stride) {
        const int v = items[i];
        const int b = child_off[v];
        const int k = child_off[v + 1] - b;
        if (k == 0) continue;
        const int pos = parents + atomicAdd(&slot[1], k);
        const dist_t d = dist[v];
        for (int j = 0; j < k; ++j) {
            dist[n + b + j] = d;
            items[pos + j] = n + b + j;
        }
    }
}

// ---- EP: edges of the worklist dealt round-robin to every thread (Fig. 2) ----
// A lowered destination pushes all its out-edges: `chunk` edges per atomicAdd on the
// list's size (0: the whole list with one, the paper's work chunking; 1: one per edge).
extern "C" __global__ void __launch_bounds__(RAVAL_MAX_BLOCK)
raval_ep_relax(int round, int size, const int* __restrict__ edges, int* out_edges,
               const int* __restrict__ coo_src, int chunk, RELAX_PARAMS) {
    clear_next(ctl, round);
    int* out_size = out_slot(ctl, round);
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < size; i += stride) {
        const int e = edges[i];
        const int v = col_indices[e];
        const dist_t nd = dist[coo_src[e]] + edge_weight(weights, e);
        if (!lower(dist, v, nd) || !claim(stamp, v, round)) continue;
        const long long b = row_offsets[v];
        const long long deg = row_offsets[v + 1] - b;
        const long long step = chunk > 0 ? (long long)chunk : deg;
        for (long long j = 0; j < deg; j += step) {
            const int k = (int)min(step, deg - j);
            const int pos = atomicAdd(out_size, k);
            for (int t = 0; t < k; ++t) out_edges[pos + t] = (int)(b + j + t);
        }
    }
}

// The source of every edge (the COO copy's first array; the second is col_indices).
extern "C" __global__ void raval_coo_src(int n, long long m, const long long* __restrict__ row_offsets,
                                         int* src) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += stride) {
        int lo = 0, hi = n - 1;  // the row r with row_offsets[r] <= e < row_offsets[r + 1]
        while (lo < hi) {
            const int mid = (int)(((long long)lo + hi) >> 1);
            if (row_offsets[mid + 1] > e) hi = mid; else lo = mid + 1;
        }
        src[e] = lo;
    }
}

// ---- WD: equal shares of the worklist's edges (section III-A, Fig. 4) ----
// scan: inclusive prefix sum of the entries' edge counts (cupy.cumsum, i.e. CUB). Each
// of `threads` threads takes ceil(total / threads) consecutive edges. Entry i covers
// edges row_offsets[items[i]] + skip[i] + [0, count_i) (skip: edges an HP sub-iteration
// already relaxed; null: none).
__device__ __forceinline__ long long wd_share(const long long* scan, int size, int threads,
                                              long long* total) {
    *total = size > 0 ? scan[size - 1] : 0;
    return (*total + threads - 1) / threads;
}

// find_offsets: each thread's first entry (binary search) and edge within it.
extern "C" __global__ void raval_wd_offsets(int size, const long long* __restrict__ scan, int threads,
                                            int* node_off, long long* edge_off) {
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    long long total;
    const long long share = wd_share(scan, size, threads, &total);
    const long long start = t * share;
    if (start >= total) {
        node_off[t] = size;
        edge_off[t] = 0;
        return;
    }
    int lo = 0, hi = size - 1;  // the first entry whose inclusive sum passes start
    while (lo < hi) {
        const int mid = (int)(((long long)lo + hi) >> 1);
        if (scan[mid] > start) hi = mid; else lo = mid + 1;
    }
    node_off[t] = lo;
    edge_off[t] = start - (lo > 0 ? scan[lo - 1] : 0);
}

extern "C" __global__ void __launch_bounds__(RAVAL_MAX_BLOCK)
raval_wd_relax(int round, int size, const int* __restrict__ items, const long long* __restrict__ skip,
               const long long* __restrict__ scan, const int* __restrict__ node_off,
               const long long* __restrict__ edge_off, int threads, int* out_items,
               long long* out_counts, RELAX_PARAMS) {
    clear_next(ctl, round);
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    long long total;
    const long long share = wd_share(scan, size, threads, &total);
    const long long start = t * share;
    if (start >= total) return;
    const Relax r = {row_offsets, dist, stamp, round, out_items, out_counts, out_slot(ctl, round),
                     nullptr, 0};
    long long left = min(share, total - start);
    int i = node_off[t];
    long long off = edge_off[t];
    while (left > 0) {  // the paper's inner while: on to the next node's edges
        const long long take = min(scan[i] - (i > 0 ? scan[i - 1] : 0) - off, left);
        if (take > 0) {
            const int u = items[i];
            const long long b = row_offsets[u] + (skip != nullptr ? skip[i] : 0) + off;
            const dist_t du = dist[u];
            for (long long e = b; e < b + take; ++e) relax(r, col_indices[e], du + edge_weight(weights, e));
            left -= take;
        }
        ++i;
        off = 0;
    }
}

// ---- HP: one sub-iteration (section III-C) ----
// One thread per entry relaxes at most `mdt` of its node's remaining edges; an entry with
// edges left goes on to the next sublist (slot CTL_SUB + (sub & 1)) with its progress and
// remaining count. items/skip: the super worklist (skip null) or the previous sublist.
extern "C" __global__ void __launch_bounds__(RAVAL_MAX_BLOCK)
raval_hp_sub(int round, int sub, int size, const int* __restrict__ items,
             const long long* __restrict__ skip, long long mdt, int* sub_items, long long* sub_skip,
             long long* sub_counts, int* out_items, long long* out_counts, RELAX_PARAMS) {
    clear_next(ctl, round);
    if (blockIdx.x == 0 && threadIdx.x == 0) ctl[CTL_SUB + ((sub + 1) & 1)] = 0;
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= size) return;
    const Relax r = {row_offsets, dist, stamp, round, out_items, out_counts, out_slot(ctl, round),
                     nullptr, 0};
    const int u = items[i];
    const long long done = skip != nullptr ? skip[i] : 0;
    const long long b = row_offsets[u] + done;
    const long long end = row_offsets[u + 1];
    const long long stop = end - b > mdt ? b + mdt : end;
    const dist_t du = dist[u];
    for (long long e = b; e < stop; ++e) relax(r, col_indices[e], du + edge_weight(weights, e));
    if (stop < end) {
        const int pos = atomicAdd(&ctl[CTL_SUB + (sub & 1)], 1);
        sub_items[pos] = u;
        sub_skip[pos] = done + mdt;
        sub_counts[pos] = end - stop;
    }
}

// ---- parents, after the distances (predecessors=True) ----
// Round 0 gives each vertex a parent through a tight edge of positive weight (BFS: any
// in-neighbour one level up): the parent is strictly closer. A vertex reached only
// through tight zero-weight edges (SSSP) gets its parent in a later round r from a
// vertex anchored in an earlier round, through a tight zero-weight edge. Along parent
// links (distance, round) strictly falls, so the links form a tree whatever zero-weight
// cycles the graph has. anchor[v]: the round v got its parent (null for BFS, whose
// round 0 is complete); CTL_REACHED / CTL_ANCHORED count for the host's stopping test.

extern "C" __global__ void raval_parents_init(int n, int source, const dist_t* __restrict__ dist,
                                              int* parent, int* anchor, int* ctl) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    int reached = 0;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        parent[v] = v == source ? source : -1;
        if (anchor != nullptr) anchor[v] = v == source ? 0 : RAVAL_UNANCHORED;
        reached += dist[v] != DIST_INF;
    }
    reached = warp_sum(reached);
    if ((threadIdx.x & 31) == 0 && reached) atomicAdd(&ctl[CTL_REACHED], reached);
}

// One warp per vertex u, its lanes over u's out-edges.
extern "C" __global__ void raval_parents_tight(int n, int round, const long long* __restrict__ row_offsets,
                                               const int* __restrict__ col_indices,
                                               const weight_t* __restrict__ weights,
                                               const dist_t* __restrict__ dist, int* parent,
                                               int* anchor, int* ctl) {
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    int anchored = 0;
    for (long long u = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; u < n; u += warps) {
        const dist_t du = dist[u];
        if (du == DIST_INF) continue;
        if (round > 0 && anchor[u] >= round) continue;  // not anchored before this round
        const long long end = row_offsets[u + 1];
        for (long long e = row_offsets[u] + lane; e < end; e += 32) {
            const int v = col_indices[e];
            const dist_t w = edge_weight(weights, e);
            if ((round == 0) != (w > 0) || du + w != dist[v]) continue;
            if (anchor == nullptr) {
                parent[v] = (int)u;  // BFS: every writer writes a valid parent
            } else if (atomicCAS(&anchor[v], RAVAL_UNANCHORED, round) == RAVAL_UNANCHORED) {
                parent[v] = (int)u;
                ++anchored;
            }
        }
    }
    anchored = warp_sum(anchored);
    if (lane == 0 && anchored) atomicAdd(&ctl[CTL_ANCHORED], anchored);
}
