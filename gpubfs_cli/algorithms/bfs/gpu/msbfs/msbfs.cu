// Bit-parallel multi-source BFS (after Then et al., PVLDB 2014) with Beamer's direction
// optimization, in one persistent cooperative kernel per batch of up to 64 sources, or
// 128 or 256 in the wider builds (MSBFS_WORDS): bit i of a vertex's source sets belongs
// to source i (bit i % 64 of word i / 64).
//
//   seen[u]      sources that reached u
//   vis(L)[u]    sources whose level-L frontier holds u (three rotating arrays)
//   q(L)         the vertices with vis(L) != 0, compacted (three rotating queues)
//
//   top-down   the queue's lists gathered load-balanced over tiles (gpu/include/tiled.cuh,
//              expand.cuh); for an edge f -> u, m = vis(L)[f] & ~seen[u]; the bits an
//              atomicOr on seen[u] sets first are u's new sources (labelled L + 1, parent
//              f), or-ed into vis(L+1)[u]; the thread whose or finds vis(L+1)[u] empty
//              queues u. In the wider builds a set is several words, so no one word's or
//              says who was first: the thread whose atomicMax raises u's mark to L + 1
//              queues it, and the add that brings u's count of sources to the batch's
//              takes u out of m_u.
//              Lists of hub_edges or more are left to a hub pass after the level's
//              barrier, which spreads their edges over every warp of the grid
//              (gpu/include/spread.cuh; one more barrier, only on a level with such a list)
//   bottom-up  a thread per vertex u not yet seen by every live source (one whose
//              level-L frontier is not empty) scans u's in-edges, taking from each
//              neighbour v the bits of vis(L)[v] it still needs (v is their parent), and
//              stops once every live source has reached u; past thread_edges in-edges
//              its warp scans the rest of the list with it, 32 edges a step. A list
//              still lacking sources past warp_edges in-edges is held for a hub pass
//              after the level's barrier, its remaining edges a chunk a warp over the
//              grid (an atomicOr into vis(L+1)[u] a find), then a settling pass labels
//              and queues those vertices: two more barriers, only on a level with such
//              a list. So a hub's list (64 K in-edges: 2,000 dependent 32-edge steps
//              for one warp) is not the level's critical path
//
// The queue rather than a scan of all n words per level: a top-down level costs its
// frontier's edges, not n (a path or a road graph runs thousands of tiny levels), and
// both directions build the next queue as they go, so a switch converts nothing.
// Labels are written in the level that wins them (exactly once per source and vertex:
// an atomic's old value, or the one thread that owns u bottom-up), which needs no pass
// after the level. Top-down, as bits are won (its u are scattered anyway). Bottom-up,
// parents as found, distances once the warp's scans are done: a warp holds 32
// consecutive u, so it stores one source's row at a time over its lanes (one coalesced
// store per source it found) rather than each lane its own bits, scattered over k rows
// of n. vis(L-1)'s words are cleared during level L, when nobody reads them, so a level
// costs one grid barrier.
//
// The STATS instantiation (counters and profile) adds per-level counters (msbfs.cuh's
// MS_CNT_*) and %globaltimer stamps; the timed one compiles them out.
//
// Switch (decided by every CTA from the same counts): top-down -> bottom-up when
// m_f * alpha > m_u, bottom-up -> top-down when n_f * beta < n. n_f: the frontier's
// vertices; m_f: their out-edges; m_u: the in-edges of the vertices that some source of
// the batch has not reached yet (a vertex leaves m_u once seen[u] holds every source).
//
// Vertex ids are 32-bit (the host checks n < 2^31); edge offsets are offset_t (msbfs.cuh):
// int, or long long in the MSBFS_OFFSET64 build (m >= 2^31); label indices i * n + u are
// 64-bit.
#include "msbfs.cuh"
#include "bottom_up.cuh"  // BU_BATCH, the in-edges a bottom-up lane loads at once; frontier_word
#include "expand.cuh"
#include "spread.cuh"
#include "tiled.cuh"

namespace msbfs {

constexpr int BLOCK = MSBFS_BLOCK;
static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "CTAs of 32 to 1024 threads");
static_assert(sizeof(Params) == MSBFS_PARAMS_BYTES, "strategies.py's PARAMS mirrors Params");
typedef unsigned long long word_t;
constexpr int WORDS = MSBFS_WORDS;
static_assert(WORDS == 1 || WORDS == 2 || WORDS == 4, "64, 128 or 256 sources a pass");
static_assert(WORDS <= MSBFS_MAX_WORDS && 3 * (4 + MSBFS_MAX_WORDS) <= MS_SLOTS_END && MS_SLOTS_END <= MS_CTL_LEVELS,
              "ctl's three slots end before its pass words");

// A set of the batch's sources: source i is bit i % 64 of word i / 64.
struct Bits {
    word_t w[WORDS];

    __device__ bool any() const {
        word_t x = 0;
#pragma unroll
        for (int k = 0; k < WORDS; ++k) x |= w[k];
        return x != 0;
    }
    __device__ int count() const {
        int c = 0;
#pragma unroll
        for (int k = 0; k < WORDS; ++k) c += __popcll(w[k]);
        return c;
    }
    __device__ bool has(int i) const { return (w[i / MSBFS_WORD] >> (i % MSBFS_WORD)) & 1; }
};

__device__ __forceinline__ Bits no_bits() {
    Bits b;
#pragma unroll
    for (int k = 0; k < WORDS; ++k) b.w[k] = 0;
    return b;
}
__device__ __forceinline__ Bits one_bit(int i) {
    Bits b = no_bits();
    b.w[i / MSBFS_WORD] = 1ull << (i % MSBFS_WORD);
    return b;
}
__device__ __forceinline__ Bits operator&(Bits a, const Bits& b) {
#pragma unroll
    for (int k = 0; k < WORDS; ++k) a.w[k] &= b.w[k];
    return a;
}
__device__ __forceinline__ Bits operator|(Bits a, const Bits& b) {
#pragma unroll
    for (int k = 0; k < WORDS; ++k) a.w[k] |= b.w[k];
    return a;
}
__device__ __forceinline__ Bits operator~(Bits a) {
#pragma unroll
    for (int k = 0; k < WORDS; ++k) a.w[k] = ~a.w[k];
    return a;
}
__device__ __forceinline__ bool operator==(const Bits& a, const Bits& b) {
    word_t x = 0;
#pragma unroll
    for (int k = 0; k < WORDS; ++k) x |= a.w[k] ^ b.w[k];
    return x == 0;
}

// Each source of `b`, lowest first.
template <class F>
__device__ __forceinline__ void each_source(const Bits& b, F f) {
#pragma unroll
    for (int k = 0; k < WORDS; ++k)
        for (word_t x = b.w[k]; x; x &= x - 1) f(k * MSBFS_WORD + __ffsll((long long)x) - 1);
}

// A set in global memory, through L2 (__ldcg), or as bottom-up reads the frontier. The
// wider sets load two words at once (a set of 2 or 4 words is 16-byte aligned): one
// request a pair rather than a word.
template <class Load>
__device__ __forceinline__ Bits load_bits(const Bits* p, Load load) {
    Bits b;
    if (WORDS == 1) {
        b.w[0] = load(p->w);
    } else {
        const ulonglong2* pairs = reinterpret_cast<const ulonglong2*>(p->w);
#pragma unroll
        for (int k = 0; k < WORDS / 2; ++k) {
            const ulonglong2 x = load(pairs + k);
            b.w[2 * k] = x.x;
            b.w[2 * k + 1] = x.y;
        }
    }
    return b;
}
__device__ __forceinline__ Bits load_cg(const Bits* p) {
    return load_bits(p, [](const auto* q) { return __ldcg(q); });
}
__device__ __forceinline__ Bits frontier_bits(const Bits* p) {
    return load_bits(p, [](const auto* q) { return frontier_word(q); });
}

// m's words or-ed into *p, one atomic each word that has a bit; the old words (0 where m
// has none).
__device__ __forceinline__ Bits or_into(Bits* p, const Bits& m) {
    Bits old;
#pragma unroll
    for (int k = 0; k < WORDS; ++k) old.w[k] = m.w[k] ? atomicOr(p->w + k, m.w[k]) : 0;
    return old;
}

struct Shared {
    union {  // the tiles' gathering and the hub pass: a grid barrier apart
        GatherShared<BLOCK, offset_t> g;
        struct {
            SpreadLists<MSBFS_SPREAD, offset_t> l;
            offset_t scan[33];  // block_exclusive_scan_t's (g.scratch would overlap l)
        } spread;
    };
    word_t slot[MS_SLOT_WORDS];  // the level's counts, read once per CTA
    word_t stat[MS_CNT_KINDS];   // STATS: the level's counters summed over the CTA's warps
};

__device__ __forceinline__ Bits warp_or(Bits x) {
#pragma unroll
    for (int k = 0; k < WORDS; ++k)
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) x.w[k] |= __shfl_xor_sync(GPUBFS_FULL_MASK, x.w[k], d);
    return x;
}
__device__ __forceinline__ Bits shfl_bits(Bits x, int from) {
#pragma unroll
    for (int k = 0; k < WORDS; ++k) x.w[k] = __shfl_sync(GPUBFS_FULL_MASK, x.w[k], from);
    return x;
}
__device__ __forceinline__ Bits shfl_up_bits(Bits x, int d) {
#pragma unroll
    for (int k = 0; k < WORDS; ++k) x.w[k] = __shfl_up_sync(GPUBFS_FULL_MASK, x.w[k], d);
    return x;
}

// The parameters and what the kernel derives from them.
struct State : Params {
    Bits full;    // every source of the batch
    int sources;  // how many: full's bits

    __device__ Bits* seen_at(int u) const { return reinterpret_cast<Bits*>(seen) + u; }
    __device__ Bits* vis(int L) const { return reinterpret_cast<Bits*>(visit) + (size_t)(L % 3) * n; }
    __device__ int* q(int L) const { return queue + (size_t)(L % 3) * n; }
    __device__ word_t* slot(int L) const { return ctl + (L % 3) * MS_SLOT_WORDS; }
    __device__ int* hubs() const { return queue + (size_t)3 * n; }
    __device__ int* held() const { return queue + (size_t)3 * n + MSBFS_SPREAD; }  // two ints a held list
    __device__ word_t* hub_slot(int L) const { return slot(L + 1) + MS_SLOT_HUBS; }  // its count
    __device__ int out_degree(int v) const { return (int)(row[v + 1] - row[v]); }
    __device__ int in_degree(int v) const { return (int)(in_row[v + 1] - in_row[v]); }

    // Every source of `bits` reaches u at `level`, from `from`.
    template <bool PRED>
    __device__ void label(const Bits& bits, int u, int level, int from) const {
        each_source(bits, [&](int i) {
            const size_t at = (size_t)i * n + u;
            dist[at] = level;
            if (PRED) parent[at] = from;
        });
    }

    // Parents only: a bottom-up level writes the distances after its scan (label_warp).
    __device__ void name_parent(const Bits& bits, int u, int from) const {
        each_source(bits, [&](int i) { parent[(size_t)i * n + u] = from; });
    }

    // Warp-converged, lanes holding consecutive u: every source of a lane's `bits`
    // reaches its u at `level`. One source at a time over the warp's union, so a row
    // gets the warp's vertices in one store.
    __device__ void label_warp(const Bits& bits, int u, int level) const {
        each_source(warp_or(bits), [&](int i) {
            if (bits.has(i)) dist[(size_t)i * n + u] = level;
        });
    }

    // STATS, from CTA 0's thread 0: level L's direction and frontier, and level L + 1's
    // row cleared for the adds it gets next level.
    __device__ void record(int L, bool bu, long long nf) const {
        if (L < counter_cap) {
            counters[(size_t)MS_CNT_DIR * counter_cap + L] = bu ? 1 : 0;
            counters[(size_t)MS_CNT_FRONTIER * counter_cap + L] = (word_t)nf;
        }
        if (L + 1 < counter_cap)
            for (int k = 0; k < MS_CNT_KINDS; ++k) counters[(size_t)k * counter_cap + L + 1] = 0;
    }

    // Profile: the time at stamp `at` (msbfs.cuh's MS_PROF_*), from CTA 0's thread 0.
    __device__ void stamp(int at) const {
        if (prof && at < prof_cap && blockIdx.x == 0 && threadIdx.x == 0) prof[at] = GPUBFS_NOW();
    }

    // Warp-converged: the lanes with `mine` append u to q(L + 1), one reservation a warp.
    __device__ void enqueue(int L, bool mine, int u) const {
        const unsigned int m = __ballot_sync(GPUBFS_FULL_MASK, mine);
        if (m) {
            const word_t base = warp_leader_add(slot(L + 1) + MS_SLOT_NF, m, (word_t)__popc(m));
            if (mine) q(L + 1)[base + lane_rank(m)] = u;
        }
    }
};

// What a thread found in one level: summed (found: or-ed) per warp, then added to the
// next level's slot; vertices, edges and labels (STATS) to level L's counters.
struct Counts {
    word_t mf = 0, inf = 0;
    Bits found = no_bits();
    word_t labels = 0;
    unsigned int vertices = 0;  // at most n
    // STATS: edges examined, at most m: the offsets' width holds it (one register less
    // in the 32-bit build)
    edge_count_t edges = 0;

    // u joined the next frontier with `bits`; `all`: every source has now reached it.
    __device__ void joined(const State& S, int u, const Bits& bits, bool first, bool all) {
        if (first) mf += S.out_degree(u);
        if (all) inf += S.in_degree(u);
        found = found | bits;
    }
};

// Every thread of the CTA: lane 0 adds the warp's counts to slot L + 1. STATS: the
// counters go through the CTA's shared sums, one global add per CTA and kind, so that
// the profile's level times are not the counters' contention.
template <bool STATS>
__device__ void flush(const State& S, Shared& sh, int L, const Counts& c) {
    const word_t mf = warp_sum_t(c.mf), inf = warp_sum_t(c.inf);
    const Bits found = warp_or(c.found);
    if (lane_id() == 0) {
        word_t* next = S.slot(L + 1);
        if (mf) atomicAdd(next + MS_SLOT_MF, mf);
        if (inf) atomicAdd(next + MS_SLOT_INF, inf);
        or_into(reinterpret_cast<Bits*>(next + MS_SLOT_FOUND), found);
    }
    if (STATS) {
        const word_t v = warp_sum_t((word_t)c.vertices), e = warp_sum_t((word_t)c.edges), l = warp_sum_t(c.labels);
        if (lane_id() == 0) {
            if (v) atomicAdd(sh.stat + MS_CNT_VERTICES, v);
            if (e) atomicAdd(sh.stat + MS_CNT_EDGES, e);
            if (l) atomicAdd(sh.stat + MS_CNT_LABELS, l);
        }
        __syncthreads();
        if (threadIdx.x == 0) {  // zeroed here for the next level: its adds come after a grid barrier
            for (int k = MS_CNT_VERTICES; k <= MS_CNT_LABELS; ++k) {
                if (sh.stat[k] && L < S.counter_cap) atomicAdd(S.counters + (size_t)k * S.counter_cap + L, sh.stat[k]);
                sh.stat[k] = 0;
            }
        }
    }
}

template <bool PRED, bool STATS>
struct TopDownSink {
    const State* S;
    int L;
    Counts* c;
    __device__ void emit(int u, int f, bool active) {
        bool mine = false;
        if (active) {
            if (STATS) ++c->edges;
            const Bits m = load_cg(S->vis(L) + f) & ~load_cg(S->seen_at(u));  // a cheap look before the atomic
            if (m.any()) {
                const Bits old = or_into(S->seen_at(u), m);
                const Bits fresh = m & ~old;
                if (fresh.any()) {
#if MSBFS_WORDS == 1
                    mine = atomicOr(S->vis(L + 1)[u].w, fresh.w[0]) == 0;
                    const bool all = (old | fresh) == S->full;
#else
                    or_into(S->vis(L + 1) + u, fresh);
                    mine = atomicMax(S->marks + 2 * (size_t)u, L + 1) <= L;
                    const int got = fresh.count();
                    const bool all = atomicAdd(S->marks + 2 * (size_t)u + 1, got) + got == S->sources;
#endif
                    c->joined(*S, u, fresh, mine, all);
                    S->label<PRED>(fresh, u, L + 1, f);
                    if (STATS) c->labels += (word_t)fresh.count();
                }
            }
        }
        S->enqueue(L, mine, u);
    }
};

// A tiled top-down level (tiled.cuh): 64 sources' first level goes to 64 CTAs, not one.
// A list of hub_edges or more goes to the hub queue instead while it has room (its
// vertex counted here).
template <bool PRED, bool STATS>
__device__ void top_down(const State& S, Shared& sh, int L, int nf, Counts& c) {
    TopDownSink<PRED, STATS> sink{&S, L, &c};
    top_down_tiles<BLOCK, MSBFS_SPREAD, STATS>(sh.g, S, L, S.q(L), nf, c, sink);
}

// After top-down level L's barrier: the lists its tiles left to the hub queue (the first
// MSBFS_SPREAD; more such lists are many CTAs' tiles anyway). Every thread reads the
// same count, so the whole grid takes the same branch.
__device__ __forceinline__ int hub_count(const State& S, int L) {
    const word_t h = __ldcg(S.hub_slot(L));
    const int count = h < MSBFS_SPREAD ? (int)h : MSBFS_SPREAD;
    if (count && blockIdx.x == 0 && threadIdx.x == 0) ++S.ctl[MS_CTL_HUB_LEVELS];
    return count;
}

// The hub pass of level L: those lists' edges spread over every warp of the grid, so a
// hub is not one CTA's. Its edges and labels count in level L's counters.
template <bool PRED, bool STATS>
__device__ void hub_pass(const State& S, Shared& sh, int L, int count) {
    Counts c;
    TopDownSink<PRED, STATS> sink{&S, L, &c};
    const offset_t total = spread_scan<BLOCK>(S.row, S.hubs(), count, sh.spread.l.off, sh.spread.l.v, sh.spread.scan);
    spread_edges<BLOCK>(S.row, S.col, sh.spread.l.off, sh.spread.l.v, count, total, sink);
    flush<STATS>(S, sh, L, c);
}

// A bottom-up level found the sources `acc` at u, which had `s`: only u's warp (or, for a
// held list, its settling thread) writes seen[u] and u's count of sources this level.
template <bool STATS>
__device__ __forceinline__ void found_at(const State& S, int u, const Bits& s, const Bits& acc, Counts& c) {
    *S.seen_at(u) = s | acc;
    c.joined(S, u, acc, true, (s | acc) == S.full);
#if MSBFS_WORDS > 1
    S.marks[2 * (size_t)u + 1] += acc.count();
#endif
    if (STATS) c.labels += (word_t)acc.count();
}

// The lists a warp's lanes left unfinished: the warp takes them one at a time, a lane an
// edge, 32 a step, up to the lane's lim; a bit found by several lanes goes to the lowest
// (an exclusive prefix OR). Each such lane's acc gains what the warp found, its miss
// keeps what it did not.
template <bool PRED, bool STATS>
__device__ __forceinline__ void warp_scan(const State& S, const Bits* cur, int u, Bits& miss, Bits& acc,
                                          offset_t e, offset_t lim, Counts& c) {
    const int lane = lane_id();
    for (unsigned int rest = __ballot_sync(GPUBFS_FULL_MASK, miss.any() && e < lim); rest;
         rest &= rest - 1) {
        const int j = __ffs(rest) - 1;
        const int uj = __shfl_sync(GPUBFS_FULL_MASK, u, j);
        Bits missj = shfl_bits(miss, j);
        const offset_t endj = __shfl_sync(GPUBFS_FULL_MASK, lim, j);
        for (offset_t b = __shfl_sync(GPUBFS_FULL_MASK, e, j); b < endj && missj.any(); b += 32) {
            int v = -1;
            Bits got = no_bits();
            if (b + lane < endj) {
                if (STATS) ++c.edges;
                v = S.in_col[b + lane];
                got = frontier_bits(cur + v) & missj;
            }
            Bits below = got;  // inclusive prefix OR over the lanes
#pragma unroll
            for (int d = 1; d < 32; d <<= 1) {
                const Bits y = shfl_up_bits(below, d);
                if (lane >= d) below = below | y;
            }
            const Bits all = shfl_bits(below, 31);
            const Bits earlier = shfl_up_bits(below, 1);
            const Bits fresh = lane ? got & ~earlier : got;
            if (PRED && fresh.any()) S.name_parent(fresh, uj, v);
            missj = missj & ~all;
        }
        if (lane == j) {  // the bits the warp found for u
            acc = acc | (miss & ~missj);
            miss = missj;
        }
    }
}

// u's list, still lacking sources at lim, held for the hub pass: its chunks past lim
// queued, what was found so far left in vis(L+1)[u] (the hub pass ors the rest in,
// settle_hubs labels u); acc and miss come back empty.
__device__ __forceinline__ void hold(const State& S, int L, int u, offset_t lim, Bits& miss, Bits& acc) {
    const word_t chunks = ((word_t)(S.in_row[u + 1] - lim) + MSBFS_HELD_CHUNK - 1) / MSBFS_HELD_CHUNK;
    const word_t at = atomicAdd(S.hub_slot(L), (1ull << MS_HELD_SHIFT) | chunks);
    int* entry = S.held() + 2 * (size_t)(at >> MS_HELD_SHIFT);
    entry[0] = u;
    entry[1] = (int)(at & ((1ull << MS_HELD_SHIFT) - 1));  // its first chunk
    S.vis(L + 1)[u] = acc;
    acc = no_bits();
    miss = no_bits();
}

// A thread per vertex, grid-stride with warp-uniform trips (base is the warp's: the
// queue's ballots and label_warp need every lane). Only u's warp writes seen[u],
// vis(L+1)[u] and u's labels in a bottom-up level: no atomics. `live`: the sources with
// a level-L frontier, the only ones that can reach u now (a finished or isolated source
// would otherwise keep every vertex scanning its whole list). A list's first warp_edges
// in-edges (0: all) are its thread's and its warp's; a list still lacking sources past
// them is held (warp_scan), and the grid's warps finish it after the level's barrier
// (bottom_up_hubs), so one warp's hub does not hold up the level.
template <bool PRED, bool STATS>
__device__ void bottom_up(const State& S, int L, const Bits& live, int thread_edges, int warp_edges, Counts& c) {
    const Bits* cur = S.vis(L);
    Bits* next = S.vis(L + 1);
    const int lane = lane_id();
    const long long stride = grid_threads<BLOCK, long long>();
    for (long long base = grid_thread<BLOCK, long long>() - lane; base < S.n; base += stride) {
        const int u = (int)base + lane;
        Bits miss = no_bits(), acc = no_bits();  // miss: the live sources u still lacks
        offset_t e = 0, lim = 0;  // lim: the list's end, or warp_edges in-edges in
        bool longer = false;      // the list goes on past lim
        if (u < S.n) {
            miss = ~load_cg(S.seen_at(u)) & live;  // live holds only the batch's sources
            if (miss.any()) {
                e = S.in_row[u];
                lim = S.in_row[u + 1];
                longer = warp_edges > 0 && lim - e > warp_edges;
                if (longer) lim = e + warp_edges;
                const offset_t stop = thread_edges > 0 && lim - e > thread_edges ? e + thread_edges : lim;
                // BU_BATCH in-edges at a time: their column and frontier loads are
                // issued unconditionally (clamped to the list), then taken in order, so
                // the edges examined and the parents named are a serial scan's.
                while (e < stop && miss.any()) {
                    int v[BU_BATCH];
                    Bits f[BU_BATCH];
#pragma unroll
                    for (int j = 0; j < BU_BATCH; ++j) v[j] = S.in_col[e + j < stop ? e + j : stop - 1];
#pragma unroll
                    for (int j = 0; j < BU_BATCH; ++j) f[j] = frontier_bits(cur + v[j]);
#pragma unroll
                    for (int j = 0; j < BU_BATCH; ++j) {
                        if (e < stop && miss.any()) {
                            const Bits fresh = f[j] & miss;
                            if (fresh.any()) {
                                acc = acc | fresh;
                                miss = miss & ~fresh;
                                if (PRED) S.name_parent(fresh, u, v[j]);
                            }
                            ++e;
                            if (STATS) ++c.edges;
                        }
                    }
                }
                if (STATS) ++c.vertices;
            }
        }
        warp_scan<PRED, STATS>(S, cur, u, miss, acc, e, lim, c);
        if (longer && miss.any()) hold(S, L, u, lim, miss, acc);
        S.label_warp(acc, u, L + 1);  // acc is final on every lane
        const bool mine = acc.any();
        if (mine) {
            next[u] = acc;
            found_at<STATS>(S, u, load_cg(S.seen_at(u)), acc, c);  // seen read again rather than held through the scan
        }
        S.enqueue(L, mine, u);
    }
}

// The held lists' chunks (a held list's in-edges past warp_edges, MSBFS_HELD_CHUNK at a
// time) as a sorted array: entry i's first chunk, for the binary search of a chunk's list.
struct FirstChunks {
    const int* held;
    __device__ __forceinline__ int operator[](int i) const { return __ldcg(held + 2 * (size_t)i + 1); }
};

// After bottom-up level L's barrier: every in-edge of the held lists past warp_edges, a
// chunk of one list a warp at a time over the whole grid. An edge from a neighbour whose
// frontier holds live sources the list's vertex still lacks ors them into vis(L+1)[u];
// the bits an or sets first name this neighbour their parent. Every such edge is
// examined, so the counts do not depend on timing.
template <bool PRED, bool STATS>
__device__ void bottom_up_hubs(const State& S, Shared& sh, int L, const Bits& live, word_t h, int warp_edges) {
    Counts c;
    const int lists = (int)(h >> MS_HELD_SHIFT);
    const long long chunks = (long long)(h & ((1ull << MS_HELD_SHIFT) - 1));
    const int lane = lane_id();
    const Bits* cur = S.vis(L);
#pragma unroll 1
    for (long long k = grid_warp<BLOCK>(); k < chunks; k += grid_warps<BLOCK>()) {
        const int i = mergepath_vertical(FirstChunks{S.held()}, lists, (int)k) - 1;  // the last list starting <= k
        const int u = __ldcg(S.held() + 2 * (size_t)i);
        Bits* acc = S.vis(L + 1) + u;
        const Bits need = live & ~load_cg(S.seen_at(u));
        const offset_t from = S.in_row[u] + warp_edges + (offset_t)(k - __ldcg(S.held() + 2 * (size_t)i + 1)) *
                                                                 MSBFS_HELD_CHUNK;
        const offset_t end = S.in_row[u + 1], to = end - from > MSBFS_HELD_CHUNK ? from + MSBFS_HELD_CHUNK : end;
        for (offset_t b = from + lane; b < to; b += 32) {
            if (STATS) ++c.edges;
            const int v = S.in_col[b];
            const Bits got = frontier_bits(cur + v) & need;
            if (got.any()) {
                const Bits fresh = got & ~or_into(acc, got & ~load_cg(acc));
                if (PRED && fresh.any()) S.name_parent(fresh, u, v);
            }
        }
    }
    flush<STATS>(S, sh, L, c);
}

// After the hub pass's barrier: each held vertex takes what its list found (labels,
// seen, the next queue), as bottom_up does for the others.
template <bool STATS>
__device__ void settle_hubs(const State& S, Shared& sh, int L, int count) {
    Counts c;
    const int lane = lane_id();
    for (long long base = grid_thread<BLOCK, long long>() - lane; base < count; base += grid_threads<BLOCK, long long>()) {
        const int i = (int)base + lane;
        int u = -1;
        Bits acc = no_bits(), s = no_bits();
        if (i < count) {
            u = __ldcg(S.held() + 2 * (size_t)i);
            acc = load_cg(S.vis(L + 1) + u);
            s = load_cg(S.seen_at(u));
        }
        const bool mine = acc.any();
        if (mine) {
            S.label<false>(acc, u, L + 1, u);
            found_at<STATS>(S, u, s, acc, c);
        }
        S.enqueue(L, mine, u);
    }
    flush<STATS>(S, sh, L, c);
}

// Thread 0 alone: the sources into seen, vis(0), q(0), their labels, and slot 0's counts.
template <bool PRED>
__device__ void seed(const State& S, const int* sources, int k, int src0) {
    Bits* v0 = S.vis(0);
    int* q0 = S.q(0);
    word_t nf = 0, mf = 0, inf = 0;
    for (int i = 0; i < k; ++i) {
        const int s = sources ? sources[i] : src0;
        const Bits bit = one_bit(i);
        if (!v0[s].any()) {
            q0[nf++] = s;
            mf += S.out_degree(s);
        }
        v0[s] = v0[s] | bit;
        *S.seen_at(s) = *S.seen_at(s) | bit;
#if MSBFS_WORDS > 1
        ++S.marks[2 * (size_t)s + 1];
#endif
        S.label<PRED>(bit, s, 0, s);
    }
    for (word_t j = 0; j < nf; ++j)
        if (*S.seen_at(q0[j]) == S.full) inf += S.in_degree(q0[j]);
    word_t* slot = S.slot(0);
    slot[MS_SLOT_NF] = nf;
    slot[MS_SLOT_MF] = mf;
    slot[MS_SLOT_INF] = inf;
    *reinterpret_cast<Bits*>(slot + MS_SLOT_FOUND) = S.full;
}

// The knobs come as values the kernel reads from its parameters, not from S in place:
// that way the capped builds spill no more than with one kernel parameter a knob.
template <bool PRED, bool STATS>
__device__ void bfs(const State& S, const int* sources, int k, int src0, long long m_in, long long alpha_milli,
                    long long beta_milli, int bottom_up_ok, int thread_edges, int warp_edges) {
    GPUBFS_SHARED(Shared, sh);
    if (STATS) S.stamp(MS_PROF_KERNEL);
    const long long gtid = grid_thread<BLOCK, long long>(), gstride = grid_threads<BLOCK, long long>();
    const long long labels = (long long)k * S.n;
    // The k rows of labels to -1. The wider builds store 16 bytes at once (the rows start a
    // CuPy allocation, 16-byte aligned; 4-byte stores past the last whole int4): 256
    // sources of 2^20 vertices write 1 GB here, an eighth of the pass, and the set-up took
    // 671 us against 700 with 4-byte stores (H200): the bytes bound it, not the stores. The
    // 64-source build keeps 4-byte stores (its counting instantiation spills with the wide loop).
    const long long wide = WORDS > 1 ? labels / 4 : 0;
    const int4 none = make_int4(-1, -1, -1, -1);
    for (long long i = gtid; i < wide; i += gstride) {
        reinterpret_cast<int4*>(S.dist)[i] = none;
        if (PRED) reinterpret_cast<int4*>(S.parent)[i] = none;
    }
    for (long long i = 4 * wide + gtid; i < labels; i += gstride) {
        S.dist[i] = -1;
        if (PRED) S.parent[i] = -1;
    }
    for (long long i = gtid; i < (long long)WORDS * S.n; i += gstride) S.seen[i] = 0;
    for (long long i = gtid; i < 3LL * WORDS * S.n; i += gstride) S.visit[i] = 0;
#if MSBFS_WORDS > 1
    for (long long i = gtid; i < 2LL * S.n; i += gstride) S.marks[i] = 0;
#endif
    if (gtid == 0)
        for (int j = 0; j < MS_CTL_WORDS; ++j) S.ctl[j] = 0;
    if (STATS && gtid == 0 && S.counter_cap > 0)
        for (int j = 0; j < MS_CNT_KINDS; ++j) S.counters[(size_t)j * S.counter_cap] = 0;
    if (STATS && threadIdx.x == 0)
        for (int j = 0; j < MS_CNT_KINDS; ++j) sh.stat[j] = 0;
    GPUBFS_GRID_SYNC();
    if (gtid == 0) seed<PRED>(S, sources, k, src0);
    GPUBFS_GRID_SYNC();

    long long m_u = m_in;  // in-edges of the vertices some source has not reached
    long long prev_nf = 0;  // level L - 1's queue, cleared from vis(L - 1) during level L
    bool bu = false;
    int L = 0;
    for (;;) {
        if (STATS) S.stamp(MS_PROF_LEVEL0 + L);  // for the last L (nothing found): the end
        if (threadIdx.x == 0) {
            const volatile word_t* slot = S.slot(L);
            for (int j = 0; j < MS_SLOT_WORDS; ++j) sh.slot[j] = slot[j];
        }
        __syncthreads();
        const long long nf = (long long)sh.slot[MS_SLOT_NF], mf = (long long)sh.slot[MS_SLOT_MF];
        const Bits found = *reinterpret_cast<const Bits*>(sh.slot + MS_SLOT_FOUND);
        m_u -= (long long)sh.slot[MS_SLOT_INF];
        __syncthreads();  // sh.slot is rewritten next level
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            each_source(found, [&](int i) { S.levels[i] = L + 1; });
            word_t* clear = S.slot(L + 2);
            for (int j = 0; j < MS_SLOT_WORDS; ++j) clear[j] = 0;
        }
        if (nf == 0) break;
        // Every CTA computes the same decision from the same words.
        if (bottom_up_ok) {
            if (!bu && (double)mf * (double)alpha_milli > (double)m_u * MSBFS_MILLI) bu = true;
            else if (bu && (double)nf * (double)beta_milli < (double)S.n * MSBFS_MILLI) bu = false;
        }
        if (STATS && blockIdx.x == 0 && threadIdx.x == 0) S.record(L, bu, nf);
        {
            Bits* old = S.vis(L + 2);  // = vis(L - 1): next written in level L + 1
            const int* oq = S.q(L + 2);
            for (long long i = grid_thread<BLOCK, long long>(); i < prev_nf; i += grid_threads<BLOCK, long long>())
                old[__ldcg(oq + i)] = no_bits();
        }
        Counts c;
        if (bu) {
            if (blockIdx.x == 0 && threadIdx.x == 0) ++S.ctl[MS_CTL_BU_LEVELS];  // counted in ctl: a register fewer
            bottom_up<PRED, STATS>(S, L, found, thread_edges, warp_edges, c);
            flush<STATS>(S, sh, L, c);
            GPUBFS_GRID_SYNC();
            const word_t held = warp_edges > 0 ? __ldcg(S.hub_slot(L)) : 0;  // lists and chunks
            if (held) {  // the same word for every thread: the whole grid takes this branch
                if (blockIdx.x == 0 && threadIdx.x == 0) ++S.ctl[MS_CTL_HUB_LEVELS];
                bottom_up_hubs<PRED, STATS>(S, sh, L, found, held, warp_edges);
                GPUBFS_GRID_SYNC();
                settle_hubs<STATS>(S, sh, L, (int)(held >> MS_HELD_SHIFT));
                GPUBFS_GRID_SYNC();
            }
        } else {
            top_down<PRED, STATS>(S, sh, L, (int)nf, c);
            flush<STATS>(S, sh, L, c);
            GPUBFS_GRID_SYNC();
            const int hubs = S.hub_edges > 0 ? hub_count(S, L) : 0;
            if (hubs) {
                hub_pass<PRED, STATS>(S, sh, L, hubs);
                GPUBFS_GRID_SYNC();
            }
        }
        prev_nf = nf;
        ++L;
    }
    if (gtid == 0) {
        S.ctl[MS_CTL_LEVELS] = (word_t)L;
    }
}

}  // namespace msbfs

// One pass from k sources (1..64 x MSBFS_WORDS): sources[0..k-1], or src0 alone when
// sources is null (a batch of one needs no copy); its state in `p` (msbfs.cuh). The STATS
// instantiation keeps the per-level counters and profile stamps the timed one compiles out.
template <bool PRED, bool STATS>
__global__ void __launch_bounds__(MSBFS_BLOCK, MSBFS_MIN_BLOCKS)
    msbfs_bfs(const msbfs::Params p, const int* sources, int k, int src0) {
    msbfs::Bits full;
#pragma unroll
    for (int w = 0; w < msbfs::WORDS; ++w) {
        const int in = k - w * MSBFS_WORD;  // the batch's sources in word w
        full.w[w] = in >= MSBFS_WORD ? ~0ull : in > 0 ? (1ull << in) - 1 : 0;
    }
    const msbfs::State S{p, full, k};
    msbfs::bfs<PRED, STATS>(S, sources, k, src0, p.m_in, p.alpha_milli, p.beta_milli, p.bottom_up, p.thread_edges,
                            p.warp_edges);
}

// Every instantiation, so that a plain nvcc compile checks them all.
#define MSBFS_INSTANTIATE(P, C) \
    template __global__ void msbfs_bfs<P, C>(const msbfs::Params, const int*, int, int);
MSBFS_INSTANTIATE(false, false)
MSBFS_INSTANTIATE(true, false)
MSBFS_INSTANTIATE(false, true)
MSBFS_INSTANTIATE(true, true)
