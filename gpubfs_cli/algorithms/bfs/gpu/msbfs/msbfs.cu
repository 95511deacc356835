// Bit-parallel multi-source BFS (after Then et al., PVLDB 2014) with Beamer's direction
// optimization, in one persistent cooperative kernel per batch of up to 64 sources:
// bit i of a vertex's 64-bit words belongs to source i.
//
//   seen[u]      sources that reached u
//   vis(L)[u]    sources whose level-L frontier holds u (three rotating arrays)
//   q(L)         the vertices with vis(L) != 0, compacted (three rotating queues)
//
//   top-down   the queue's lists gathered load-balanced (gpu/include/expand.cuh); for
//              an edge f -> u, m = vis(L)[f] & ~seen[u]; the bits an atomicOr on seen[u]
//              sets first are u's new sources (labelled L + 1, parent f), or-ed into
//              vis(L+1)[u]; the thread whose or finds vis(L+1)[u] empty queues u
//   bottom-up  a thread per vertex u not yet seen by every live source (one whose
//              level-L frontier is not empty) scans u's in-edges, taking from each
//              neighbour v the bits of vis(L)[v] it still needs (v is their parent), and
//              stops once every live source has reached u; past thread_edges in-edges
//              its warp scans the rest of the list with it, 32 edges a step
//
// The queue rather than a scan of all n words per level: a top-down level costs its
// frontier's edges, not n (a path or a road graph runs thousands of tiny levels), and
// both directions build the next queue as they go, so a switch converts nothing.
// Labels are written as bits are won (exactly once per source and vertex: an atomic's
// old value, or the one thread that owns u bottom-up), which needs no pass after the
// level; vis(L-1)'s words are cleared during level L, when nobody reads them, so a
// level costs one grid barrier.
//
// Switch (decided by every CTA from the same counts): top-down -> bottom-up when
// m_f * alpha > m_u, bottom-up -> top-down when n_f * beta < n. n_f: the frontier's
// vertices; m_f: their out-edges; m_u: the in-edges of the vertices that some source of
// the batch has not reached yet (a vertex leaves m_u once seen[u] holds every source).
//
// Vertex ids are 32-bit (the host checks n < 2^31); edge offsets are offset_t: int, or
// long long in the MSBFS_OFFSET64 build (m >= 2^31); label indices i * n + u are 64-bit.
#include "msbfs.cuh"
#include "expand.cuh"

namespace msbfs {

constexpr int BLOCK = MSBFS_BLOCK;
static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "CTAs of 32 to 1024 threads");

#if MSBFS_OFFSET64
typedef long long offset_t;
#else
typedef int offset_t;
#endif
typedef unsigned long long word_t;

struct Shared {
    GatherShared<BLOCK, offset_t> g;
    word_t slot[MS_SLOT_WORDS];  // the level's counts, read once per CTA
};

struct State {
    const offset_t* __restrict__ row;
    const int* __restrict__ col;
    const offset_t* __restrict__ in_row;
    const int* __restrict__ in_col;
    int n;
    word_t full;  // every source of the batch
    int* dist;    // k rows of n
    int* parent;  // k rows of n, or null
    word_t* seen;
    word_t* visit;  // three arrays of n
    int* queue;     // three queues of n
    word_t* ctl;
    int* levels;  // per source: its deepest level + 1

    __device__ word_t* vis(int L) const { return visit + (size_t)(L % 3) * n; }
    __device__ int* q(int L) const { return queue + (size_t)(L % 3) * n; }
    __device__ word_t* slot(int L) const { return ctl + (L % 3) * MS_SLOT_WORDS; }
    __device__ int out_degree(int v) const { return (int)(row[v + 1] - row[v]); }
    __device__ int in_degree(int v) const { return (int)(in_row[v + 1] - in_row[v]); }

    // Every source of `bits` reaches u at `level`, from `from`.
    template <bool PRED>
    __device__ void label(word_t bits, int u, int level, int from) const {
        while (bits) {
            const int i = __ffsll((long long)bits) - 1;
            bits &= bits - 1;
            const size_t at = (size_t)i * n + u;
            dist[at] = level;
            if (PRED) parent[at] = from;
        }
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
// next level's slot.
struct Counts {
    word_t mf = 0, inf = 0, found = 0;

    // u joined the next frontier with `bits`; `all`: every source has now reached it.
    __device__ void joined(const State& S, int u, word_t bits, bool first, bool all) {
        if (first) mf += S.out_degree(u);
        if (all) inf += S.in_degree(u);
        found |= bits;
    }
};

__device__ __forceinline__ word_t warp_or(word_t x) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) x |= __shfl_xor_sync(GPUBFS_FULL_MASK, x, d);
    return x;
}

// Warp-converged: lane 0 adds the warp's counts to slot L + 1.
__device__ void flush(const State& S, int L, const Counts& c) {
    const word_t mf = warp_sum_t(c.mf), inf = warp_sum_t(c.inf), found = warp_or(c.found);
    if (lane_id() == 0) {
        word_t* next = S.slot(L + 1);
        if (mf) atomicAdd(next + MS_SLOT_MF, mf);
        if (inf) atomicAdd(next + MS_SLOT_INF, inf);
        if (found) atomicOr(next + MS_SLOT_FOUND, found);
    }
}

template <bool PRED>
struct TopDownSink {
    const State* S;
    int L;
    Counts* c;
    __device__ void emit(int u, int f, bool active) {
        bool mine = false;
        if (active) {
            const word_t m = __ldcg(S->vis(L) + f) & ~__ldcg(S->seen + u);  // a cheap look before the atomic
            if (m) {
                const word_t old = atomicOr(S->seen + u, m);
                const word_t fresh = m & ~old;
                if (fresh) {
                    mine = atomicOr(S->vis(L + 1) + u, fresh) == 0;
                    c->joined(*S, u, fresh, mine, (old | fresh) == S->full);
                    S->label<PRED>(fresh, u, L + 1, f);
                }
            }
        }
        S->enqueue(L, mine, u);
    }
};

// Tiles of at most BLOCK queue entries, at least one per CTA while the frontier is
// small: 64 sources' first level goes to 64 CTAs, not one.
template <bool PRED>
__device__ void top_down(const State& S, Shared& sh, int L, int nf, Counts& c) {
    TopDownSink<PRED> sink{&S, L, &c};
    const int* in = S.q(L);
    const int tile = (int)min((long long)BLOCK, ((long long)nf + gridDim.x - 1) / gridDim.x);
    const int ntiles = (nf + tile - 1) / tile;
    for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const int i = t * tile + (int)threadIdx.x;
        int f = -1;
        offset_t start = 0;
        int len = 0;
        if ((int)threadIdx.x < tile && i < nf) {
            f = __ldcg(in + i);
            start = S.row[f];
            len = (int)(S.row[f + 1] - start);
        }
        gather_lists<BLOCK>(sh.g, S.col, f, start, len, sink);
    }
}

// A thread per vertex, grid-stride with warp-uniform trips (the queue's ballots). Only
// u's warp writes seen[u] and vis(L+1)[u] in a bottom-up level: no atomics. `live`: the
// sources with a level-L frontier, the only ones that can reach u now (a finished or
// isolated source would otherwise keep every vertex scanning its whole list).
template <bool PRED>
__device__ void bottom_up(const State& S, int L, word_t live, int thread_edges, Counts& c) {
    const word_t* cur = S.vis(L);
    word_t* next = S.vis(L + 1);
    const int lane = lane_id();
    const long long stride = grid_threads<BLOCK, long long>();
    for (long long base = grid_thread<BLOCK, long long>() - lane; base < S.n; base += stride) {
        const int u = (int)base + lane;
        word_t s = 0, need = 0, acc = 0;
        offset_t e = 0, end = 0;
        if (u < S.n) {
            s = __ldcg(S.seen + u);
            need = S.full & ~s & live;
            if (need) {
                e = S.in_row[u];
                end = S.in_row[u + 1];
                const offset_t stop = thread_edges > 0 && end - e > thread_edges ? e + thread_edges : end;
                for (; e < stop && acc != need; ++e) {
                    const int v = S.in_col[e];
                    const word_t fresh = __ldcg(cur + v) & need & ~acc;
                    if (fresh) {
                        acc |= fresh;
                        S.label<PRED>(fresh, u, L + 1, v);
                    }
                }
            }
        }
        // The lists left unfinished: the warp takes them one at a time, a lane an edge;
        // a bit found by several lanes goes to the lowest (an exclusive prefix OR).
        for (unsigned int rest = __ballot_sync(GPUBFS_FULL_MASK, acc != need && e < end); rest; rest &= rest - 1) {
            const int j = __ffs(rest) - 1;
            const int uj = __shfl_sync(GPUBFS_FULL_MASK, u, j);
            const word_t needj = __shfl_sync(GPUBFS_FULL_MASK, need, j);
            word_t accj = __shfl_sync(GPUBFS_FULL_MASK, acc, j);
            const offset_t endj = __shfl_sync(GPUBFS_FULL_MASK, end, j);
            for (offset_t b = __shfl_sync(GPUBFS_FULL_MASK, e, j); b < endj && accj != needj; b += 32) {
                int v = -1;
                word_t got = 0;
                if (b + lane < endj) {
                    v = S.in_col[b + lane];
                    got = __ldcg(cur + v) & needj & ~accj;
                }
                word_t below = got;  // inclusive prefix OR over the lanes
#pragma unroll
                for (int d = 1; d < 32; d <<= 1) {
                    const word_t y = __shfl_up_sync(GPUBFS_FULL_MASK, below, d);
                    if (lane >= d) below |= y;
                }
                const word_t all = __shfl_sync(GPUBFS_FULL_MASK, below, 31);
                const word_t earlier = __shfl_up_sync(GPUBFS_FULL_MASK, below, 1);
                const word_t fresh = got & ~(lane ? earlier : 0);
                if (fresh) S.label<PRED>(fresh, uj, L + 1, v);
                accj |= all;
            }
            if (lane == j) acc = accj;
        }
        const bool mine = acc != 0;
        if (mine) {
            S.seen[u] = s | acc;
            next[u] = acc;
            c.joined(S, u, acc, true, (s | acc) == S.full);
        }
        S.enqueue(L, mine, u);
    }
}

// Thread 0 alone: the sources into seen, vis(0), q(0), their labels, and slot 0's counts.
template <bool PRED>
__device__ void seed(const State& S, const int* sources, int k, int src0) {
    word_t* v0 = S.vis(0);
    int* q0 = S.q(0);
    word_t nf = 0, mf = 0, inf = 0, found = 0;
    for (int i = 0; i < k; ++i) {
        const int s = sources ? sources[i] : src0;
        const word_t bit = 1ull << i;
        if (v0[s] == 0) {
            q0[nf++] = s;
            mf += S.out_degree(s);
        }
        v0[s] |= bit;
        S.seen[s] |= bit;
        found |= bit;
        S.label<PRED>(bit, s, 0, s);
    }
    for (word_t j = 0; j < nf; ++j)
        if (S.seen[q0[j]] == S.full) inf += S.in_degree(q0[j]);
    word_t* slot = S.slot(0);
    slot[MS_SLOT_NF] = nf;
    slot[MS_SLOT_MF] = mf;
    slot[MS_SLOT_INF] = inf;
    slot[MS_SLOT_FOUND] = found;
}

template <bool PRED>
__device__ void bfs(const State& S, const int* sources, int k, int src0, long long m_in,
                    long long alpha_milli, long long beta_milli, int bottom_up_ok, int thread_edges) {
    GPUBFS_SHARED(Shared, sh);
    const long long gtid = grid_thread<BLOCK, long long>(), gstride = grid_threads<BLOCK, long long>();
    const long long labels = (long long)k * S.n;
    for (long long i = gtid; i < labels; i += gstride) {
        S.dist[i] = -1;
        if (PRED) S.parent[i] = -1;
    }
    for (long long i = gtid; i < S.n; i += gstride) S.seen[i] = 0;
    for (long long i = gtid; i < 3LL * S.n; i += gstride) S.visit[i] = 0;
    if (gtid == 0)
        for (int j = 0; j < MS_CTL_WORDS; ++j) S.ctl[j] = 0;
    GPUBFS_GRID_SYNC();
    if (gtid == 0) seed<PRED>(S, sources, k, src0);
    GPUBFS_GRID_SYNC();

    long long m_u = m_in;  // in-edges of the vertices some source has not reached
    long long prev_nf = 0;  // level L - 1's queue, cleared from vis(L - 1) during level L
    bool bu = false;
    int L = 0, bu_levels = 0;
    for (;;) {
        if (threadIdx.x == 0) {
            const volatile word_t* slot = S.slot(L);
            for (int j = 0; j < MS_SLOT_WORDS; ++j) sh.slot[j] = slot[j];
        }
        __syncthreads();
        const long long nf = (long long)sh.slot[MS_SLOT_NF], mf = (long long)sh.slot[MS_SLOT_MF];
        const word_t found = sh.slot[MS_SLOT_FOUND];
        m_u -= (long long)sh.slot[MS_SLOT_INF];
        __syncthreads();  // sh.slot is rewritten next level
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            for (word_t b = found; b; b &= b - 1) S.levels[__ffsll((long long)b) - 1] = L + 1;
            word_t* clear = S.slot(L + 2);
            for (int j = 0; j < MS_SLOT_WORDS; ++j) clear[j] = 0;
        }
        if (nf == 0) break;
        // Every CTA computes the same decision from the same words.
        if (bottom_up_ok) {
            if (!bu && (double)mf * (double)alpha_milli > (double)m_u * MSBFS_MILLI) bu = true;
            else if (bu && (double)nf * (double)beta_milli < (double)S.n * MSBFS_MILLI) bu = false;
        }
        {
            word_t* old = S.vis(L + 2);  // = vis(L - 1): next written in level L + 1
            const int* oq = S.q(L + 2);
            for (long long i = grid_thread<BLOCK, long long>(); i < prev_nf; i += grid_threads<BLOCK, long long>())
                old[__ldcg(oq + i)] = 0;
        }
        Counts c;
        if (bu) {
            ++bu_levels;
            bottom_up<PRED>(S, L, found, thread_edges, c);
        } else {
            top_down<PRED>(S, sh, L, (int)nf, c);
        }
        flush(S, L, c);
        prev_nf = nf;
        GPUBFS_GRID_SYNC();
        ++L;
    }
    if (gtid == 0) {
        S.ctl[MS_CTL_LEVELS] = (word_t)L;
        S.ctl[MS_CTL_BU_LEVELS] = (word_t)bu_levels;
    }
}

}  // namespace msbfs

// One pass from k sources (1..64): sources[0..k-1], or src0 alone when sources is null
// (a batch of one needs no copy). dist and parent hold k rows of n (parent null without
// predecessors); seen n words, visit 3n words, queue 3n ints, ctl MS_CTL_WORDS words,
// levels k ints. m_in: in-edges (m); alpha and beta in thousandths (MSBFS_MILLI);
// bottom_up 0 holds every level top-down; thread_edges (0: no limit): the in-edges a thread scans
// alone in a bottom-up level before its warp joins in.
#define MSBFS_PARAMS                                                                              \
    const msbfs::offset_t *__restrict__ row, const int *__restrict__ col,                          \
        const msbfs::offset_t *__restrict__ in_row, const int *__restrict__ in_col, int n,         \
        long long m_in, const int *sources, int k, int src0, long long alpha_milli,               \
        long long beta_milli, int bottom_up, int thread_edges, int *dist, int *parent,            \
        unsigned long long *seen, unsigned long long *visit, int *queue, unsigned long long *ctl, \
        int *levels

template <bool PRED>
__global__ void __launch_bounds__(MSBFS_BLOCK, MSBFS_MIN_BLOCKS) msbfs_bfs(MSBFS_PARAMS) {
    const unsigned long long full = k >= MSBFS_WORD ? ~0ull : (1ull << k) - 1;
    msbfs::State S{row, col, in_row, in_col, n, full, dist, parent, seen, visit, queue, ctl, levels};
    msbfs::bfs<PRED>(S, sources, k, src0, m_in, alpha_milli, beta_milli, bottom_up, thread_edges);
}

// Both instantiations, so that a plain nvcc compile checks them.
template __global__ void msbfs_bfs<false>(MSBFS_PARAMS);
template __global__ void msbfs_bfs<true>(MSBFS_PARAMS);
