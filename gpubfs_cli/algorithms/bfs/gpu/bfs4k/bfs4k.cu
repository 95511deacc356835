// BFS-4K, Busato and Bombieri, "BFS-4K: an efficient implementation of BFS for Kepler
// GPU architectures" (IEEE TPDS 2015), sections 4-6.
//
// A frontier propagation step (one BFS level) reads the frontier Fd and writes the next
// one, Fdnew, through the techniques of section 5:
//   - dynamic virtual warps (5.2): W lanes per frontier vertex, W = the power of two
//     below resident threads / |Fd|, within [K1, 32];
//   - edge-discover (5.4): when |Fd| * K4 < resident threads, each warp takes 32 frontier
//     vertices, prefix-sums their degrees and gives each lane one edge per round through
//     a shuffle binary search (EXT: a round inside one list needs no search);
//   - dynamic parallelism (5.3): in the per-level multi-block kernel, a list at least
//     dp_degree long (the K2% longest lists of the graph) is expanded by a child kernel of
//     ceil(deg / (K3 * K6)) blocks, K3 neighbours per child thread;
//   - local queues in registers flushed with the two-level prefix sum (5.1: warp shuffles,
//     the ballot/popc variant when each lane holds at most one vertex; block level through
//     shared-memory atomics in the single-block kernel) and induced coalescing (5.6, K7);
//   - duplicate detection (6): hash64 (one shared table per block, vertex and thread id
//     merged in one 64-bit word) or Merrill's per-warp table.
// Three kernels share those routines:
//   bfs4k_single  one block, the frontier in shared memory, levels in a loop while the
//                 frontier holds at most FT = 1024 * K5 vertices (5.5);
//   bfs4k_coop    adapted: the multi-block kernel made persistent (a cooperative grid,
//                 grid barrier per level) for frontiers up to the grid's threads;
//   bfs4k_level   one multi-block launch per level (the paper's multi-block kernel), for
//                 larger frontiers and for levels that launch child kernels (a grid can
//                 wait for its children only by ending).
// Each kernel starts by reading the frontier size from status[] and returns at once
// unless the frontier is its own (MODE_*), so the host launches a fixed sequence of
// kernels and reads status back once per sequence, not once per level.
//
// Visited test: a bitmask lookup through L1 (a stale word only ever lacks bits), then,
// for vertices that look unvisited and survive the duplicate detection, an atomicOr
// that claims the vertex exactly once: the frontiers hold no duplicates, so the hash
// tables here save atomics instead of frontier entries (adapted; see bfs4k.py).
#include "bfs4k.cuh"

namespace bfs4k {

constexpr int K6 = BFS4K_K6;
constexpr int SB = BFS4K_SINGLE_BLOCK;
constexpr int LQ = BFS4K_LQ;
constexpr int U = BFS4K_UNROLL;
// Registers capped at 64 per thread: 1024 threads per SM.
constexpr int MIN_BLOCKS = 1024 / K6 > 0 ? 1024 / K6 : 1;
static_assert(K6 % 32 == 0 && K6 >= 32 && K6 <= 1024, "K6: a multiple of 32 up to 1024");
static_assert(SB % 32 == 0 && SB >= 32 && SB <= 1024, "single block: a multiple of 32 up to 1024");
static_assert(LQ > U && U >= 1, "the local queue must hold a round's vertices");

// Lists longer than this are never scanned with 32-bit sums (edge-discover).
constexpr long long HUGE_LIST = 1ll << 24;

using Cfg = Bfs4kCfg;

struct Shared {
    Cfg cfg;
    int level, count, dp;  // broadcast of status[]
    int cnt[3], dpf[3];    // single-block kernel: frontier sizes and DP flags by level % 3
    int red[8];            // tallies of the block (RED_*)
    int last;              // level kernel: this block finished the level
};

// Per-thread tallies of the visits, summed per block at the end of a kernel (rarer
// events are added to the block's shared tallies at once).
struct Tally {
    int dups = 0, lost = 0;
};
#define RED_DUPS 0
#define RED_LOST 1
#define RED_LAUNCHES 2
#define RED_FAILED 3
#define RED_FLUSHES 4
#define RED_COALESCED 5
#define RED_WORDS 6

// A thread's local queue of newly visited vertices (section 5.6). The paper keeps it in
// registers; registers cannot be indexed at run time (they would spill to local
// memory), so here it is the thread's column of a shared-memory array: entry k at
// col[k * stride], stride = the block's threads, conflict-free across a warp.
struct LocalQueue {
    int* col;
    int stride;
    int len;
    __device__ __forceinline__ void push(int x) {
        col[len * stride] = x;
        ++len;
    }
    __device__ __forceinline__ int at(int k) const { return col[k * stride]; }
};

// The local queue of this thread in the block's queue area (LQ entries per thread).
__device__ __forceinline__ LocalQueue local_queue(int* area) {
    LocalQueue q;
    q.col = area + threadIdx.x;
    q.stride = (int)blockDim.x;
    q.len = 0;
    return q;
}

// Everything one level's expansion needs: the launch's CSR arrays and parameters (a
// child kernel gets them too) and this block's part.
struct Ctx : Bfs4kParams {
    const long long* __restrict__ row;
    const int* __restrict__ col;
    const Cfg* cfg;             // the block's copy of config (shared memory)
    unsigned long long* table;  // duplicate detection table of this block
    int table_entries;          // power of two
    int next_level;
    int* dpflag;  // the next frontier's "needs a child kernel" flag
    int* red;     // the block's tallies (shared)
};

// The one place a kernel's Ctx is made: level next_level's expansion with `table`.
__device__ __forceinline__ Ctx level_ctx(const long long* __restrict__ row, const int* __restrict__ col,
                                         const Bfs4kParams p, Shared& sh, unsigned long long* table,
                                         int table_entries, int next_level, int* dpflag) {
    return Ctx{p, row, col, &sh.cfg, table, table_entries, next_level, dpflag, sh.red};
}

// Every kernel's parameters: the CSR arrays, then the rest (bfs4k.cuh).
#define BFS4K_PARAMS const long long *__restrict__ row, const int *__restrict__ col, const Bfs4kParams p

struct GlobalSrc {
    const int* q;
    __device__ __forceinline__ int get(int i) const { return __ldcg(q + i); }
};
struct SharedSrc {
    const int* q;
    __device__ __forceinline__ int get(int i) const { return q[i]; }
};

// Next frontier in global memory: one atomicAdd per warp flush.
struct GlobalSink {
    int* q;
    int* count;
    __device__ __forceinline__ int reserve(int total) const { return atomicAdd(count, total); }
    __device__ __forceinline__ void put(int pos, int v) const { q[pos] = v; }
};
// Next frontier in shared memory (single-block kernel): the block level of the prefix
// sum is a shared-memory atomicAdd; positions past the shared capacity go to the
// global queue at the same index, so a frontier that outgrows the block is complete
// once the shared part is copied out.
struct SharedSink {
    int* sq;
    int cap;
    int* gq;
    int* count;
    __device__ __forceinline__ int reserve(int total) const { return atomicAdd(count, total); }
    __device__ __forceinline__ void put(int pos, int v) const {
        if (pos < cap) sq[pos] = v;
        else gq[pos] = v;
    }
};

__device__ __forceinline__ int floor_pow2(int x) { return x < 1 ? 1 : 1 << (31 - __clz(x)); }

__device__ __forceinline__ int log2_pow2(int x) { return 31 - __clz(x); }

// The buffer of level L's parity (a select, not an indexed array: no local memory).
__device__ __forceinline__ int* by_parity(int L, int* even, int* odd) { return (L & 1) ? odd : even; }

// The kernel that owns a frontier of F vertices (dp: one of them has a child-sized list).
__device__ __forceinline__ int mode_of(const Cfg& g, int F, int dp) {
    if (F <= 0) return MODE_DONE;
    if (g.dp_degree > 0 && dp) return MODE_LEVEL;
    if (F <= g.ft) return MODE_SINGLE;
    if (F <= g.coop_limit) return MODE_COOP;
    return MODE_LEVEL;
}

__device__ __forceinline__ int* slot(int* status, int L) { return status + ST_SLOTS + (L % 3) * SLOT_WORDS; }

// Thread 0 reads the level and its frontier size; the block shares them.
__device__ __forceinline__ void read_status(Shared& sh, int* status, bool with_level) {
    if (threadIdx.x == 0) {
        if (with_level) sh.level = __ldcg(status + ST_LEVEL);
        const int* s = slot(status, sh.level);
        sh.count = __ldcg(s + SLOT_COUNT);
        sh.dp = __ldcg(s + SLOT_DP);
    }
    __syncthreads();
}

__device__ __forceinline__ unsigned int hash_slot(int v) { return ((unsigned int)v * 2654435761u) >> 7; }

// Duplicate detection (section 6, Fig. 11). True when another thread of the block (of
// the warp, DEDUP_WARP) is visiting v at the same time: v is left to that thread. The
// last thread to write v's slot always reads its own entry back (or a conflict), so at
// least one of the threads that meet v goes on to claim it.
__device__ __forceinline__ bool duplicate(const Ctx& c, int mode, int v) {
    if (mode == DEDUP_HASH64) {
        volatile unsigned long long* t = c.table;
        const unsigned int h = hash_slot(v) & (unsigned int)(c.table_entries - 1);
        const unsigned long long mine = ((unsigned long long)(unsigned int)v << 32) | threadIdx.x;
        t[h] = mine;
        BFS4K_HASH_YIELD();
        const unsigned long long got = t[h];
        return (unsigned int)(got >> 32) == (unsigned int)v && (unsigned int)got != threadIdx.x;
    }
    // DEDUP_WARP: the warp's part of the table holds (vertex, lane) pairs written apart.
    const int pairs = c.table_entries / (int)(blockDim.x >> 5);
    volatile int* t = reinterpret_cast<volatile int*>(c.table) + 2 * pairs * (int)(threadIdx.x >> 5);
    const unsigned int h = hash_slot(v) & (unsigned int)(pairs - 1);
    const int lane = lane_id();
    t[2 * h] = v;
    t[2 * h + 1] = lane;
    BFS4K_HASH_YIELD();
    return t[2 * h] == v && t[2 * h + 1] != lane;
}

// Visits N neighbours per lane (act[j]: v[j] is one, reached from par[j]). Claimed
// vertices get their distance and parent and go to the local queue. The N lookups, then
// the N atomics, are issued together.
template <int N>
__device__ __forceinline__ void visit(const Ctx& c, LocalQueue& q, Tally& t, const int (&v)[N],
                                      const bool (&act)[N], const int (&par)[N]) {
    const Cfg& g = *c.cfg;
    unsigned int word[N];
#pragma unroll
    for (int j = 0; j < N; ++j) word[j] = act[j] ? c.bitmask[v[j] >> 5] : ~0u;
    bool cand[N];
#pragma unroll
    for (int j = 0; j < N; ++j) cand[j] = act[j] && !((word[j] >> (v[j] & 31)) & 1u);
    if (g.dedup != DEDUP_OFF) {
#pragma unroll
        for (int j = 0; j < N; ++j) {
            if (cand[j] && duplicate(c, g.dedup, v[j])) {
                cand[j] = false;
                ++t.dups;
            }
        }
    }
    unsigned int old[N];
#pragma unroll
    for (int j = 0; j < N; ++j)
        old[j] = cand[j] ? atomicOr(c.bitmask + (v[j] >> 5), 1u << (v[j] & 31)) : 0u;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        if (!cand[j]) continue;
        if ((old[j] >> (v[j] & 31)) & 1u) {
            ++t.lost;
            continue;
        }
        c.dist[v[j]] = c.next_level;
        if (c.parent) c.parent[v[j]] = par[j];
        if (g.dp_degree > 0 && c.row[v[j] + 1] - c.row[v[j]] >= g.dp_degree)
            *(volatile int*)c.dpflag = 1;
        q.push(v[j]);
    }
}

// Writes the warp's local queues to the next frontier (warp-converged). Positions come
// from the two-level prefix sum: the warp scan (ballot/popc when every lane holds at
// most one vertex), then one reservation per warp. With induced coalescing (K7), the
// first `min` entries of every queue go out as full rows, lane-contiguous, and only the
// rest by prefix sum.
template <class Sink>
__device__ void flush(const Ctx& c, LocalQueue& q, const Sink& sink) {
    const Cfg& g = *c.cfg;
    const int lane = lane_id();
    int total, ex;
    if (g.binary && __all_sync(GPUBFS_FULL_MASK, q.len <= 1))
        ex = warp_binary_exclusive_scan(q.len == 1, &total);
    else
        ex = warp_exclusive_scan(q.len, &total);
    if (total == 0) return;
    int base = 0;
    if (lane == 0) {
        base = sink.reserve(total);
        atomicAdd(c.red + RED_FLUSHES, 1);
    }
    base = __shfl_sync(GPUBFS_FULL_MASK, base, 0);
    if (g.K7 > 0 && total >= 32 * g.K7) {
        const int rows = warp_min(q.len);
        int rest;
        const int ex_rest = warp_exclusive_scan(q.len - rows, &rest);
        for (int k = 0; k < rows; ++k) sink.put(base + k * 32 + lane, q.at(k));
        for (int k = rows; k < q.len; ++k) sink.put(base + rows * 32 + ex_rest + (k - rows), q.at(k));
        if (lane == 0) atomicAdd(c.red + RED_COALESCED, 1);
    } else {
        for (int k = 0; k < q.len; ++k) sink.put(base + ex + k, q.at(k));
    }
    q.len = 0;
}

// Flushes when some lane could not take another round of vertices.
template <class Sink>
__device__ __forceinline__ void flush_if_full(const Ctx& c, LocalQueue& q, const Sink& sink) {
    if (__any_sync(GPUBFS_FULL_MASK, q.len > LQ - U)) flush(c, q, sink);
}

#if BFS4K_DP
#if defined(cudaStreamFireAndForget)
#define BFS4K_FIRE_AND_FORGET cudaStreamFireAndForget
#else
#define BFS4K_FIRE_AND_FORGET ((cudaStream_t)0x4)
#endif
}  // namespace bfs4k
extern "C" __global__ void bfs4k_child(BFS4K_PARAMS, int u, long long start, long long deg, int next_level);
namespace bfs4k {

// Section 5.3: a child grid of ceil(deg / (K3 * K6)) blocks of K6 threads (the parent's
// block size), each thread K3 neighbours. Fire-and-forget: the level ends when the
// parent grid and all its children have. False if the launch was refused (pending
// launch buffer full): the caller expands the list itself.
__device__ bool launch_child(const Ctx& c, int u, long long start, long long deg) {
    const Cfg& g = *c.cfg;
    const long long per_block = (long long)g.K3 * K6;
    const int blocks = (int)((deg + per_block - 1) / per_block);
    const size_t smem = (size_t)LQ * K6 * sizeof(int) + (size_t)g.hash_child * sizeof(unsigned long long);
    bfs4k_child<<<blocks, K6, smem, BFS4K_FIRE_AND_FORGET>>>(c.row, c.col, c, u, start, deg, c.next_level);
    if (cudaGetLastError() != cudaSuccess) {
        atomicAdd(c.red + RED_FAILED, 1);
        return false;
    }
    atomicAdd(c.red + RED_LAUNCHES, 1);
    return true;
}
#endif

// One list [s, e) of vertex u by the whole warp (warp-uniform arguments).
template <class Sink>
__device__ void warp_list(const Ctx& c, LocalQueue& q, const Sink& sink, Tally& t, int u,
                          long long s, long long e) {
    const int lane = lane_id();
    for (long long kb = s; kb < e; kb += 32 * U) {
        int v[U], p[U];
        bool a[U];
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const long long k = kb + j * 32 + lane;
            a[j] = k < e;
            v[j] = a[j] ? __ldg(c.col + k) : 0;
            p[j] = u;
        }
        visit<U>(c, q, t, v, a, p);
        flush_if_full(c, q, sink);
    }
}

// Dynamic virtual warps (section 5.2): vertex i of the frontier belongs to virtual
// warp i mod (T / W); its W lanes stride over the list, U neighbours each per round.
// Each virtual warp moves to its next vertex as soon as its list is done, so a warp
// waits for its longest list only at the end of the level; the next vertex and its
// offsets are loaded one vertex ahead, while the current list is walked.
// Warp-converged throughout.
template <bool DPL, class Src, class Sink>
__device__ void expand_vwarp(const Ctx& c, const Src& src, int F, int W, long long gtid,
                             long long T, LocalQueue& q, const Sink& sink, Tally& t) {
    const int lane = lane_id();
    const int r = lane & (W - 1);
    const long long nvw = T / W;
    long long i = gtid / W;  // the next vertex to load
    int pu = 0;              // loaded ahead: vertex, list bounds
    long long ps = 0, pe = 0;
    bool ahead = i < F;
    if (ahead) {
        pu = src.get((int)i);
        ps = c.row[pu];
        pe = c.row[pu + 1];
        i += nvw;
    }
    long long kb = 0, end = 0;
    int u = 0;
    bool have = false;
    for (;;) {
        const bool need = !have && ahead;
        if (!__any_sync(GPUBFS_FULL_MASK, have || need)) break;
        if (need) {
            u = pu;
            kb = ps;
            end = pe;
            have = kb < end;
            ahead = i < F;
            if (ahead) {
                pu = src.get((int)i);
                ps = c.row[pu];
                pe = c.row[pu + 1];
                i += nvw;
            }
        }
#if BFS4K_DP
        if (DPL) {
            int launched = 0;
            if (need && have && r == 0 && end - kb >= c.cfg->dp_degree)
                launched = launch_child(c, u, kb, end - kb);
            launched = __shfl_sync(GPUBFS_FULL_MASK, launched, lane & ~(W - 1));
            if (launched) have = false;
        }
#endif
        int v[U], p[U];
        bool a[U];
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const long long k = kb + (long long)j * W + r;
            a[j] = have && k < end;
            v[j] = a[j] ? __ldg(c.col + k) : 0;
            p[j] = u;
        }
        visit<U>(c, q, t, v, a, p);
        flush_if_full(c, q, sink);
        if (have) {
            kb += (long long)U * W;
            have = kb < end;
        }
    }
}

// Virtual warps of 32 with coalesced reads (section 5.6): when every warp has more
// than 32 vertices to expand, it reads 32 frontier entries and their offsets at once
// (one per lane) and walks the 32 lists one after the other, sharing each list's
// bounds through shuffles.
template <bool DPL, class Src, class Sink>
__device__ void expand_warp_batched(const Ctx& c, const Src& src, int F, long long gtid,
                                    long long T, LocalQueue& q, const Sink& sink, Tally& t) {
    const int lane = lane_id();
    const long long stride = T / 32 * 32;
    long long b = (gtid / 32) * 32;
    int u = 0;
    long long s = 0, e = 0;
    if (b + lane < F) {
        u = src.get((int)(b + lane));
        s = c.row[u];
        e = c.row[u + 1];
    }
    while (b < F) {
        // The next batch is loaded while this one is walked.
        const long long nb = b + stride;
        int nu = 0;
        long long ns = 0, ne = 0;
        if (nb + lane < F) {
            nu = src.get((int)(nb + lane));
            ns = c.row[nu];
            ne = c.row[nu + 1];
        }
#if BFS4K_DP
        if (DPL && b + lane < F && e - s >= c.cfg->dp_degree && launch_child(c, u, s, e - s)) e = s;
#endif
        unsigned int todo = __ballot_sync(GPUBFS_FULL_MASK, e > s);
        while (todo) {
            const int j = __ffs(todo) - 1;
            todo &= todo - 1;
            warp_list(c, q, sink, t, __shfl_sync(GPUBFS_FULL_MASK, u, j),
                      __shfl_sync(GPUBFS_FULL_MASK, s, j), __shfl_sync(GPUBFS_FULL_MASK, e, j));
        }
        b = nb;
        u = nu;
        s = ns;
        e = ne;
    }
}

// Edge-discover (section 5.4): each warp takes 32 frontier vertices, scans their
// degrees, and in each round gives lane l the edge base + l, found by a binary search of
// the scan through shuffles. EXT: while the last lane's list covers the whole next
// round, the round is that list's and needs no search.
template <bool DPL, class Src, class Sink>
__device__ void expand_edges(const Ctx& c, const Src& src, int F, long long gtid, long long T,
                             LocalQueue& q, const Sink& sink, Tally& t) {
    const int lane = lane_id();
    const bool ext = c.cfg->ext != 0;
    const long long nwarps = T / 32;
    for (long long b = (gtid / 32) * 32; b < F; b += nwarps * 32) {
        const long long i = b + lane;
        int u = 0;
        long long s = 0, e = 0;
        if (i < F) {
            u = src.get((int)i);
            s = c.row[u];
            e = c.row[u + 1];
        }
#if BFS4K_DP
        if (DPL && i < F && e - s >= c.cfg->dp_degree && launch_child(c, u, s, e - s)) e = s;
#endif
        // Lists too long for 32-bit sums are walked by the whole warp first.
        unsigned int huge = __ballot_sync(GPUBFS_FULL_MASK, e - s > HUGE_LIST);
        while (huge) {
            const int j = __ffs(huge) - 1;
            huge &= huge - 1;
            warp_list(c, q, sink, t, __shfl_sync(GPUBFS_FULL_MASK, u, j),
                      __shfl_sync(GPUBFS_FULL_MASK, s, j), __shfl_sync(GPUBFS_FULL_MASK, e, j));
        }
        const int deg = e - s > HUGE_LIST ? 0 : (int)(e - s);
        const int incl = warp_inclusive_scan(deg);
        const int total = __shfl_sync(GPUBFS_FULL_MASK, incl, 31);
        const int ex = incl - deg;
        int cur = -1;  // EXT: the list of the previous round's last lane
        for (int base = 0; base < total; base += 32 * U) {
            int v[U], p[U];
            bool a[U];
#pragma unroll
            for (int j = 0; j < U; ++j) {
                const int round = base + j * 32;
                const int edge = round + lane;
                int owner;
                if (ext && cur >= 0 && __shfl_sync(GPUBFS_FULL_MASK, incl, cur) >= round + 32) {
                    owner = cur;
                } else {
                    // The first lane whose inclusive sum exceeds `edge` owns it.
                    int lo = 0, hi = 31;
#pragma unroll
                    for (int step = 0; step < 5; ++step) {
                        const int mid = (lo + hi) >> 1;
                        if (__shfl_sync(GPUBFS_FULL_MASK, incl, mid) > edge) hi = mid;
                        else lo = mid + 1;
                    }
                    owner = lo;
                }
                if (ext) cur = __shfl_sync(GPUBFS_FULL_MASK, owner, 31);
                const long long os = __shfl_sync(GPUBFS_FULL_MASK, s, owner);
                const int oex = __shfl_sync(GPUBFS_FULL_MASK, ex, owner);
                p[j] = __shfl_sync(GPUBFS_FULL_MASK, u, owner);
                a[j] = edge < total;
                v[j] = a[j] ? __ldg(c.col + os + (edge - oex)) : 0;
            }
            visit<U>(c, q, t, v, a, p);
            flush_if_full(c, q, sink);
        }
    }
}

// One frontier propagation step over F vertices with T threads (gtid: this thread's
// index among them): the technique of section 5 for this frontier, then the last
// flush. Returns the counter word of the technique used. Every thread calls it.
template <bool DPL, class Src, class Sink>
__device__ int expand_level(const Ctx& c, const Src& src, int F, long long gtid, long long T,
                            LocalQueue& q, const Sink& sink, Tally& t) {
    const Cfg& g = *c.cfg;
    int technique;
    if (g.K4 > 0 && (long long)F * g.K4 < T) {
        expand_edges<DPL>(c, src, F, gtid, T, q, sink, t);
        technique = CNT_EDGE_DISCOVER;
    } else {
        int W = g.K1;
        if (g.dynamic) W = max(g.K1, min(32, floor_pow2((int)min(T / F, (long long)32))));
        if (W == 32 && F > T && g.K7 > 0) expand_warp_batched<DPL>(c, src, F, gtid, T, q, sink, t);
        else expand_vwarp<DPL>(c, src, F, W, gtid, T, q, sink, t);
        technique = CNT_VWARP + log2_pow2(W);
    }
    flush(c, q, sink);
    return technique;
}

// Block totals of the tallies, added to counters[] (every thread calls it).
__device__ void add_tallies(Shared& sh, const Tally& t, int* counters) {
    const int dups = warp_sum(t.dups), lost = warp_sum(t.lost);
    if (lane_id() == 0) {
        if (dups) atomicAdd(&sh.red[RED_DUPS], dups);
        if (lost) atomicAdd(&sh.red[RED_LOST], lost);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        const int words[RED_WORDS] = {CNT_HASH_DUPLICATES, CNT_CLAIMS_LOST, CNT_CHILD_LAUNCHES,
                                      CNT_CHILD_FAILED, CNT_FLUSHES, CNT_COALESCED};
#pragma unroll
        for (int k = 0; k < RED_WORDS; ++k)
            if (sh.red[k]) atomicAdd(counters + words[k], sh.red[k]);
    }
}

__device__ __forceinline__ void begin_block(Shared& sh, const Cfg& config) {
    if (threadIdx.x == 0) {
        sh.cfg = config;
        for (int k = 0; k < 8; ++k) sh.red[k] = 0;
    }
}

}  // namespace bfs4k

using namespace bfs4k;

// Resets the traversal state and puts the source in the frontier of level 0.
extern "C" __global__ void bfs4k_init(BFS4K_PARAMS, int src) {
    const int n = p.config.n;
    int* const dist = p.dist;
    int* const parent = p.parent;
    unsigned int* const bitmask = p.bitmask;
    const long long gtid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = gtid; i < n; i += stride) {
        dist[i] = i == src ? 0 : -1;
        if (parent) parent[i] = i == src ? src : -1;
    }
    const int words = (n + 31) >> 5;
    for (long long w = gtid; w < words; w += stride)
        bitmask[w] = w == (src >> 5) ? 1u << (src & 31) : 0u;
    if (gtid == 0) {
        int* const status = p.status;
        for (int k = 0; k < ST_WORDS; ++k) status[k] = 0;
        for (int k = 0; k < CNT_WORDS; ++k) p.counters[k] = 0;
        const long long dp_degree = p.config.dp_degree;
        p.q0[0] = src;
        status[ST_SLOTS + SLOT_COUNT] = 1;
        status[ST_SLOTS + SLOT_DP] = dp_degree > 0 && row[src + 1] - row[src] >= dp_degree;
    }
    (void)col;
}

// Section 5.5: one block runs level after level while the frontier fits its shared
// memory (at most FT = 1024 * K5 vertices), with the hash table in the rest of it.
extern "C" __global__ void __launch_bounds__(BFS4K_SINGLE_BLOCK, 1) bfs4k_single(BFS4K_PARAMS) {
    BFS4K_SHARED(Shared, sh, dyn);
    const int tid = threadIdx.x;
    int* const q0 = p.q0;
    int* const q1 = p.q1;
    int* const status = p.status;
    int* const counters = p.counters;
    begin_block(sh, p.config);
    __syncthreads();
    read_status(sh, status, true);
    const Cfg& g = sh.cfg;
    int L = sh.level;
    if (mode_of(g, sh.count, sh.dp) != MODE_SINGLE) return;
    // Shared memory: Fd, Fdnew (FT vertices each), local queues, hash table.
    int* const fd0 = reinterpret_cast<int*>(dyn);
    int* const fd1 = fd0 + g.ft;
    int* const queues = fd1 + g.ft;
    unsigned long long* table = reinterpret_cast<unsigned long long*>(queues + LQ * SB);
    {
        const int F = sh.count;
        int* in = by_parity(L, q0, q1);
        int* fd = by_parity(L, fd0, fd1);
        for (int i = tid; i < F; i += SB) fd[i] = __ldcg(in + i);
    }
    if (tid == 0) {
        sh.cnt[L % 3] = sh.count;
        sh.dpf[L % 3] = 0;
        sh.cnt[(L + 1) % 3] = 0;
        sh.dpf[(L + 1) % 3] = 0;
        atomicAdd(counters + CNT_KERNELS_ACTIVE, 1);
    }
    __syncthreads();
    Tally t;
    LocalQueue q = local_queue(queues);
    for (;;) {
        const int F = sh.cnt[L % 3];
        if (!(F > 0 && F <= g.ft && !(g.dp_degree > 0 && sh.dpf[L % 3]))) break;
        if (tid == 0) {  // level L + 1's output slot; read last before the previous barrier
            sh.cnt[(L + 2) % 3] = 0;
            sh.dpf[(L + 2) % 3] = 0;
        }
        int* out = by_parity(L + 1, q0, q1);
        const Ctx c = level_ctx(row, col, p, sh, table, g.hash_single, L + 1, &sh.dpf[(L + 1) % 3]);
        const SharedSink sink{by_parity(L + 1, fd0, fd1), g.ft, out, &sh.cnt[(L + 1) % 3]};
        const int technique =
            expand_level<false>(c, SharedSrc{by_parity(L, fd0, fd1)}, F, tid, SB, q, sink, t);
        if (tid == 0) {
            atomicAdd(counters + CNT_SINGLE_LEVELS, 1);
            atomicAdd(counters + technique, 1);
        }
        ++L;
        __syncthreads();
    }
    // Hand over: the shared part of the frontier goes to the global queue.
    const int F = sh.cnt[L % 3];
    {
        int* out = by_parity(L, q0, q1);
        const int* fd = by_parity(L, fd0, fd1);
        for (int i = tid; i < min(F, g.ft); i += SB) out[i] = fd[i];
    }
    if (tid == 0) {
        status[ST_LEVEL] = L;
        int* s = slot(status, L);
        s[SLOT_COUNT] = F;
        s[SLOT_DP] = sh.dpf[L % 3];
        int* next = slot(status, L + 1);
        next[SLOT_COUNT] = 0;
        next[SLOT_DP] = 0;
    }
    add_tallies(sh, t, counters);
}

// Adapted: the multi-block kernel as a persistent cooperative grid. Levels follow each
// other after a grid barrier while the frontier has more than FT / 2 vertices (it took
// over from the single-block kernel above FT), at most the grid's threads, and no
// vertex for a child kernel.
extern "C" __global__ void __launch_bounds__(BFS4K_K6, bfs4k::MIN_BLOCKS) bfs4k_coop(BFS4K_PARAMS) {
    BFS4K_SHARED(Shared, sh, dyn);
    int* const q0 = p.q0;
    int* const q1 = p.q1;
    int* const status = p.status;
    int* const counters = p.counters;
    begin_block(sh, p.config);
    __syncthreads();
    const Cfg& g = sh.cfg;
    const long long gtid = grid_thread<K6, long long>();
    const long long T = grid_threads<K6, long long>();
    // Shared memory: local queues, then the hash table.
    int* const queues = reinterpret_cast<int*>(dyn);
    unsigned long long* table = reinterpret_cast<unsigned long long*>(queues + LQ * K6);
    Tally t;
    LocalQueue q = local_queue(queues);
    bool first = true;
    read_status(sh, status, true);
    int L = sh.level;
    for (;;) {
        if (!first) read_status(sh, status, false);
        const int F = sh.count;
        // sh.count and sh.dp are rewritten only after the grid barrier below.
        const bool stay = first ? mode_of(g, F, sh.dp) == MODE_COOP
                                : F > g.ft_low && F <= g.coop_limit && !(g.dp_degree > 0 && sh.dp);
        if (!stay) break;
        first = false;
        if (gtid == 0) {
            int* clear = slot(status, L + 2);
            clear[SLOT_COUNT] = 0;
            clear[SLOT_DP] = 0;
        }
        int* next = slot(status, L + 1);
        int* out = by_parity(L + 1, q0, q1);
        const Ctx c = level_ctx(row, col, p, sh, table, g.hash_multi, L + 1, next + SLOT_DP);
        const GlobalSink sink{out, next + SLOT_COUNT};
        const int technique =
            expand_level<false>(c, GlobalSrc{by_parity(L, q0, q1)}, F, gtid, T, q, sink, t);
        if (gtid == 0) {
            atomicAdd(counters + CNT_COOP_LEVELS, 1);
            atomicAdd(counters + technique, 1);
        }
        ++L;
        GPUBFS_GRID_SYNC();
        if (threadIdx.x == 0) sh.level = L;
    }
    if (!first && gtid == 0) {
        status[ST_LEVEL] = L;
        atomicAdd(counters + CNT_KERNELS_ACTIVE, 1);
    }
    add_tallies(sh, t, counters);
}

// The paper's multi-block kernel: one level per launch, over every resident thread.
// With BFS4K_DP, lists of at least dp_degree neighbours go to child kernels. The last
// block to finish moves status to the next level; the children may still be running,
// which is why the next kernel reads the frontier size only when it starts.
extern "C" __global__ void __launch_bounds__(BFS4K_K6, bfs4k::MIN_BLOCKS) bfs4k_level(BFS4K_PARAMS) {
    BFS4K_SHARED(Shared, sh, dyn);
    int* const q0 = p.q0;
    int* const q1 = p.q1;
    int* const status = p.status;
    int* const counters = p.counters;
    begin_block(sh, p.config);
    __syncthreads();
    read_status(sh, status, true);
    const Cfg& g = sh.cfg;
    const int L = sh.level;
    const int F = sh.count;
    if (mode_of(g, F, sh.dp) != MODE_LEVEL) return;
    const long long gtid = grid_thread<K6, long long>();
    const long long T = grid_threads<K6, long long>();
    if (gtid == 0) {
        int* clear = slot(status, L + 2);
        clear[SLOT_COUNT] = 0;
        clear[SLOT_DP] = 0;
    }
    int* next = slot(status, L + 1);
    int* out = by_parity(L + 1, q0, q1);
    int* const queues = reinterpret_cast<int*>(dyn);
    unsigned long long* const table = reinterpret_cast<unsigned long long*>(queues + LQ * K6);
    const Ctx c = level_ctx(row, col, p, sh, table, g.hash_multi, L + 1, next + SLOT_DP);
    const GlobalSink sink{out, next + SLOT_COUNT};
    Tally t;
    LocalQueue q = local_queue(queues);
    const int technique =
        expand_level<BFS4K_DP != 0>(c, GlobalSrc{by_parity(L, q0, q1)}, F, gtid, T, q, sink, t);
    add_tallies(sh, t, counters);
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        sh.last = atomicAdd(status + ST_BLOCKS_DONE, 1) == (int)gridDim.x - 1;
        if (sh.last) {
            status[ST_BLOCKS_DONE] = 0;
            status[ST_LEVEL] = L + 1;
            atomicAdd(counters + CNT_LEVEL_LEVELS, 1);
            atomicAdd(counters + CNT_KERNELS_ACTIVE, 1);
            atomicAdd(counters + technique, 1);
        }
    }
}

#if BFS4K_DP
// A child kernel (section 5.3): block b expands neighbours [b * K3 * K6, (b + 1) * K3 *
// K6) of u's list, thread t every K6-th of them from t on (coalesced), K3 in all.
extern "C" __global__ void __launch_bounds__(BFS4K_K6) bfs4k_child(BFS4K_PARAMS, int u, long long start,
                                                                  long long deg, int next_level) {
    BFS4K_SHARED(Shared, sh, dyn);
    begin_block(sh, p.config);
    __syncthreads();
    const Cfg& g = sh.cfg;
    int* next = slot(p.status, next_level);
    int* const queues = reinterpret_cast<int*>(dyn);
    unsigned long long* const table = reinterpret_cast<unsigned long long*>(queues + LQ * K6);
    const Ctx c = level_ctx(row, col, p, sh, table, g.hash_child, next_level, next + SLOT_DP);
    const GlobalSink sink{by_parity(next_level, p.q0, p.q1), next + SLOT_COUNT};
    const long long per_block = (long long)g.K3 * K6;
    const long long lo = start + blockIdx.x * per_block;
    const long long hi = min(start + deg, lo + per_block);
    Tally t;
    LocalQueue q = local_queue(queues);
    for (long long kb = lo; kb < hi; kb += (long long)U * K6) {
        int v[U], par[U];
        bool a[U];
#pragma unroll
        for (int j = 0; j < U; ++j) {
            const long long k = kb + (long long)j * K6 + threadIdx.x;
            a[j] = k < hi;
            v[j] = a[j] ? __ldg(col + k) : 0;
            par[j] = u;
        }
        visit<U>(c, q, t, v, a, par);
        flush_if_full(c, q, sink);
    }
    flush(c, q, sink);
    add_tallies(sh, t, p.counters);
}
#endif
