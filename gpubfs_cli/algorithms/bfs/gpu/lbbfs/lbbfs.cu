// Load-balanced BFS on GPUs: work redistribution by merge-path expand, then neighbour
// gathering (sections 3-4 of "Load-balanced breadth-first search on GPUs").
//
// One persistent cooperative kernel runs a whole BFS; CTAs loop over tiles and meet at
// grid barriers, so no level costs a launch or a host read-back. Level L's queue holds,
// per frontier vertex i, s[i] (exclusive prefix sum of the queue's out-degrees: where
// its neighbours start among the level's outputs) and b[i] = row[v] - s[i] (so output
// j of vertex i sits at column index b[i] + j), plus v itself for predecessors. The
// expand maps each output j to its vertex i; gathering reads col[b[i] + j], looks the
// neighbour up in the visited bitmask and enqueues the winners for level L + 1.
//
// The four couplings (section 4), one level each:
//   LB_PERFECT  4.1: diagonal tiles of TILE merge-path steps expand into a global array
//               of column positions (and parents); grid barrier; tiles of TILE positions
//               gather. Both phases perfectly balanced, at the cost of the global round
//               trip (the paper's separate kernels become phases between barriers).
//   LB_BGATHER  4.2: tile t owns outputs [t*TILE, (t+1)*TILE): the merge path cut
//               vertically (two upper-bound searches of s); a CTA expands however many
//               vertices that takes (imbalanced), then gathers exactly TILE outputs.
//   LB_BREDIST  4.3: tile t owns merge-path diagonals [t*TILE, (t+1)*TILE): balanced
//               expansion, then it gathers the 0..TILE outputs it produced.
//   LB_HYBRID   4.4: per level, 4.3 when output_total >= f0 * input_total, else 4.2.
// Coarse partition: each CTA takes a contiguous run of tiles, so a tile starts where
// the previous one ended; its end (where the path crosses the tile's last diagonal, or
// vertical line) comes from a CTA-cooperative k-ary search of s (mergepath.cuh): a few
// rounds of one parallel load instead of a thread's ~20 dependent loads. Fine
// partition: the CTA stages its vertices' s and b in shared memory, each thread finds
// its equal share of the tile's path by a merge-path search there and runs the
// sequential expand, writing each output's vertex slot to shared memory; the CTA then
// gathers the outputs round-robin (coalesced column reads), VT per thread.
//
// Adapted: the prefix sum s is not a separate pass. Winners are enqueued with one
// packed 64-bit atomicAdd per tile, (count << shift) | degree sum, which returns the
// tile's queue position and the degree total of everything enqueued before it at once;
// a block scan of the same packed words places each winner. So the next level's s
// and b come out of the enqueue (which reads the winner's row offsets anyway), and the
// queue word of each level holds input_total and output_total for the expand factor.
// Status lookup: the bitmask word is read from L2 (__ldcg) and a clear bit is claimed
// with atomicOr, so each vertex is enqueued exactly once (queues never exceed n).
#include "lbbfs.cuh"

namespace lbbfs {

constexpr int CTA = LBBFS_CTA;
constexpr int TILE = LBBFS_TILE;
constexpr int VT = TILE / CTA;    // outputs gathered per thread per tile
constexpr int STAGE = TILE + 1;   // vertices staged per chunk: a diagonal tile needs <= TILE + 1
static_assert(CTA % 32 == 0 && CTA <= 1024, "CTAs of 32 to 1024 threads");
static_assert(TILE % CTA == 0 && STAGE <= 65535, "TILE a multiple of CTA, slots fit 16 bits");

template <typename E, bool PRED>
struct Shared {
    unsigned long long scan[33];   // block scan of packed (count, degree sum)
    E in_s[STAGE];                 // staged vertices: s (index 0 = current at the start)
    E in_b[STAGE];                 // and b = row[v] - s
    int in_v[PRED ? STAGE : 1];    // and v (predecessors only)
    unsigned short out_idx[TILE];  // each output's staged vertex
    unsigned long long ctl;        // the level's queue word, read once per CTA
    unsigned long long base;       // the tile's queue reservation
};

template <typename E>
struct State {
    const E* __restrict__ row;
    const int* __restrict__ col;
    int n;
    int shift;
    int* dist;
    int* parent;
    unsigned int* bitmask;
    // Written during the kernel and read after grid barriers: plain (coherent) loads,
    // never the read-only path.
    E* qs0;
    E* qs1;
    E* qb0;
    E* qb1;
    int* qv0;
    int* qv1;
    E* loc;
    int* locpar;
    unsigned long long* ctl;
    int* fv;
    long long* fe;
    unsigned long long* prof;  // null: no profile

    // Queue halves alternate by level parity (selects, not an indexed array, which
    // would put the struct in local memory).
    __device__ E* qs(int h) const { return h ? qs1 : qs0; }
    __device__ E* qb(int h) const { return h ? qb1 : qb0; }
    __device__ int* qv(int h) const { return h ? qv1 : qv0; }
    __device__ unsigned long long mask() const { return (1ull << shift) - 1ull; }
};

// Thread 0's per-CTA busy time, split between the two phases (profile only).
struct Prof {
    unsigned long long* out;
    unsigned long long t, redist, gather;
    __device__ bool on() const { return out != nullptr && threadIdx.x == 0; }
    __device__ void start() {
        if (on()) t = GPUBFS_NOW();
    }
    __device__ void to_redist() {
        if (on()) {
            unsigned long long now = GPUBFS_NOW();
            redist += now - t;
            t = now;
        }
    }
    __device__ void to_gather() {
        if (on()) {
            unsigned long long now = GPUBFS_NOW();
            gather += now - t;
            t = now;
        }
    }
};

// Neighbour gathering for up to VT outputs per thread (column positions loc, parents
// par): status lookup, labels, and the enqueue of the winners with their s and b.
// `eager` (a level of at most one output per thread of the grid: latency-bound) claims
// the bit without reading the word first and fetches the row offsets alongside the
// claim; otherwise the L2 read filters out visited neighbours before any atomic and
// only winners read their offsets. Block-uniform call.
template <typename E, bool PRED>
__device__ __forceinline__ void gather_enqueue(const State<E>& S, Shared<E, PRED>& sh, int L,
                                               const E (&loc)[VT], const int (&par)[VT],
                                               const bool (&active)[VT], bool eager) {
    const int out = (L + 1) & 1;
    int v[VT];
    bool keep[VT];
    E rs[VT], deg[VT];
#pragma unroll
    for (int r = 0; r < VT; ++r) v[r] = active[r] ? S.col[loc[r]] : 0;
    if (eager) {
#pragma unroll
        for (int r = 0; r < VT; ++r) {
            rs[r] = active[r] ? S.row[v[r]] : E(0);
            deg[r] = active[r] ? S.row[v[r] + 1] : E(0);
        }
#pragma unroll
        for (int r = 0; r < VT; ++r) {
            const unsigned int bit = 1u << (v[r] & 31);
            keep[r] = active[r] && (atomicOr(S.bitmask + (v[r] >> 5), bit) & bit) == 0u;
            deg[r] -= rs[r];
        }
    } else {
        unsigned int word[VT];
#pragma unroll
        for (int r = 0; r < VT; ++r) word[r] = active[r] ? __ldcg(S.bitmask + (v[r] >> 5)) : ~0u;
#pragma unroll
        for (int r = 0; r < VT; ++r) {
            keep[r] = active[r] && !((word[r] >> (v[r] & 31)) & 1u);
            if (keep[r]) {
                const unsigned int bit = 1u << (v[r] & 31);
                keep[r] = (atomicOr(S.bitmask + (v[r] >> 5), bit) & bit) == 0u;
            }
        }
#pragma unroll
        for (int r = 0; r < VT; ++r) {
            rs[r] = keep[r] ? S.row[v[r]] : E(0);
            deg[r] = keep[r] ? S.row[v[r] + 1] - rs[r] : E(0);
        }
    }
    unsigned long long count = 0, degsum = 0;
#pragma unroll
    for (int r = 0; r < VT; ++r) {
        if (keep[r]) {
            S.dist[v[r]] = L + 1;
            if (PRED) S.parent[v[r]] = par[r];
            ++count;
            degsum += (unsigned long long)deg[r];
        }
    }
    unsigned long long total;
    const unsigned long long ex =
        block_exclusive_scan_t<unsigned long long>((count << S.shift) + degsum, sh.scan, &total);
    if (threadIdx.x == 0)
        sh.base = total ? atomicAdd(S.ctl + CTL_QUEUE + (L + 1) % 3, total) : 0ull;
    __syncthreads();
    if (count) {
        const unsigned long long p = sh.base + ex;
        int pos = (int)(p >> S.shift);
        E off = (E)(p & S.mask());
#pragma unroll
        for (int r = 0; r < VT; ++r) {
            if (keep[r]) {
                S.qs(out)[pos] = off;
                S.qb(out)[pos] = rs[r] - off;
                if (PRED) S.qv(out)[pos] = v[r];
                ++pos;
                off += deg[r];
            }
        }
    }
}

// One tile's path from (a_begin, b_begin) to (a_end, b_end): A steps are queue vertices
// (the current one at the start is a_begin - 1), B steps are outputs. Vertices are staged
// in chunks of at most STAGE (a vertical tile over a run of zero-degree vertices may
// cover more); each chunk is expanded, then consumed: STORE writes the column positions
// to the global array (4.1), else the CTA gathers them at once. Block-uniform call.
template <typename E, bool PRED, bool STORE>
__device__ __forceinline__ void expand_tile(const State<E>& S, Shared<E, PRED>& sh, int L,
                                            int a_begin, E b_begin, int a_end, E b_end,
                                            bool eager, Prof& prof) {
    const int tid = threadIdx.x;
    const int h = L & 1;
    const E* qs = S.qs(h);
    const E* qb = S.qb(h);
    const int* qv = S.qv(h);
    int first = a_begin - 1;  // global index of staged vertex 0
    E bj = b_begin;
    for (;;) {
        const int ns = min(a_end - first, STAGE);
        const bool last = first + ns == a_end;
        for (int k = tid; k < ns; k += CTA) {
            const int i = first + k;
            sh.in_s[k] = i >= 0 ? qs[i] : E(0);
            sh.in_b[k] = i >= 0 ? qb[i] : E(0);
            if (PRED) sh.in_v[k] = i >= 0 ? qv[i] : -1;
        }
        // Outputs of this chunk end where the first unstaged vertex's begin.
        const E cb_end = last ? b_end : qs[first + ns];
        __syncthreads();
        // Fine partition: an equal share of the chunk's path per thread.
        const int a_count = ns - 1;  // A steps: staged vertices 1 .. ns - 1
        const int nout = (int)(cb_end - bj);
        const int len = a_count + nout;
        const int per = (len + CTA - 1) / CTA;
        const int d = min(tid * per, len);
        const int steps = min(per, len - d);
        if (steps > 0) {
            const E* as = sh.in_s + 1;
            const int ai = mergepath_search<E>(as, a_count, bj, (E)nout, (E)d);
            Shared<E, PRED>* shp = &sh;
            const E base = bj;
            mergepath_expand<E>(as, a_count, ai, bj + (E)(d - ai), cb_end, steps,
                                [shp, base](E j, int item) {
                                    shp->out_idx[j - base] = (unsigned short)(item + 1);
                                });
        }
        __syncthreads();
        prof.to_redist();
        if (STORE) {
            for (int k = tid; k < nout; k += CTA) {
                const int idx = sh.out_idx[k];
                S.loc[bj + k] = sh.in_b[idx] + bj + (E)k;
                if (PRED) S.locpar[bj + k] = sh.in_v[idx];
            }
        } else {
            E loc[VT];
            int par[VT];
            bool active[VT];
#pragma unroll
            for (int r = 0; r < VT; ++r) {
                const int k = r * CTA + tid;
                active[r] = k < nout;
                loc[r] = 0;
                par[r] = -1;
                if (active[r]) {
                    const int idx = sh.out_idx[k];
                    loc[r] = sh.in_b[idx] + bj + (E)k;
                    if (PRED) par[r] = sh.in_v[idx];
                }
            }
            gather_enqueue<E, PRED>(S, sh, L, loc, par, active, eager);
        }
        __syncthreads();  // the staging and slots are reused next
        if (STORE) prof.to_redist();
        else prof.to_gather();
        if (last) break;
        first += ns - 1;  // the last staged vertex is current at the next chunk's start
        bj = cb_end;
    }
}

// This CTA's tiles of a phase with `ntiles`: a contiguous run (tiles are equal work),
// so each tile starts where the previous one ended and only a CTA's first tile needs
// a search over the whole queue.
__device__ __forceinline__ void cta_tiles(long long ntiles, long long& begin, long long& end) {
    begin = ntiles * blockIdx.x / gridDim.x;
    end = ntiles * (blockIdx.x + 1) / gridDim.x;
}

// 4.1 and 4.3: tiles of TILE merge-path steps, cut at diagonals.
template <typename E, bool PRED, bool STORE>
__device__ __forceinline__ void phase_diagonal(const State<E>& S, Shared<E, PRED>& sh, int L,
                                               int cnt, E tot, bool eager, Prof& prof) {
    const E* qs = S.qs(L & 1);
    const E steps = (E)cnt + tot;
    long long t, t_end;
    cta_tiles((steps + TILE - 1) / TILE, t, t_end);
    E d0 = (E)(t * TILE);
    int a0 = 0, hi0 = 0;  // the first tile searches its start in [a0, hi0]
    if (t < t_end) {
        a0 = (int)(d0 > tot ? d0 - tot : E(0));
        hi0 = (int)min((E)cnt, d0);
    }
    for (bool first = true; t < t_end; ++t, first = false) {
        prof.start();
        const E d1 = min(d0 + (E)TILE, steps);
        // The end: within the diagonal's feasible range, and (once the start is known)
        // at most d1 - d0 A steps past it.
        int lo1 = (int)(d1 > tot ? d1 - tot : E(0));
        E hi1 = min((E)cnt, d1);
        if (!first) {
            lo1 = lo1 > a0 ? lo1 : a0;
            hi1 = min(hi1, (E)a0 + (d1 - d0));
        }
        const MergepathBefore<E, const E*> before0{qs, E(0), d0};
        const MergepathBefore<E, const E*> before1{qs, E(0), d1};
        cta_partition_points(a0, first ? hi0 : a0, before0, lo1, (int)hi1, before1);
        expand_tile<E, PRED, STORE>(S, sh, L, a0, d0 - (E)a0, lo1, d1 - (E)lo1, eager, prof);
        a0 = lo1;
        d0 = d1;
    }
}

// 4.2: tiles of TILE outputs, the path cut vertically. A tile's path starts after output
// b0 - 1 (upper bound of b0 - 1: the vertices that begin exactly at b0 are its first
// A steps), so it starts where the previous tile ended.
template <typename E, bool PRED>
__device__ __forceinline__ void phase_vertical(const State<E>& S, Shared<E, PRED>& sh, int L,
                                               int cnt, E tot, bool eager, Prof& prof) {
    const E* qs = S.qs(L & 1);
    long long t, t_end;
    cta_tiles((tot + TILE - 1) / TILE, t, t_end);
    E b0 = (E)(t * TILE);
    int a0 = 0;
    for (bool first = true; t < t_end; ++t, first = false) {
        prof.start();
        const E b1 = min(b0 + (E)TILE, tot);
        int a1 = a0;
        const VerticalBefore<E, const E*> before0{qs, b0 - 1};
        const VerticalBefore<E, const E*> before1{qs, b1 - 1};
        cta_partition_points(a0, (first && b0 > 0) ? cnt : a0, before0, a1, cnt, before1);
        expand_tile<E, PRED, false>(S, sh, L, a0, b0, a1, b1, eager, prof);
        a0 = a1;
        b0 = b1;
    }
}

// 4.1's second phase: tiles of TILE column positions from the global array.
template <typename E, bool PRED>
__device__ __forceinline__ void phase_gather_stored(const State<E>& S, Shared<E, PRED>& sh,
                                                    int L, E tot, bool eager, Prof& prof) {
    long long t, t_end;
    cta_tiles((tot + TILE - 1) / TILE, t, t_end);
    for (; t < t_end; ++t) {
        prof.start();
        E loc[VT];
        int par[VT];
        bool active[VT];
#pragma unroll
        for (int r = 0; r < VT; ++r) {
            const E j = (E)(t * TILE) + (E)(r * CTA + threadIdx.x);
            active[r] = j < tot;
            loc[r] = active[r] ? S.loc[j] : E(0);
            par[r] = (PRED && active[r]) ? S.locpar[j] : -1;
        }
        gather_enqueue<E, PRED>(S, sh, L, loc, par, active, eager);
        __syncthreads();
        prof.to_gather();
    }
}

template <typename E, bool PRED>
__device__ void bfs(const State<E>& S, int src, int strategy, double f0) {
    typedef Shared<E, PRED> Sh;
    GPUBFS_SHARED(Sh, sh);
    const int tid = threadIdx.x;
    const int gtid = grid_thread<CTA>();
    Prof prof{S.prof, 0ull, 0ull, 0ull};
    if (S.prof != nullptr && gtid == 0) S.prof[PROF_START] = GPUBFS_NOW();

    init_search<CTA, PRED>(S.n, src, true, S.dist, S.parent, S.bitmask);
    if (gtid == 0) {
        const E rs = S.row[src];
        const E deg = S.row[src + 1] - rs;
        S.qs0[0] = 0;
        S.qb0[0] = rs;
        if (PRED) S.qv0[0] = src;
        for (int k = 0; k < CTL_WORDS; ++k) S.ctl[k] = 0;
        S.ctl[CTL_QUEUE] = (1ull << S.shift) | (unsigned long long)deg;
        if (S.prof != nullptr) S.prof[PROF_REDIST] = S.prof[PROF_GATHER] = 0;
    }
    GPUBFS_GRID_SYNC();

    int L = 0;
    for (;; ++L) {
        if (tid == 0) sh.ctl = *(volatile unsigned long long*)(S.ctl + CTL_QUEUE + L % 3);
        __syncthreads();
        const unsigned long long w = sh.ctl;
        const int cnt = (int)(w >> S.shift);
        const E tot = (E)(w & S.mask());
        if (cnt == 0) break;
        int kind = strategy;
        if (strategy == LB_HYBRID)  // expand factor tot / cnt against f0
            kind = (double)tot >= f0 * (double)cnt ? LB_BREDIST : LB_BGATHER;
        if (gtid == 0) {
            S.ctl[CTL_QUEUE + (L + 2) % 3] = 0;
            const int which = kind == LB_PERFECT   ? CTL_PERFECT
                              : kind == LB_BGATHER ? CTL_BGATHER
                                                   : CTL_BREDIST;
            S.ctl[which] += 1;
            S.fv[L] = cnt;
            S.fe[L] = (long long)tot;
        }
        if (tot == 0) {  // no neighbours: the next frontier is empty
            ++L;
            break;
        }
        // Latency-bound level: at most one output per thread of the grid.
        const bool eager = tot <= (E)gridDim.x * (E)CTA;
        if (kind == LB_PERFECT) {
            phase_diagonal<E, PRED, true>(S, sh, L, cnt, tot, eager, prof);
            GPUBFS_GRID_SYNC();
            phase_gather_stored<E, PRED>(S, sh, L, tot, eager, prof);
        } else if (kind == LB_BGATHER) {
            phase_vertical<E, PRED>(S, sh, L, cnt, tot, eager, prof);
        } else {
            phase_diagonal<E, PRED, false>(S, sh, L, cnt, tot, eager, prof);
        }
        GPUBFS_GRID_SYNC();
    }
    if (gtid == 0) S.ctl[CTL_LEVELS] = (unsigned long long)L;
    if (prof.on()) {
        atomicAdd(S.prof + PROF_REDIST, prof.redist);
        atomicAdd(S.prof + PROF_GATHER, prof.gather);
        if (blockIdx.x == 0) S.prof[PROF_END] = GPUBFS_NOW();
    }
}

}  // namespace lbbfs

// One BFS from `src`: a persistent kernel (persistent.cuh) of CTAs of LBBFS_CTA
// threads; buffers sized by strategies.py (queues n, loc m).
#define LBBFS_PARAMS(E)                                                                         \
    const E *__restrict__ row, const int *__restrict__ col, int n, int src, int strategy,      \
        double f0, int shift, int *dist, int *parent, unsigned int *bitmask, E *qs0, E *qs1,    \
        E *qb0, E *qb1, int *qv0, int *qv1, E *loc, int *locpar, unsigned long long *ctl,       \
        int *fv, long long *fe, unsigned long long *prof

template <typename E, bool PRED>
__global__ void __launch_bounds__(LBBFS_CTA, LBBFS_MIN_BLOCKS) lbbfs_bfs(LBBFS_PARAMS(E)) {
    lbbfs::State<E> S{row, col,  n,      shift, dist, parent, bitmask, qs0, qs1, qb0, qb1,
                      qv0, qv1, loc, locpar, ctl,   fv,   fe,     prof};
    lbbfs::bfs<E, PRED>(S, src, strategy, f0);
}

// Every instantiation, so that a plain nvcc compile checks them all: 32-bit edge
// offsets (m + n < 2^31) and 64-bit ones, without and with predecessors.
#define LBBFS_INSTANTIATE(E, P) template __global__ void lbbfs_bfs<E, P>(LBBFS_PARAMS(E));
LBBFS_INSTANTIATE(int, false)
LBBFS_INSTANTIATE(int, true)
LBBFS_INSTANTIATE(long long, false)
LBBFS_INSTANTIATE(long long, true)
