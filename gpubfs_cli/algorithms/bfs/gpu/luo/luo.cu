// UIUC-BFS (Luo, Wong, Hwu, DAC 2010): one thread per frontier item, hierarchical
// frontier queues (warp -> block -> grid) and a three-layer kernel arrangement:
//   luo_block  one block runs level after level with __syncthreads, frontier in
//              shared memory, until it outgrows `hi` (or the BFS ends);
//   luo_grid   a cooperative grid (co-resident blocks only) runs level after level
//              with grid.sync(), until the frontier leaves (lo, hi];
//   luo_level  one launch per level; the host launches a batch ahead, and a level
//              whose frontier is out of (lo, hi] stops the rest of the batch.
//
// Frontier items are vertices, or with node splitting (SPLIT) pieces of at most
// `split` edges of one vertex: piece p covers edges [piece_begin[p], piece_begin[p+1])
// of vertex piece_owner[p]; vertex v owns pieces [vpiece[v], vpiece[v+1]).
//
// Queues: q0/q1 hold the frontier of even/odd levels. Their sizes live in
// state[level % 3] (three counters: the one being read, the one being filled, the
// one being cleared for the level after). Invariant at every kernel boundary, for
// the current level L = state[ST_LEVEL]: the frontier is q[L & 1][0 .. state[L % 3])
// and state[(L + 1) % 3] == 0.
//
// Visited test: the bitmask (one atomicOr per newly seen vertex), so a vertex is
// enqueued exactly once and the queues need no duplicate removal.
#include "common.cuh"
#include <cooperative_groups.h>

#define ST_LEVEL 3
#define ST_STOP 4
#define ST_ENQ 5
#define ST_WORDS 8

#define BLOCK_THREADS 1024  // luo_block: today's largest block (the paper's 512 on GTX280)
#define BLOCK_CAP 4096      // luo_block: shared frontier capacity per buffer (two buffers)
#define GRID_THREADS 1024   // luo_grid: the largest block it accepts (launched with grid_block_size)
#define GRID_CAP 4096       // luo_grid / luo_level: shared B-frontier capacity
#define LEVEL_THREADS 256   // luo_level: several blocks per SM hide memory latency

// Kernels take the graph as separate pointers (CuPy passes arrays, not structs)
// and gather them into a Graph.
#define GRAPH_PARAMS                                                                      \
    const long long *row_offsets, const int *col_indices, const long long *piece_begin, \
        const int *piece_owner, const int *vpiece, int *dist, int *parent,                \
        unsigned int *visited
#define GRAPH_ARGS {row_offsets, col_indices, piece_begin, piece_owner, vpiece, dist, parent, visited}

struct Graph {
    const long long* row_offsets;
    const int* col_indices;
    const long long* piece_begin;  // SPLIT only
    const int* piece_owner;        // SPLIT only
    const int* vpiece;             // SPLIT only
    int* dist;
    int* parent;  // may be null
    unsigned int* visited;
};

// A block's B-frontier in shared memory. Warps reserve room with one atomicAdd;
// a warp whose batch does not fit writes straight to the G-frontier instead.
// Reservations are monotonic, so those that fit form the prefix [0, valid).
struct BlockQueue {
    int* items;
    int* reserved;
    int* valid;
    int cap;
};

// Warp level (the W-frontier): lanes learn their offsets from a warp scan of
// their counts, so no two lanes collide and the warp takes one reservation.
// Every lane of the warp must call this.
__device__ __forceinline__ void warp_enqueue(int count, int first, BlockQueue bq, int* g_items,
                                             int* g_count) {
    if (__ballot_sync(GPUBFS_FULL_MASK, count > 0) == 0) return;
    int total;
    const int offset = warp_exclusive_scan(count, &total);
    int base = 0, global = 0;
    if ((threadIdx.x & 31) == 0) {
        base = atomicAdd(bq.reserved, total);
        if (base + total <= bq.cap) {
            atomicMax(bq.valid, base + total);
        } else {
            global = 1;
            base = atomicAdd(g_count, total);
        }
    }
    base = __shfl_sync(GPUBFS_FULL_MASK, base, 0);
    global = __shfl_sync(GPUBFS_FULL_MASK, global, 0);
    int* dst = (global ? g_items : bq.items) + base + offset;
    for (int i = 0; i < count; ++i) dst[i] = first + i;
}

// The work item -> (owner vertex, edge range).
template <bool SPLIT>
__device__ __forceinline__ void item_edges(const Graph& g, int item, int* owner, long long* begin,
                                           long long* end) {
    if (SPLIT) {
        *owner = g.piece_owner[item];
        *begin = g.piece_begin[item];
        *end = g.piece_begin[item + 1];
    } else {
        *owner = item;
        *begin = g.row_offsets[item];
        *end = g.row_offsets[item + 1];
    }
}

// A thread's first work item and its edge range, loaded before the frontier size is
// known (the queues are zero-filled at allocation, so any slot below the capacity
// holds a valid item id): the item's loads then overlap the size's instead of
// following it, one memory round trip less per level.
struct Prefetch {
    int owner;
    long long begin, end;
};

template <bool SPLIT>
__device__ __forceinline__ Prefetch prefetch_item(const Graph& g, const int* in, int i, int qcap) {
    Prefetch p = {0, 0, 0};
    if (i < qcap) item_edges<SPLIT>(g, __ldcg(in + i), &p.owner, &p.begin, &p.end);
    return p;
}

// This thread's first frontier index in a multi-block kernel. Whole warps take 32
// consecutive items (coalesced queue reads), but consecutive warps of items go to
// different blocks, so a frontier of a few thousand spreads over every SM instead of
// filling the first blocks. A permutation of [0, gridDim.x * blockDim.x).
__device__ __forceinline__ int spread_index() {
    const int warp_in_block = threadIdx.x >> 5;
    return ((warp_in_block * gridDim.x + blockIdx.x) << 5) + (threadIdx.x & 31);
}

// Expand frontier items [first, size) with the given stride: each thread walks its
// item's edges one per step, the warp enqueues what the step discovered.
// `first` and `stride` keep whole warps together (loop bounds are warp-uniform).
// `pre`, when given, holds the item at index `first` already loaded.
template <bool SPLIT, bool SHARED_IN>
__device__ void expand(const Graph& g, const int* in, int size, int level, int first, int stride,
                       BlockQueue bq, int* g_items, int* g_count, const Prefetch* pre = nullptr) {
    const int lane = threadIdx.x & 31;
    for (int i = first; i - lane < size; i += stride) {
        int owner = 0;
        long long e = 0, end = 0;
        if (i < size) {
            if (pre != nullptr && i == first) {
                owner = pre->owner;
                e = pre->begin;
                end = pre->end;
            } else {
                const int item = SHARED_IN ? in[i] : __ldcg(in + i);
                item_edges<SPLIT>(g, item, &owner, &e, &end);
            }
        }
        while (__any_sync(GPUBFS_FULL_MASK, e < end)) {
            int count = 0, first_item = 0;
            if (e < end) {
                const int v = g.col_indices[e++];
                if (!bitmask_test(g.visited, v) && bitmask_test_and_set(g.visited, v)) {
                    g.dist[v] = level + 1;
                    if (g.parent != nullptr) g.parent[v] = owner;
                    if (SPLIT) {
                        first_item = g.vpiece[v];
                        count = g.vpiece[v + 1] - first_item;
                    } else {
                        first_item = v;
                        count = 1;
                    }
                }
            }
            warp_enqueue(count, first_item, bq, g_items, g_count);
        }
    }
}

// Block level -> grid level: append the block's B-frontier to the G-frontier with
// one atomicAdd per block, copied by consecutive threads (coalesced). Clears the
// B-frontier for the next level; the caller's next barrier orders that. Returns the
// number of items the block enqueued this level (thread 0 only).
__device__ int flush_block_queue(BlockQueue bq, int* g_items, int* g_count, int* s_base) {
    __syncthreads();
    const int valid = *bq.valid;
    int enqueued = 0;
    if (threadIdx.x == 0) {
        enqueued = *bq.reserved;
        *s_base = valid > 0 ? atomicAdd(g_count, valid) : 0;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        *bq.reserved = 0;
        *bq.valid = 0;
    }
    const int base = *s_base;
    for (int i = threadIdx.x; i < valid; i += blockDim.x) g_items[base + i] = bq.items[i];
    return enqueued;
}

// Every vertex unvisited except the source; the source's items are the level-0 frontier.
template <bool SPLIT>
__global__ void luo_init(GRAPH_PARAMS, int n, int source, int words, int* q0, int* state) {
    const Graph g = GRAPH_ARGS;
    int src_first = source, src_count = 1;
    if (SPLIT) {
        src_first = g.vpiece[source];
        src_count = g.vpiece[source + 1] - src_first;
    }
    int limit = n > words ? n : words;
    if (src_count > limit) limit = src_count;
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < limit; i += stride) {
        if (i < n) {
            g.dist[i] = i == source ? 0 : -1;
            if (g.parent != nullptr) g.parent[i] = i == source ? source : -1;
        }
        if (i < words) g.visited[i] = i == (source >> 5) ? 1u << (source & 31) : 0u;
        if (i < src_count) q0[i] = src_first + i;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        state[0] = src_count;
        state[1] = 0;
        state[2] = 0;
        state[ST_LEVEL] = 0;
        state[ST_STOP] = -1;
        state[ST_ENQ] = src_count;
    }
}

// Layer 1: one block, many levels, frontier kept in shared memory while it fits.
// Returns when the frontier is empty or larger than `hi`, leaving it in global memory.
template <bool SPLIT>
__global__ void __launch_bounds__(BLOCK_THREADS)
    luo_block(GRAPH_PARAMS, int level, int hi, int* q0, int* q1, int* state) {
    const Graph g = GRAPH_ARGS;
    __shared__ int s_items[2][BLOCK_CAP];
    __shared__ int s_reserved, s_valid;
    int size = __ldcg(state + level % 3);
    bool in_shared = false;
    int cur = 0;  // shared buffer holding the frontier when in_shared
    int enqueued = 0;
    while (size > 0 && size <= hi) {
        if (threadIdx.x == 0) {
            s_reserved = 0;
            s_valid = 0;
            state[(level + 2) % 3] = 0;
        }
        __syncthreads();
        const int nxt = cur ^ 1;
        BlockQueue bq = {s_items[nxt], &s_reserved, &s_valid, BLOCK_CAP};
        int* g_out = (level & 1) ? q0 : q1;
        int* g_count = state + (level + 1) % 3;
        if (in_shared) {
            expand<SPLIT, true>(g, s_items[cur], size, level, threadIdx.x, blockDim.x, bq, g_out,
                                g_count);
        } else {
            expand<SPLIT, false>(g, (level & 1) ? q1 : q0, size, level, threadIdx.x, blockDim.x,
                                 bq, g_out, g_count);
        }
        __syncthreads();
        const int spilled = __ldcg(g_count);  // items that went straight to global memory
        const int valid = s_valid;
        if (threadIdx.x == 0) enqueued += s_reserved;
        size = spilled + valid;
        ++level;
        __syncthreads();  // everyone has read the counters before thread 0 rewrites them
        if (spilled > 0 || size > hi) {
            // The frontier no longer fits in shared memory: append the shared part.
            for (int i = threadIdx.x; i < valid; i += blockDim.x) g_out[spilled + i] = s_items[nxt][i];
            if (threadIdx.x == 0) *g_count = size;
            in_shared = false;
        } else {
            in_shared = true;
            cur = nxt;
        }
        __syncthreads();
    }
    if (in_shared) {
        int* g_out = (level & 1) ? q1 : q0;
        for (int i = threadIdx.x; i < size; i += blockDim.x) g_out[i] = s_items[cur][i];
        if (threadIdx.x == 0) state[level % 3] = size;
    }
    if (threadIdx.x == 0) {
        state[ST_LEVEL] = level;
        state[ST_ENQ] += enqueued;
    }
}

// Layer 2: a cooperative grid of co-resident blocks, many levels, grid.sync()
// between them. Runs while lo < frontier <= hi.
template <bool SPLIT>
__global__ void __launch_bounds__(GRID_THREADS)
    luo_grid(GRAPH_PARAMS, int level, int lo, int hi, int qcap, int* q0, int* q1, int* state) {
    const Graph g = GRAPH_ARGS;
    namespace cg = cooperative_groups;
    cg::grid_group grid = cg::this_grid();
    __shared__ int s_items[GRID_CAP];
    __shared__ int s_reserved, s_valid, s_base;
    if (threadIdx.x == 0) {
        s_reserved = 0;
        s_valid = 0;
    }
    __syncthreads();
    const int first = spread_index();
    const int stride = gridDim.x * blockDim.x;
    int enqueued = 0;
    while (true) {
        const int* in = (level & 1) ? q1 : q0;
        const Prefetch pre = prefetch_item<SPLIT>(g, in, first, qcap);
        const int size = __ldcg(state + level % 3);
        if (size == 0 || size <= lo || size > hi) break;
        if (first == 0) state[(level + 2) % 3] = 0;
        BlockQueue bq = {s_items, &s_reserved, &s_valid, GRID_CAP};
        int* g_out = (level & 1) ? q0 : q1;
        int* g_count = state + (level + 1) % 3;
        expand<SPLIT, false>(g, in, size, level, first, stride, bq, g_out, g_count, &pre);
        enqueued += flush_block_queue(bq, g_out, g_count, &s_base);
        ++level;
        grid.sync();
    }
    if (threadIdx.x == 0 && enqueued > 0) atomicAdd(state + ST_ENQ, enqueued);
    if (first == 0) state[ST_LEVEL] = level;
}

// Layer 3: one level per launch over a grid-stride loop. A launch whose frontier is
// out of (lo, hi] marks the batch stopped (state[ST_STOP] = epoch) and does nothing.
template <bool SPLIT>
__global__ void __launch_bounds__(LEVEL_THREADS)
    luo_level(GRAPH_PARAMS, int level, int lo, int hi, int epoch, int qcap, int* q0, int* q1,
              int* state) {
    const Graph g = GRAPH_ARGS;
    __shared__ int s_items[GRID_CAP];
    __shared__ int s_reserved, s_valid, s_base;
    const int first = spread_index();
    const int* in = (level & 1) ? q1 : q0;
    const Prefetch pre = prefetch_item<SPLIT>(g, in, first, qcap);
    if (__ldcg(state + ST_STOP) == epoch) return;
    const int size = __ldcg(state + level % 3);
    if (size == 0 || size <= lo || size > hi) {
        if (first == 0) state[ST_STOP] = epoch;
        return;
    }
    if (threadIdx.x == 0) {
        s_reserved = 0;
        s_valid = 0;
    }
    if (first == 0) {
        state[(level + 2) % 3] = 0;
        state[ST_LEVEL] = level + 1;
    }
    __syncthreads();
    int* g_out = (level & 1) ? q0 : q1;
    int* g_count = state + (level + 1) % 3;
    BlockQueue bq = {s_items, &s_reserved, &s_valid, GRID_CAP};
    expand<SPLIT, false>(g, in, size, level, first, gridDim.x * blockDim.x, bq, g_out, g_count,
                         &pre);
    const int enqueued = flush_block_queue(bq, g_out, g_count, &s_base);
    if (threadIdx.x == 0 && enqueued > 0) atomicAdd(state + ST_ENQ, enqueued);
}

// Explicit instantiations: the compile check (nvcc) then builds every kernel the
// strategy can load; NVRTC finds them by name expression.
template __global__ void luo_init<false>(GRAPH_PARAMS, int, int, int, int*, int*);
template __global__ void luo_init<true>(GRAPH_PARAMS, int, int, int, int*, int*);
template __global__ void luo_block<false>(GRAPH_PARAMS, int, int, int*, int*, int*);
template __global__ void luo_block<true>(GRAPH_PARAMS, int, int, int*, int*, int*);
template __global__ void luo_grid<false>(GRAPH_PARAMS, int, int, int, int, int*, int*, int*);
template __global__ void luo_grid<true>(GRAPH_PARAMS, int, int, int, int, int*, int*, int*);
template __global__ void luo_level<false>(GRAPH_PARAMS, int, int, int, int, int, int*, int*, int*);
template __global__ void luo_level<true>(GRAPH_PARAMS, int, int, int, int, int, int*, int*, int*);
