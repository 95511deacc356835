// Merrill, Garland, Grimshaw, "Scalable GPU Graph Traversal" (PPoPP'12), sections 4-5.
//
// One persistent cooperative kernel runs a whole BFS: CTAs loop over tiles of the
// current frontier and meet at grid barriers between phases, so no level costs a
// launch or a host read-back. The strategy picks the phases of each iteration:
//   expand-contract  EC: vertex queue -> gather + cull in-core -> vertex queue
//   contract-expand  CE: edge queue -> cull, label, gather -> edge queue
//   two-phase        C then E: edge queue -> vertex queue -> edge queue
//   hybrid           CE while the edge frontier fits the resident threads, else C+E
// EC is an instantiation of its own (VERTEX_FRONTIER); the other three share the
// edge-frontier one and differ only in switch_threshold, the largest edge frontier run
// as CE (contract-expand: all of them; two-phase: none).
// Gathering (section 4.1): serial, warp, scan, or scan+warp+CTA; lists of at least
// `grid_threshold` neighbours are deferred to a per-iteration "huge list" that the
// whole grid reads straight from the column indices next phase (today's 132 SMs: one
// CTA strip-mining a 100k-neighbour list would hold up the level).
// Culling (section 4.2), cumulative: bitmask, + label, + warp (one __match_any_sync,
// exact within the warp), + history (direct-mapped table of recent ids in shared
// memory, per CTA, kept across iterations). The bitmask bit is set with a
// fire-and-forget atomicOr (never clobbered, so a vertex seen at an earlier level is
// never relabelled); the lookup itself is a plain L2 read and can miss concurrent
// discoveries: those are the duplicates the heuristics remove.
//
// Vertex ids, edge offsets and queue positions are 32-bit (m < 2^31; the host keeps
// every capacity below 2^31). Without exact culling a queue's reservation counter can
// pass its capacity and wrap: positions are compared unsigned (`fits`), so a wrapped
// one is an overflow, never a negative index, and sums of two counts are 64-bit.
// Queues written before a grid barrier are read after it with __ldcg (L2, never a
// stale L1 line).
#include "merrill.cuh"
#include "expand.cuh"

namespace merrill {

constexpr int BLOCK = MERRILL_BLOCK;
constexpr int WARPS = BLOCK / 32;
constexpr int HISTORY = MERRILL_HISTORY;
constexpr int SMALL_CAP = MERRILL_SMALL_CAP;
static_assert(BLOCK % 32 == 0 && WARPS <= 32, "CTAs of 32 to 1024 threads");

struct Shared {
    // scratch, bcast[0..4], win_src and win_par: expand.cuh's GatherShared members (its
    // gathering stages take this struct; this order spills less than a nested one).
    int scratch[33];            // block scans
    int scratch2[32];           // block_scan2's second value
    int bcast[8];               // CTA enlistment, queue reservations, sf_park's resume word
    int red[WARPS * 4];         // counter reduction
    int win_src[BLOCK];         // scan gathering: column-index offsets
    int win_par[BLOCK];         // scan gathering: the vertex each offset came from
    union {
        int history[HISTORY];   // history culling
        // Small-frontier mode (CTA 0 alone; history is reset when it ends): the
        // leader's queues and their totals (small_frontier.cuh).
        SfQueues<SMALL_CAP> sq;
    };
    int ctl_ovf, ctl_vcount, ctl_ecount, ctl_big_ovf;  // control words, read once per CTA
    unsigned long long ctl_big;
};

// Everything a phase needs: the launch's parameters (the CSR arrays apart: merrill.cuh
// says why) and the culling, which the exact rerun raises. Queue halves alternate by
// iteration parity.
struct State : MerrillParams {
    const int* __restrict__ row;
    const int* __restrict__ col;
    int culling;

    __device__ int* vq(int h) const { return h ? vq1 : vq0; }
    __device__ int* eq(int h) const { return h ? eq1 : eq0; }
    __device__ int* ep(int h) const { return h ? ep1 : ep0; }
    __device__ int4* big(int h) const { return h ? big1 : big0; }
    __device__ int* slot(int L) const { return ctl + (L % 3) * CTL_SLOT; }
    // Thread 0 of CTA 0 stamps the profile (just after a grid barrier).
    __device__ void stamp(int L, int word, unsigned long long value) const {
        prof_stamp<PROF_WORDS>(prof, prof_cap, L, word, value);
    }
    __device__ void overflow(int L_out) const {
        slot(L_out)[CTL_OVF] = 1;
        ctl[CTL_OVERFLOW] = 1;
    }
};

// A reserved queue position inside a capacity; a counter that wrapped past INT_MAX
// reads as a negative int and fails the unsigned comparison.
__device__ __forceinline__ bool fits(int pos, int cap) { return (unsigned int)pos < (unsigned int)cap; }

// Tiles of `items` work items (64-bit: the sum of two counts can pass INT_MAX).
__device__ __forceinline__ int tiles(long long items, int per_tile) {
    return (int)((items + per_tile - 1) / per_tile);
}

__device__ __forceinline__ int history_slot(int v) {
    // Multiplicative hash: lattice neighbours (v +- 1, v +- width) land apart.
    return (int)(((unsigned int)v * 2654435761u) >> 7) & (HISTORY - 1);
}

// Status lookup with the culling chain for K neighbours per thread. Warp-converged:
// every lane calls it; active[k] says whether the lane holds neighbour v[k]. On return
// keep[k] is true when the caller owns v[k] (and must label it). The global lookups
// of all K go out together (memory-level parallelism); EAGER also fetches the labels
// with the bitmask words (one round trip instead of two: for latency-bound phases).
// The bitmask and label lookups come first and the bits are set right after them;
// warp and history culling then remove duplicates among the ids that looked unvisited
// (a warp with none skips them).
template <int K, bool EAGER>
__device__ __forceinline__ void cull(const State& S, Shared& sh, const int (&v)[K],
                                     const bool (&active)[K], bool (&keep)[K]) {
    unsigned int word[K];
    int label[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        word[k] = active[k] ? __ldcg(S.bitmask + (v[k] >> 5)) : ~0u;
        label[k] = (EAGER && active[k] && S.culling >= CULL_LABEL) ? __ldcg(S.dist + v[k]) : -1;
    }
#pragma unroll
    for (int k = 0; k < K; ++k) keep[k] = active[k] && !((word[k] >> (v[k] & 31)) & 1u);
    if (!EAGER && S.culling >= CULL_LABEL) {
#pragma unroll
        for (int k = 0; k < K; ++k) label[k] = keep[k] ? __ldcg(S.dist + v[k]) : -1;
    }
    if (S.culling >= CULL_LABEL) {
#pragma unroll
        for (int k = 0; k < K; ++k) keep[k] = keep[k] && label[k] < 0;
    }
    // Set the bits at once: the window in which a concurrent lookup of the same id can
    // miss this discovery stays one load long.
#pragma unroll
    for (int k = 0; k < K; ++k) {
        if (keep[k]) {
            unsigned int bit = 1u << (v[k] & 31);
            unsigned int* w = S.bitmask + (v[k] >> 5);
            if (S.culling >= CULL_ATOMIC) keep[k] = (atomicOr(w, bit) & bit) == 0;
            else atomicOr(w, bit);  // fire-and-forget (RED): never clobbers other bits
        }
    }
    if (S.culling >= CULL_WARP) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if (__any_sync(GPUBFS_FULL_MASK, keep[k])) {
                unsigned int peers = __match_any_sync(GPUBFS_FULL_MASK, keep[k] ? v[k] : -1);
                if (keep[k] && (__ffs(peers) - 1) != lane_id()) keep[k] = false;
            }
        }
    }
    if (S.culling >= CULL_HISTORY) {
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if (keep[k]) {
                int h = history_slot(v[k]);
                if (sh.history[h] == v[k]) keep[k] = false;
                else sh.history[h] = v[k];
            }
        }
    }
}

__device__ __forceinline__ bool cull1(const State& S, Shared& sh, int v, bool active) {
    const int vv[1] = {v};
    const bool aa[1] = {active};
    bool kk[1];
    cull<1, false>(S, sh, vv, aa, kk);
    return kk[0];
}

// Long adjacency lists are expanded once: a duplicate that survived culling is still
// labelled, but only the first to claim the vertex gathers its list (one L2 atomic,
// amortised over at least `threshold` neighbours). Returns the length to gather.
// Claiming is off when claim_threshold is 0, and pointless with exact culling.
__device__ __forceinline__ int claim(const State& S, int v, int len, int threshold) {
    if (S.claim_threshold > 0 && len >= threshold && len > 0 && S.culling < CULL_ATOMIC) {
        unsigned int bit = 1u << (v & 31);
        if (atomicOr(S.claimed + (v >> 5), bit) & bit) return 0;
    }
    return len;
}

// Exclusive block scan of two ints at once (one set of barriers).
__device__ __forceinline__ void block_scan2(Shared& sh, int a, int b, int& ex_a, int& ex_b,
                                            int& tot_a, int& tot_b) {
    const int lane = lane_id(), warp = threadIdx.x >> 5;
    int ia = warp_inclusive_scan(a), ib = warp_inclusive_scan(b);
    __syncthreads();  // scratch may still be read by a previous scan
    if (lane == 31) {
        sh.scratch[warp] = ia;
        sh.scratch2[warp] = ib;
    }
    __syncthreads();
    int pa = 0, pb = 0;
    tot_a = 0;
    tot_b = 0;
    for (int w = 0; w < WARPS; ++w) {
        int xa = sh.scratch[w], xb = sh.scratch2[w];
        if (w < warp) {
            pa += xa;
            pb += xb;
        }
        tot_a += xa;
        tot_b += xb;
    }
    ex_a = pa + ia - a;
    ex_b = pb + ib - b;
}

// One reservation per tile in a global queue (block-uniform call).
__device__ __forceinline__ int reserve(Shared& sh, int* count, int total) {
    if (threadIdx.x == 0) sh.bcast[5] = total > 0 ? atomicAdd(count, total) : 0;
    __syncthreads();
    return sh.bcast[5];
}

// Sink of two-phase expansion and contract-expand: neighbours go to an edge queue at
// positions reserved per tile.
template <bool PRED>
struct EdgeSink {
    static constexpr bool kPositions = true;
    static constexpr bool kParents = PRED;
    const State* S;
    int* eq;
    int* ep;
    int* count;
    int L_out;
    __device__ void emit(int v, int u, int pos, bool active) {
        if (!active) return;
        if (fits(pos, S->eq_cap)) {
            eq[pos] = v;
            if (PRED) ep[pos] = u;
        } else {
            S->overflow(L_out);
        }
    }
};

// Sink of expand-contract: each gathered neighbour is culled at once; survivors are
// labelled and enqueued (ballot prefix sum in the warp, one atomic per warp round).
template <bool PRED>
struct CullSink {
    static constexpr bool kPositions = false;
    static constexpr bool kParents = PRED;
    const State* S;
    Shared* sh;
    int* vq;
    int* count;
    int label;
    int L_out;
    int enqueued;
    __device__ void emit(int v, int u, bool active) {
        bool keep = cull1(*S, *sh, v, active);
        if (keep) {
            S->dist[v] = label;
            if (PRED) S->parent[v] = u;
            ++enqueued;
        }
        unsigned int m = __ballot_sync(GPUBFS_FULL_MASK, keep);
        if (m) {
            int lane = lane_id();
            int leader = __ffs(m) - 1;
            int base = 0;
            if (lane == leader) base = atomicAdd(count, __popc(m));
            base = __shfl_sync(GPUBFS_FULL_MASK, base, leader);
            if (keep) {
                int pos = base + __popc(m & ((1u << lane) - 1));
                if (fits(pos, S->vq_cap)) vq[pos] = v;
                else S->overflow(L_out);
            }
        }
    }
};

// Huge lists: recorded with one packed 64-bit atomic (count, edge offset) so entries
// are in offset order for the binary search of fetch_edge.
// L_big: the iteration whose slot and half receive the entry. An entry past big_cap,
// or one whose edges end past INT_MAX (without claims, duplicates of a hub each add
// its whole list), marks the slot's huge list unreadable as well as the overflow.
__device__ __forceinline__ void defer_huge(const State& S, int L_big, int L_out, int u, int start,
                                           int len) {
    unsigned long long old =
        atomicAdd(S.big_ctl + (L_big % 3), (1ull << BIG_COUNT_SHIFT) | (unsigned long long)len);
    const long long idx = (long long)(old >> BIG_COUNT_SHIFT);
    const long long off = (long long)(old & BIG_TOTAL_MASK);
    if (idx < S.big_cap && off + len <= 0x7fffffffLL) {
        S.big(L_big & 1)[idx] = make_int4(u, start, len, (int)off);
    } else {
        S.slot(L_big)[CTL_BIG_OVF] = 1;
        S.overflow(L_out);
    }
}

// A slot's huge list (count, edge total), empty when it overflowed; the count clamped
// to the capacity.
struct Huge {
    int count, total;
};
__device__ __forceinline__ Huge huge_list(const State& S, unsigned long long packed, int big_ovf) {
    const long long count = (long long)(packed >> BIG_COUNT_SHIFT);
    const long long total = (long long)(packed & BIG_TOTAL_MASK);
    if (big_ovf || count > S.big_cap || total > 0x7fffffffLL) return Huge{0, 0};
    return Huge{(int)count, (int)total};
}

// Gathers the adjacency lists of one tile (each thread holds at most one list: vertex
// u, its offset start and length len) into `sink`; huge lists go to iteration L_big's
// huge list. The warp, scan and CTA gathering are expand.cuh's stages; a sink with
// positions (the edge queues) gets them from one reservation per tile. Block-uniform call.
template <int GATHER, bool PRED, class Sink>
__device__ void gather_tile(const State& S, Shared& sh, Sink& sink, int L_big, int u, int start,
                            int len) {
    if (GATHER == GATHER_SCAN_WARP_CTA && S.grid_threshold > 0 && len >= S.grid_threshold) {
        defer_huge(S, L_big, sink.L_out, u, start, len);
        len = 0;
    }
    if (GATHER == GATHER_SERIAL || GATHER == GATHER_WARP) {
        int pos = 0;
        if (Sink::kPositions) {
            int total;
            int ex = block_exclusive_scan(len, sh.scratch, &total);
            pos = reserve(sh, sink.count, total) + ex;
        }
        if (GATHER == GATHER_SERIAL) {
            int rounds = warp_max(len);
            for (int k = 0; k < rounds; ++k) {
                bool a = k < len;
                int v = a ? S.col[start + k] : -1;
                sink_emit(sink, v, u, pos + k, a);
            }
        } else {
            gather_warp<1>(S.col, u, start, len, pos, sink);  // every list by a warp
        }
    } else if (GATHER == GATHER_SCAN) {
        int total;
        int ex = block_exclusive_scan(len, sh.scratch, &total);
        int base = Sink::kPositions ? reserve(sh, sink.count, total) : 0;
        gather_scan<BLOCK>(sh, S.col, u, start, len, ex, total, base, sink);
    } else {
        // Scan+warp+CTA: lists >= BLOCK by the whole CTA, >= 32 by a warp, the rest by
        // scan. Two prefix sums (coarse lists, fine lists), one reservation.
        int coarse = len >= 32 ? len : 0;
        int fine = len - coarse;
        int tot_coarse, tot_fine, ex_coarse, ex_fine;
        block_scan2(sh, coarse, fine, ex_coarse, ex_fine, tot_coarse, tot_fine);
        int base = Sink::kPositions ? reserve(sh, sink.count, tot_coarse + tot_fine) : 0;
        int pos = base + ex_coarse;
        gather_cta<BLOCK>(sh, S.col, u, start, coarse, pos, sink);
        gather_warp(S.col, u, start, coarse, pos, sink);
        gather_scan<BLOCK>(sh, S.col, u, start, fine, ex_fine, tot_fine, base + tot_coarse, sink);
    }
}

// Item i of iteration L's edge frontier: the edge queue, then the huge lists (both
// written before the grid barrier, so read through L2).
template <bool PRED>
__device__ __forceinline__ void fetch_edge(const State& S, int h, int ecount, int bigcount,
                                           long long i, int& v, int& u) {
    if (i < ecount) {
        v = __ldcg(S.eq(h) + i);
        u = PRED ? __ldcg(S.ep(h) + i) : -1;
        return;
    }
    const int4* b = S.big(h);
    const int j = (int)(i - ecount);
    int lo = 0, hi = bigcount - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) >> 1;
        if (__ldcg(&b[mid].w) <= j) lo = mid;
        else hi = mid - 1;
    }
    const int4 e = __ldcg(b + lo);
    v = S.col[e.y + (j - e.w)];
    u = e.x;
}

// Sums per-thread counts over the block; thread 0 adds them to counters at `level`.
// Builds without per-level counters (COUNT false) skip it, barriers included.
template <bool COUNT>
__device__ void flush_counts(const State& S, Shared& sh, int level, int enq_level, int enq,
                             int expanded, int edges, int enq2) {
    if (!COUNT) return;
    const int lane = lane_id(), warp = threadIdx.x >> 5;
    enq = warp_sum(enq);
    expanded = warp_sum(expanded);
    edges = warp_sum(edges);
    enq2 = warp_sum(enq2);
    if (lane == 0) {
        sh.red[warp * 4 + 0] = enq;
        sh.red[warp * 4 + 1] = expanded;
        sh.red[warp * 4 + 2] = edges;
        sh.red[warp * 4 + 3] = enq2;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int t[4] = {0, 0, 0, 0};
        for (int w = 0; w < WARPS; ++w)
            for (int k = 0; k < 4; ++k) t[k] += sh.red[w * 4 + k];
        const int cap = S.counter_cap;
        if (t[0] && enq_level < cap) atomicAdd(S.counters + CNT_ENQUEUED * cap + enq_level, t[0]);
        if (t[1] && level < cap) atomicAdd(S.counters + CNT_EXPANDED * cap + level, t[1]);
        if (t[2] && level < cap) atomicAdd(S.counters + CNT_EDGES * cap + level, t[2]);
        if (t[3] && level < cap) atomicAdd(S.counters + CNT_ENQUEUED * cap + level, t[3]);
    }
    __syncthreads();
}

__device__ __forceinline__ int row_len(const State& S, int u, int& start) {
    start = S.row[u];
    return S.row[u + 1] - start;
}

struct Control {
    int ovf, vcount, ecount, big_ovf;
    unsigned long long big;
};

// Control words of iteration L, just after a grid barrier: thread 0 reads them and the
// CTA shares them (one L2 request per CTA instead of one per warp, all to one line).
__device__ __forceinline__ Control read_control(const State& S, Shared& sh, int L) {
    if (threadIdx.x == 0) {
        const volatile int* slot = S.slot(L);
        sh.ctl_ovf = slot[CTL_OVF];
        sh.ctl_vcount = slot[CTL_VCOUNT];
        sh.ctl_ecount = slot[CTL_ECOUNT];
        sh.ctl_big_ovf = slot[CTL_BIG_OVF];
        sh.ctl_big = *(volatile unsigned long long*)(S.big_ctl + L % 3);
    }
    __syncthreads();
    return Control{sh.ctl_ovf, sh.ctl_vcount, sh.ctl_ecount, sh.ctl_big_ovf, sh.ctl_big};
}

// EC: expand the vertex queue of iteration L (labelled L), culling gathered
// neighbours in-core and labelling survivors L + 1. Huge lists are left in this
// iteration's huge list for phase_contract_huge.
template <int GATHER, bool PRED, bool COUNT>
__device__ void phase_expand_contract(const State& S, Shared& sh, int L, int vcount) {
    const int h = L & 1, tid = threadIdx.x;
    CullSink<PRED> sink{&S, &sh, S.vq(h ^ 1), S.slot(L + 1) + CTL_VCOUNT, L + 1, L + 1, 0};
    const int ntiles = tiles(vcount, BLOCK);
    int expanded = 0, edges = 0;
    const int* in = S.vq(h);
    for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
        long long i = (long long)t * BLOCK + tid;
        int u = -1, start = 0, len = 0;
        if (i < vcount) {
            u = __ldcg(in + i);
            len = claim(S, u, row_len(S, u, start), S.claim_threshold);
            expanded += len > 0;
            edges += len;
        }
        gather_tile<GATHER, PRED>(S, sh, sink, L, u, start, len);
    }
    if (blockIdx.x < ntiles) flush_counts<COUNT>(S, sh, L, L + 1, sink.enqueued, expanded, edges, 0);
}

// EC, second phase of an iteration that met huge lists: the whole grid culls their
// neighbours straight from the column indices into the next vertex queue.
template <bool PRED, bool COUNT>
__device__ void phase_contract_huge(const State& S, Shared& sh, int L, int bigcount,
                                    int bigtotal) {
    const int h = L & 1, tid = threadIdx.x;
    CullSink<PRED> sink{&S, &sh, S.vq(h ^ 1), S.slot(L + 1) + CTL_VCOUNT, L + 1, L + 1, 0};
    const int ntiles = tiles(bigtotal, BLOCK);
    for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
        long long i = (long long)t * BLOCK + tid;
        bool active = i < bigtotal;
        int v = -1, p = -1;
        if (active) fetch_edge<false>(S, h, 0, bigcount, i, v, p);
        sink.emit(v, p, active);
    }
    if (blockIdx.x < ntiles) flush_counts<COUNT>(S, sh, L, L + 1, sink.enqueued, 0, 0, 0);
}

// CE: cull iteration L's edge frontier, label survivors L, gather their lists into
// the next edge queue. Latency matters here (small frontiers): the labels come with
// the bitmask words, and the row offsets are fetched while the lookup is in flight.
template <int GATHER, bool PRED, bool COUNT>
__device__ void phase_contract_expand(const State& S, Shared& sh, int L, int ecount, int bigcount,
                                      int bigtotal) {
    const int h = L & 1, tid = threadIdx.x;
    EdgeSink<PRED> sink{&S, S.eq(h ^ 1), S.ep(h ^ 1), S.slot(L + 1) + CTL_ECOUNT, L + 1};
    const long long total = (long long)ecount + bigtotal;
    const int ntiles = tiles(total, BLOCK);
    int expanded = 0, edges = 0, enq = 0;
    for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
        long long i = (long long)t * BLOCK + tid;
        bool active[1] = {i < total};
        int v[1] = {-1};
        int p = -1, start = 0, end = 0;
        if (active[0]) {
            fetch_edge<PRED>(S, h, ecount, bigcount, i, v[0], p);
            start = S.row[v[0]];
            end = S.row[v[0] + 1];
        }
        bool keep[1];
        cull<1, true>(S, sh, v, active, keep);
        int len = 0;
        if (keep[0]) {
            S.dist[v[0]] = L;
            if (PRED) S.parent[v[0]] = p;
            ++enq;
            len = claim(S, v[0], end - start, S.claim_threshold);
            expanded += len > 0;
            edges += len;
        }
        gather_tile<GATHER, PRED>(S, sh, sink, L + 1, keep[0] ? v[0] : -1, start, len);
    }
    if (blockIdx.x < ntiles) flush_counts<COUNT>(S, sh, L, L, enq, expanded, edges, 0);
}

// Two-phase contraction: cull iteration L's edge frontier into the vertex queue (slot
// L's vertex count). Bandwidth-bound: CONTRACT_ITEMS items per thread per tile, their
// loads in flight together, one prefix sum and one reservation per tile.
#ifndef MERRILL_CONTRACT_ITEMS
#define MERRILL_CONTRACT_ITEMS 4
#endif
template <bool PRED, bool COUNT>
__device__ void phase_contract(const State& S, Shared& sh, int L, int ecount, int bigcount,
                               int bigtotal) {
    constexpr int K = MERRILL_CONTRACT_ITEMS;
    const int h = L & 1, tid = threadIdx.x;
    const long long total = (long long)ecount + bigtotal;
    const int ntiles = tiles(total, BLOCK * K);
    int* count = S.slot(L) + CTL_VCOUNT;
    int enq = 0;
    for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
        int v[K], p[K];
        bool active[K], keep[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            long long i = ((long long)t * K + k) * BLOCK + tid;
            active[k] = i < total;
            v[k] = -1;
            p[k] = -1;
            if (active[k]) fetch_edge<PRED>(S, h, ecount, bigcount, i, v[k], p[k]);
        }
        cull<K, false>(S, sh, v, active, keep);
        int mine = 0;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if (keep[k]) {
                S.dist[v[k]] = L;
                if (PRED) S.parent[v[k]] = p[k];
                ++mine;
            }
        }
        enq += mine;
        int kept;
        int pos = block_exclusive_scan(mine, sh.scratch, &kept);
        pos += reserve(sh, count, kept);
#pragma unroll
        for (int k = 0; k < K; ++k) {
            if (keep[k]) {
                if (fits(pos, S.vq_cap)) S.vq0[pos] = v[k];
                else S.overflow(L + 1);
                ++pos;
            }
        }
    }
    if (blockIdx.x < ntiles) flush_counts<COUNT>(S, sh, L, L, enq, 0, 0, 0);
}

// Two-phase expansion: gather the lists of the vertex queue into the next edge queue.
// Every list is claimed here (the queue is bandwidth-bound, an atomic per vertex is
// cheap): a duplicate in the vertex queue is never expanded twice, which would
// otherwise compound level after level on low-degree lattices.
template <int GATHER, bool PRED, bool COUNT>
__device__ void phase_expand(const State& S, Shared& sh, int L) {
    const int h = L & 1, tid = threadIdx.x;
    // A wrapped (negative) count is an overflow: nothing to expand, the loop stops.
    const int queued = read_control(S, sh, L).vcount;
    const int vcount = fits(queued, S.vq_cap) ? queued : (queued < 0 ? 0 : S.vq_cap);
    EdgeSink<PRED> sink{&S, S.eq(h ^ 1), S.ep(h ^ 1), S.slot(L + 1) + CTL_ECOUNT, L + 1};
    const int ntiles = tiles(vcount, BLOCK);
    int expanded = 0, edges = 0;
    for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
        long long i = (long long)t * BLOCK + tid;
        int u = -1, start = 0, len = 0;
        if (i < vcount) {
            u = __ldcg(S.vq0 + i);
            len = claim(S, u, row_len(S, u, start), 1);
            expanded += len > 0;
            edges += len;
        }
        gather_tile<GATHER, PRED>(S, sh, sink, L + 1, u, start, len);
    }
    if (blockIdx.x < ntiles) flush_counts<COUNT>(S, sh, L, L, 0, expanded, edges, 0);
}

// ---- Small-frontier mode (small_frontier.cuh): CTA 0 runs levels alone ----------------
// While a frontier has at most `threshold` items, CTA 0 iterates levels with block
// barriers and shared-memory queues while the other CTAs park: one __syncthreads per
// level instead of one or two grid barriers. Culling is exact (one CTA: a returned
// atomicOr), and each discovered vertex's row offsets are loaded while its bitmask
// atomic is in flight, so a level's dependent chain is: column index, then bitmask word
// and row offsets together, then a shared-memory append.

// Labels what the leader's levels discover (sf_expand's hook).
template <bool PRED>
struct SfLabel {
    const State* S;
    int label;
    __device__ void operator()(int v, int u, int) const {
        S->dist[v] = label;
        if (PRED) S->parent[v] = u;
    }
};

// CTA 0 from iteration L (frontier of at most `threshold` items, no overflow) while the
// others park. Returns the resume word it released: the level whose labelled vertices it
// handed back (EC: in the vertex queue of that level; the others: in vq0 with slot L's
// vertex count, for the grid to expand), or ~iterations when the search is over.
template <bool PRED, bool COUNT>
__device__ int sf_lead(const State& S, Shared& sh, int L, bool vertex_first, int vcount,
                       int ecount, int bigcount, int bigtotal, int threshold, int epoch) {
    const int tid = threadIdx.x, h = L & 1;
    if (tid < 3) sh.sq.packed[tid] = 0;
    __syncthreads();
    // The entry frontier into buffer 0, labelled L: EC's vertex queue as it is, the
    // others' edge queue (and huge lists) culled.
    const int items = vertex_first ? vcount : ecount + bigtotal;
    for (int i0 = 0; i0 < items; i0 += BLOCK) {
        const int i = i0 + tid;
        bool keep = false;
        int v = -1, p = -1, start = 0, len = 0;
        if (i < items) {
            if (vertex_first) {
                v = __ldcg(S.vq(h) + i);
                keep = true;
                start = S.row[v];
                len = S.row[v + 1] - start;
            } else {
                fetch_edge<PRED>(S, h, ecount, bigcount, i, v, p);
                keep = sf_discover(S.row, S.bitmask, v, start, len);
                if (keep) {
                    S.dist[v] = L;
                    if (PRED) S.parent[v] = p;
                }
            }
        }
        sf_append(sh.sq, 0, L, keep, v, start, len);
    }
    __syncthreads();
    int D = L, b = 0, resume;
    for (;; ++D, b ^= 1) {
        const unsigned long long packed = sh.sq.packed[D % 3];
        const int cnt = sf_entries(packed), edges = sf_edges(packed);
        if (cnt == 0) {
            resume = ~D;  // level D is empty: D iterations
            break;
        }
        if (tid == 0) {
            sh.sq.packed[(D + 2) % 3] = 0;  // last read at level D - 1, next filled at D + 1
            if (COUNT) {
                const int cap = S.counter_cap;
                if (D + 2 < cap)
                    for (int k = 0; k < CNT_KINDS; ++k) S.counters[k * cap + D + 2] = 0;
                if (D < cap && !(vertex_first && D == L)) S.counters[CNT_ENQUEUED * cap + D] += cnt;
            }
        }
        if (cnt > threshold || edges > threshold) {
            resume = D;  // hand level D back to the grid, unexpanded
            break;
        }
        S.stamp(D, 0, GPUBFS_NOW());
        S.stamp(D, 2, (unsigned long long)cnt);
        S.stamp(D, 3, KIND_SMALL);
        if (COUNT && tid == 0 && D < S.counter_cap) {
            S.counters[CNT_EXPANDED * S.counter_cap + D] += sf_nonempty(packed);
            S.counters[CNT_EDGES * S.counter_cap + D] += edges;
        }
        SfLabel<PRED> label{&S, D + 1};
        sf_expand<BLOCK>(sh.sq, S.row, S.col, S.bitmask, D, b, cnt, edges, label);
        __syncthreads();
    }
    if (resume >= 0) {
        // Control words of level D as the grid expects them; parked CTAs read slot L
        // before parking, so wait for them before writing over it.
        sf_wait_parked(S.ctl + CTL_SF, epoch);
        const int cnt = sf_entries(sh.sq.packed[D % 3]);
        int* out = vertex_first ? S.vq(D & 1) : S.vq0;
        for (int i = tid; i < cnt; i += BLOCK) out[i] = sh.sq.v[b][i];
        if (tid == 0) {
            int* slot = S.slot(D);
            slot[CTL_VCOUNT] = cnt;
            if (D != L) {  // level L's edge count and huge list stay as the others read them
                slot[CTL_ECOUNT] = 0;
                slot[CTL_OVF] = 0;
                slot[CTL_BIG_OVF] = 0;
                S.big_ctl[D % 3] = 0;
            }
            // The next two slots start clean, as the grid's iteration D would leave
            // them (the others skip it: the grid expands level D, then runs D + 1).
            for (int d = 1; d <= 2; ++d) {
                int* next = S.slot(D + d);
                for (int k = 0; k < CTL_SLOT; ++k) next[k] = 0;
                S.big_ctl[(D + d) % 3] = 0;
            }
        }
    }
    sf_release(S.ctl + CTL_SF, epoch, resume);
    __syncthreads();
    for (int i = tid; i < HISTORY; i += BLOCK) sh.history[i] = -1;  // the queues overwrote it
    return resume;
}

// Labels, bitmasks, control words and the source's queue for one pass; `pass` (0, or 1
// for the exact rerun) goes to ctl[CTL_RERUNS]. The caller's grid barrier follows.
template <bool PRED, bool COUNT>
__device__ void init_pass(const State& S, Shared& sh, int src, bool vertex_first, int pass) {
    const int tid = threadIdx.x;
    const int gtid = grid_thread<BLOCK>();
    // EC's source is labelled here, the others' by their first contraction.
    init_search<BLOCK, PRED>(S.n, src, vertex_first, S.dist, S.parent, S.bitmask,
                             [&](int w) { S.claimed[w] = 0u; });
    for (int i = tid; i < HISTORY; i += BLOCK) sh.history[i] = -1;
    if (gtid == 0) {
        for (int k = 0; k < CTL_WORDS; ++k) S.ctl[k] = 0;
        S.ctl[CTL_RERUNS] = pass;
        for (int k = 0; k < 3; ++k) S.big_ctl[k] = 0;
        if (COUNT)
            for (int k = 0; k < CNT_KINDS; ++k)
                for (int d = 0; d < 2 && d < S.counter_cap; ++d) S.counters[k * S.counter_cap + d] = 0;
        if (vertex_first) {
            S.vq0[0] = src;
            S.ctl[CTL_VCOUNT] = 1;
            if (COUNT) S.counters[CNT_ENQUEUED * S.counter_cap] = 1;
        } else {
            S.eq0[0] = src;
            if (PRED) S.ep0[0] = src;
            S.ctl[CTL_ECOUNT] = 1;
        }
    }
    __syncthreads();
}

// One BFS. The host reads nothing back per traversal (a pinned read would add a host
// round trip to every traversal): a queue that overflows (duplicates past the slack)
// reruns the traversal with exact culling, whose queues are bounded by n and m, in this
// launch. The start and the rerun are the loop's L < 0 turns, so that they share its
// one grid barrier: a rerun branch with barriers of its own spilled registers.
template <bool VERTEX_FRONTIER, int GATHER, bool PRED, bool COUNT, bool SMALL>
__device__ void bfs(State& S, int src) {
    GPUBFS_SHARED(Shared, sh);
    const int gtid = grid_thread<BLOCK>();
    // EC starts from a labelled vertex queue {src}; the others from an edge queue
    // {src} whose contraction labels the source at iteration 0.
    const long long switch_threshold = S.switch_threshold;
    const int small_threshold = S.small_threshold;
    constexpr bool vertex_first = VERTEX_FRONTIER;
    int L = -1;  // -1: initialise; -2: initialise for the rerun (-3: the barrier before it)
    int epoch = 0;
    int handed_back = -1;  // EC: the level CTA 0 last handed back runs on the grid
    for (;;) {
        if (L < 0) {
            init_pass<PRED, COUNT>(S, sh, src, vertex_first, L == -2);
            L = -1;
            epoch = 0;
            handed_back = -1;
        } else {
            const Control c = read_control(S, sh, L);
            if (c.ovf) {
                // Every CTA read the same words: all come here, and the barrier below
                // comes before init clears them.
                if (S.culling == CULL_ATOMIC) break;  // ctl[CTL_OVERFLOW] stays set: the host raises
                S.culling = CULL_ATOMIC;
                L = -3;
            } else {
                const int vcount = c.vcount;
                const int ecount = c.ecount;
                const Huge big = huge_list(S, c.big, c.big_ovf);  // CE and C+E (EC fills its own below)
                const long long frontier = vertex_first ? vcount : (long long)ecount + big.total;
                if (frontier == 0) break;
                if (gtid == 0) {
                    int* clear = S.slot(L + 2);
                    for (int k = 0; k < CTL_SLOT; ++k) clear[k] = 0;
                    S.big_ctl[(L + 2) % 3] = 0;
                    if (COUNT && L + 2 < S.counter_cap)
                        for (int k = 0; k < CNT_KINDS; ++k) S.counters[k * S.counter_cap + L + 2] = 0;
                }
                if (SMALL && frontier <= small_threshold && L != handed_back) {
                    // Every CTA read the same words after the barrier: all enter together.
                    ++epoch;
                    const int resume =
                        blockIdx.x == 0
                            ? sf_lead<PRED, COUNT>(S, sh, L, vertex_first, vcount, ecount, big.count,
                                                   big.total, small_threshold, epoch)
                            : sf_park(S.ctl + CTL_SF, epoch, &sh.bcast[6]);
                    if (resume < 0) {
                        L = ~resume;
                        break;
                    }
                    L = resume;
                    handed_back = L;
                    if (!vertex_first) {
                        // Level L's labelled vertices came back in vq0: expand them into
                        // iteration L + 1's edge queue, as two-phase's second phase does.
                        S.stamp(L, 0, GPUBFS_NOW());
                        S.stamp(L, 3, KIND_SMALL);
                        phase_expand<GATHER, PRED, COUNT>(S, sh, L);
                        GPUBFS_GRID_SYNC();
                        ++L;
                    }
                    continue;
                }
                const bool contract_expand = frontier <= switch_threshold;
                S.stamp(L, 0, GPUBFS_NOW());
                S.stamp(L, 2, (unsigned long long)frontier);
                S.stamp(L, 3, vertex_first ? KIND_EC : contract_expand ? KIND_CE : KIND_TWO_PHASE);
                if (vertex_first) {
                    phase_expand_contract<GATHER, PRED, COUNT>(S, sh, L, vcount);
                    GPUBFS_GRID_SYNC();
                    // The huge list's words are final after the barrier (nothing defers in the
                    // huge phase), so every CTA takes the same branch. An overflowed list is
                    // skipped: the next iteration sees the overflow and stops.
                    const Control after = read_control(S, sh, L);
                    const Huge huge = huge_list(S, after.big, after.big_ovf);
                    if (huge.total > 0) {
                        S.stamp(L, 1, GPUBFS_NOW());
                        S.stamp(L, 3, KIND_EC_HUGE);
                        phase_contract_huge<PRED, COUNT>(S, sh, L, huge.count, huge.total);
                        GPUBFS_GRID_SYNC();
                    }
                    ++L;
                    continue;
                }
                if (contract_expand) {
                    phase_contract_expand<GATHER, PRED, COUNT>(S, sh, L, ecount, big.count, big.total);
                } else {
                    phase_contract<PRED, COUNT>(S, sh, L, ecount, big.count, big.total);
                    GPUBFS_GRID_SYNC();
                    S.stamp(L, 1, GPUBFS_NOW());
                    phase_expand<GATHER, PRED, COUNT>(S, sh, L);
                }
            }
        }
        GPUBFS_GRID_SYNC();
        ++L;
    }
    if (gtid == 0) S.ctl[CTL_ITERS] = L;
    S.stamp(L, 0, GPUBFS_NOW());
}

}  // namespace merrill

// One BFS from `src`: a persistent kernel (persistent.cuh) of CTAs of MERRILL_BLOCK
// threads; `culling` is the CULL_* to start with. Buffers are sized by the host
// (strategies.py). VERTEX_FRONTIER: expand-contract (else an edge-frontier strategy).
// COUNT: per-level counters, SMALL: the small-frontier mode (each compiled out when off:
// builds without them keep the registers of the paper's kernel). Expand-contract's
// phases and the edge-frontier ones are separate instantiations, so that neither holds
// registers for the other's.
#define MERRILL_BFS_PARAMS \
    const int *__restrict__ row, const int *__restrict__ col, const MerrillParams p, int src, int culling

template <bool VERTEX_FRONTIER, int GATHER, bool PRED, bool COUNT, bool SMALL>
__global__ void __launch_bounds__(MERRILL_BLOCK, MERRILL_MIN_BLOCKS)
merrill_bfs(MERRILL_BFS_PARAMS) {
    merrill::State S{p, row, col, culling};
    merrill::bfs<VERTEX_FRONTIER, GATHER, PRED, COUNT, SMALL>(S, src);
}

// Every instantiation, so that a plain nvcc compile checks them all.
#define MERRILL_INSTANTIATE(V, G, P, C, S) \
    template __global__ void merrill_bfs<V, G, P, C, S>(MERRILL_BFS_PARAMS);
#define MERRILL_INSTANTIATE_G(V, P, C, S) \
    MERRILL_INSTANTIATE(V, 0, P, C, S) MERRILL_INSTANTIATE(V, 1, P, C, S) \
    MERRILL_INSTANTIATE(V, 2, P, C, S) MERRILL_INSTANTIATE(V, 3, P, C, S)
#define MERRILL_INSTANTIATE_PC(V, S) \
    MERRILL_INSTANTIATE_G(V, false, false, S) MERRILL_INSTANTIATE_G(V, true, false, S) \
    MERRILL_INSTANTIATE_G(V, false, true, S) MERRILL_INSTANTIATE_G(V, true, true, S)
MERRILL_INSTANTIATE_PC(true, false)
MERRILL_INSTANTIATE_PC(true, true)
MERRILL_INSTANTIATE_PC(false, false)
MERRILL_INSTANTIATE_PC(false, true)
