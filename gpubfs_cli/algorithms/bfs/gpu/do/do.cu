// Direction-optimizing BFS (after Beamer, Asanovic, Patterson, SC'12) in one persistent
// cooperative kernel per traversal: CTAs meet at a grid barrier after each level, read
// the level's counts (frontier vertices n_f, edges out of the frontier m_f, edges into
// it) and all take the same decision, so no level costs a launch or a host read-back.
//
//   top-down   vertex queue -> tiles over the CTAs (gpu/include/tiled.cuh), gathered
//              load-balanced (expand.cuh) -> exact test-and-set on the visited bitmap ->
//              next vertex queue; a small frontier with many out-edges (a hub near the
//              source) spreads its edges over every warp of the grid instead
//              (top_down_spread); in a larger frontier a list of hub_edges or more is
//              left to a hub pass after the level's barrier, which spreads those lists'
//              edges over every warp the same way (one more grid barrier, only on a level
//              that has such a list)
//   small      while a top-down frontier and its out-edges number at most `small_frontier`,
//              CTA 0 runs levels alone from shared-memory queues (one block barrier a
//              level) and the other CTAs park (gpu/include/small_frontier.cuh)
//   bottom-up  frontier bitmap -> one warp per 32 vertices (one bitmap word): each
//              unvisited vertex scans its in-neighbours until one is in the frontier,
//              a lane a list, the warp together past thread_edges (bottom_up.cuh)
//              (the bitmap is n/8 bytes, read through L1 by default: frontier_cache) -> next
//              frontier bitmap and visited word written whole by the warp (ballot)
//
// Switch (Beamer's heuristic, decided on the device from the counts): top-down ->
// bottom-up when m_f * alpha > m_u (m_u: in-edges of the vertices not yet visited),
// bottom-up -> top-down when n_f * beta < n; with DO_RULE_GROWTH (the state machine of
// Beamer et al.'s Fig. 3) the first also needs the frontier growing and the second
// shrinking, so a lattice's shrinking tail does not flip direction every level. A switch
// converts the frontier inside the
// kernel (queue -> bitmap from the distance labels, bitmap -> queue by ballots) at the
// cost of one more grid barrier.
//
// Vertex ids are 32-bit (the host checks n < 2^31). Edge offsets are offset_t (do.cuh):
// int, or long long in the DO_OFFSET64 build (the host's choice from m >= 2^31 on); one
// list's length (a degree) stays int, sums over a frontier are 64-bit. Every queue entry
// is a vertex this kernel labelled (exact atomics), so a queue never holds more than n.
#include "do.cuh"
#include "bottom_up.cuh"
#include "expand.cuh"
#include "spread.cuh"
#include "tiled.cuh"

namespace dobfs {

constexpr int BLOCK = DO_BLOCK;
constexpr int WARPS = BLOCK / 32;
constexpr int SMALL_CAP = DO_SMALL_CAP;
static_assert(BLOCK % 32 == 0 && WARPS <= 32, "CTAs of 32 to 1024 threads");
static_assert(sizeof(Params) == DO_PARAMS_BYTES, "strategies.py's PARAMS mirrors Params");

struct Shared {
    GatherShared<BLOCK, offset_t> g;
    union {
        struct {
            offset_t off[DO_SPREAD + 1];  // top_down_spread: the frontier's edge offsets
            int v[DO_SPREAD];             // ... and its vertices
#if DO_OFFSET64
            long long scan[33];  // the scan of its whole lists (g.scratch is int: short lists)
#endif
        } spread;
        SfQueues<SMALL_CAP, offset_t> sq;  // small-frontier mode (CTA 0 alone)
    };
    unsigned long long red[WARPS][4];  // per-CTA sums of the per-thread counts
    unsigned long long ctl[3];         // the level's slot, read once per CTA
    int bcast;                         // sf_park's resume word
};

// The parameters and what the kernel derives from them.
struct State : Params {
    __device__ unsigned long long* slot(int L) const { return ctl + (L % 3) * SLOT_WORDS; }
    __device__ unsigned int* front(int L) const { return (L & 1) ? front1 : front0; }
    __device__ int* queue(int L) const { return (L & 1) ? q1 : q0; }
    __device__ int4* mid_queue(int L) const { return (L & 1) ? mq + mq_cap : mq; }
    // The hub pass's queue (DO_SPREAD entries): the team's queues, idle during the grid's levels.
    __device__ int* hubs() const { return reinterpret_cast<int*>(mq); }
    __device__ unsigned long long* hub_slot(int L) const { return slot(L + 1) + SLOT_HUBS; }  // its count
    __device__ int* sf_words() const { return reinterpret_cast<int*>(ctl + CTL_SF); }  // small_frontier.cuh's
    __device__ int out_degree(int v) const { return (int)(row[v + 1] - row[v]); }
    __device__ int in_degree(int v) const { return (int)(in_row[v + 1] - in_row[v]); }
    __device__ void stamp(int L, int word, unsigned long long value) const {
        prof_stamp<PROF_WORDS>(prof, prof_cap, L, word, value);
    }
    __device__ void stamp_header(int word) const {
        if (prof && blockIdx.x == 0 && threadIdx.x == 0) prof[(size_t)prof_cap * PROF_WORDS + word] = GPUBFS_NOW();
    }
    // A top-down level that CTA 0 alone or the team runs (no flush): its counters
    // (STATS builds; level D + 1's cleared) and its profile stamps, from CTA 0.
    template <bool STATS>
    __device__ void record_top_down(int D, long long cnt, long long edges) const {
        if (STATS && blockIdx.x == 0 && threadIdx.x == 0) {
            if (D < counter_cap) {
                counters[CNT_VERTICES * counter_cap + D] = (unsigned long long)cnt;
                counters[CNT_EDGES * counter_cap + D] = (unsigned long long)edges;
                counters[CNT_DIR * counter_cap + D] = DIR_TOP_DOWN;
            }
            if (D + 1 < counter_cap)
                for (int k = 0; k < CNT_KINDS; ++k) counters[k * counter_cap + D + 1] = 0;
        }
        const unsigned long long t = prof ? GPUBFS_NOW() : 0;
        stamp(D, PROF_START, t);
        stamp(D, PROF_STEP, t);
        stamp(D, PROF_DIR, DIR_TOP_DOWN);
        stamp(D, PROF_FRONTIER, (unsigned long long)cnt);
    }
};

// What a thread found in one level: summed per CTA, then added to the slot of the
// next level (and to the per-level counters in STATS builds).
struct Counts {
    unsigned long long nf = 0, mf = 0, inf = 0, vertices = 0, edges = 0;
    __device__ void found(const State& S, int v) {
        ++nf;
        mf += S.out_degree(v);
        inf += S.in_degree(v);
    }
};

// Sums the CTA's counts; thread 0 adds them to slot L + 1 (n_f only when `add_nf`:
// top-down reserves queue positions on that word directly) and to level L's counters.
template <bool STATS>
__device__ void flush(const State& S, Shared& sh, int L, Counts c, bool add_nf) {
    const int lane = lane_id(), warp = threadIdx.x >> 5;
    unsigned long long v[4] = {c.nf, c.mf, c.inf, 0};
    v[0] = warp_sum_t(v[0]);
    v[1] = warp_sum_t(v[1]);
    v[2] = warp_sum_t(v[2]);
    unsigned long long ve = 0, ed = 0;
    if (STATS) {
        ve = warp_sum_t(c.vertices);
        ed = warp_sum_t(c.edges);
    }
    __syncthreads();  // red may still be read by a previous flush
    if (lane == 0) {
        sh.red[warp][0] = v[0];
        sh.red[warp][1] = v[1];
        sh.red[warp][2] = v[2];
        sh.red[warp][3] = 0;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t[3] = {0, 0, 0};
        for (int w = 0; w < WARPS; ++w)
            for (int k = 0; k < 3; ++k) t[k] += sh.red[w][k];
        unsigned long long* next = S.slot(L + 1);
        if (add_nf && t[0]) atomicAdd(next + SLOT_NF, t[0]);
        if (t[1]) atomicAdd(next + SLOT_MF, t[1]);
        if (t[2]) atomicAdd(next + SLOT_INF, t[2]);
    }
    if (STATS) {
        __syncthreads();
        if (lane == 0) {
            sh.red[warp][0] = ve;
            sh.red[warp][1] = ed;
        }
        __syncthreads();
        if (threadIdx.x == 0 && L < S.counter_cap) {
            unsigned long long t[2] = {0, 0};
            for (int w = 0; w < WARPS; ++w)
                for (int k = 0; k < 2; ++k) t[k] += sh.red[w][k];
            const int cap = S.counter_cap;
            if (t[0]) atomicAdd(S.counters + CNT_VERTICES * cap + L, t[0]);
            if (t[1]) atomicAdd(S.counters + CNT_EDGES * cap + L, t[1]);
        }
    }
}

// Top-down sink: a neighbour not yet visited is claimed with an exact test-and-set
// (after a lookup through L1: a line another SM has since changed can only read a bit
// as still clear, and the atomic decides), labelled L + 1 and appended to the next
// queue (one reservation per warp, on the next slot's n_f word).
template <bool PRED, bool STATS>
struct TopDownSink {
    const State* S;
    int* queue;
    unsigned long long* nf;
    int label;
    Counts* c;
    __device__ void emit(int v, int u, bool active) {
        bool mine = false;
        if (active) {
            if (STATS) ++c->edges;
            const unsigned int bit = 1u << (v & 31);
            unsigned int* w = S->visited + (v >> 5);
            if (!(__ldca(w) & bit)) mine = (atomicOr(w, bit) & bit) == 0;
        }
        if (mine) {
            S->dist[v] = label;
            if (PRED) S->parent[v] = u;
            c->mf += S->out_degree(v);
            c->inf += S->in_degree(v);
        }
        const unsigned int m = __ballot_sync(GPUBFS_FULL_MASK, mine);
        if (m) {
            const unsigned long long base = warp_leader_add(nf, m, (unsigned long long)__popc(m));
            if (mine) queue[base + lane_rank(m)] = v;
        }
    }
};

// A tiled top-down level (tiled.cuh); lists of hub_edges or more go to the hub pass.
template <bool PRED, bool STATS>
__device__ void top_down(const State& S, Shared& sh, int L, int nf) {
    Counts c;
    TopDownSink<PRED, STATS> sink{&S, S.queue(L + 1), S.slot(L + 1) + SLOT_NF, L + 1, &c};
    top_down_tiles<BLOCK, DO_SPREAD, STATS>(sh.g, S, L, S.queue(L), nf, c, sink);
    flush<STATS>(S, sh, L, c, false);
}

// The spread's scan scratch: g.scratch where offsets are int, else its own.
__device__ __forceinline__ offset_t* spread_scratch(Shared& sh) {
#if DO_OFFSET64
    return sh.spread.scan;
#else
    return sh.g.scratch;
#endif
}

// Top-down for `nf` (at most DO_SPREAD) vertices of `in`, their edges spread over every
// warp of the grid (spread.cuh): tiling by vertices would leave such a level to one CTA
// however long its lists are. `in` is the level's queue, or the hub pass's (whose
// vertices the tiles counted: count_vertices false).
template <bool PRED, bool STATS>
__device__ void top_down_spread(const State& S, Shared& sh, int L, const int* in, int nf, bool count_vertices) {
    Counts c;
    TopDownSink<PRED, STATS> sink{&S, S.queue(L + 1), S.slot(L + 1) + SLOT_NF, L + 1, &c};
    if (STATS && count_vertices && blockIdx.x == 0 && threadIdx.x == 0) c.vertices += (unsigned long long)nf;
    const offset_t total = spread_scan<BLOCK>(S.row, in, nf, sh.spread.off, sh.spread.v, spread_scratch(sh));
    spread_edges<BLOCK>(S.row, S.col, sh.spread.off, sh.spread.v, nf, total, sink);
    flush<STATS>(S, sh, L, c, false);
}

// Bottom-up: warp w owns bitmap word w (vertices 32w .. 32w+31), its lists searched by
// bottom_up.cuh (a lane a list for thread_edges in-edges, then the warp on each list left).
// The visited and next frontier words are written whole by lane 0, so no atomics and no
// clearing pass.
template <bool PRED, bool STATS>
__device__ void bottom_up(const State& S, Shared& sh, int L) {
    Counts c;
    unsigned int wanted = 0;  // STATS: vertices searched (fewer than n: 32 bits hold it, one register less)
    const unsigned int* front = S.front(L);
    unsigned int* next = S.front(L + 1);
    const int lane = lane_id();
    const int words = (S.n + 31) >> 5;
    const int gwarp = grid_warp<BLOCK>(), nwarps = grid_warps<BLOCK>();
    for (int w = gwarp; w < words; w += nwarps) {
        const unsigned int seen = __ldcg(S.visited + w);
        const int v = (w << 5) + lane;
        const bool want = v < S.n && !((seen >> lane) & 1u);
        offset_t s = 0, e = 0;
        if (want) {
            s = S.in_row[v];
            e = S.in_row[v + 1];
        }
        const offset_t k = bottom_up_search<offset_t>(want, s, e, S.in_col, front, S.thread_edges);
        const bool hit = k < e;
        if (hit && PRED) S.parent[v] = S.in_col[k];
        if (STATS && want) {
            ++wanted;
            c.edges += (unsigned long long)(k - s) + (hit ? 1 : 0);
        }
        const unsigned int got = __ballot_sync(GPUBFS_FULL_MASK, hit);
        if (lane == 0) {
            next[w] = got;
            if (got) S.visited[w] = seen | got;
        }
        if (hit) {
            S.dist[v] = L + 1;
            c.found(S, v);
        }
    }
    c.vertices = wanted;
    flush<STATS>(S, sh, L, c, true);
}

// Queue -> bitmap for a switch to bottom-up at level L: the frontier is the vertices
// labelled L (every bitmap word written whole). A warp loads CONVERT_WORDS words' labels
// before its ballots: one 128-byte load in flight a warp does not keep the memory busy.
constexpr int CONVERT_WORDS = 4;
__device__ void to_bitmap(const State& S, int L) {
    unsigned int* front = S.front(L);
    const int lane = lane_id();
    const int words = (S.n + 31) >> 5;
    const int gwarp = grid_warp<BLOCK>(), nwarps = grid_warps<BLOCK>();
    for (int w = gwarp; w < words; w += CONVERT_WORDS * nwarps) {
        bool in[CONVERT_WORDS];
#pragma unroll
        for (int i = 0; i < CONVERT_WORDS; ++i) {
            const int wi = w + i * nwarps;
            in[i] = wi < words && (wi << 5) + lane < S.n && __ldcg(S.dist + (wi << 5) + lane) == L;
        }
#pragma unroll
        for (int i = 0; i < CONVERT_WORDS; ++i) {
            const unsigned int bits = __ballot_sync(GPUBFS_FULL_MASK, in[i]);
            if (lane == 0 && w + i * nwarps < words) front[w + i * nwarps] = bits;
        }
    }
}

// Bitmap -> queue for a switch to top-down at level L. A warp takes 32 words at a time,
// one a lane, and reserves room for all their vertices with one atomic: an atomic per
// nonzero word would serialize on the one counter.
// Each lane writes its word's vertices in order, after the lanes before it.
__device__ void to_queue(const State& S, int L) {
    const unsigned int* front = S.front(L);
    int* queue = S.queue(L);
    unsigned long long* count = S.slot(L) + SLOT_CONV;
    const int lane = lane_id();
    const int words = (S.n + 31) >> 5;
    const int gwarp = grid_warp<BLOCK>(), nwarps = grid_warps<BLOCK>();
    for (int w0 = gwarp << 5; w0 < words; w0 += nwarps << 5) {
        const int w = w0 + lane;
        const unsigned int bits = w < words ? __ldcg(front + w) : 0u;
        int total;
        const int before = warp_exclusive_scan(__popc(bits), &total);
        if (!total) continue;  // warp-uniform
        int base = 0;  // a queue index: below n
        if (lane == 0) base = (int)atomicAdd(count, (unsigned long long)total);
        base = __shfl_sync(GPUBFS_FULL_MASK, base, 0);
        // word by word, the warp writes each word's vertices side by side
        for (unsigned int busy = __ballot_sync(GPUBFS_FULL_MASK, bits != 0u); busy; busy &= busy - 1) {
            const int j = __ffs(busy) - 1;
            const unsigned int b = __shfl_sync(GPUBFS_FULL_MASK, bits, j);
            const int at = base + __shfl_sync(GPUBFS_FULL_MASK, before, j);
            if ((b >> lane) & 1u) queue[at + __popc(b & ((1u << lane) - 1u))] = ((w0 + j) << 5) + lane;
        }
    }
}

// ---- Small-frontier mode: CTA 0 runs top-down levels alone ------------------------------
// Entered at a top-down level L whose frontier (queue L) and out-edges number at most
// `threshold`; the other CTAs park. CTA 0 expands levels from shared-memory queues with
// exact claims until a level is empty (the search is over) or passes the threshold;
// that level's vertices go back to queue D with its slot's counts, for the grid to take
// on from level D. These levels stay top-down whatever the heuristic would say: a
// bottom-up step reads the whole bitmap, and a frontier this small needs a few lists.

// Labels what the leader discovers and sums the in-degrees (the m_u the grid subtracts
// when it takes the frontier back).
template <bool PRED>
struct SmallLabel {
    const State* S;
    int label;
    unsigned long long inf;
    __device__ void operator()(int v, int u, int len) {
        S->dist[v] = label;
        if (PRED) S->parent[v] = u;
        inf += S->in_row == S->row ? len : S->in_degree(v);
    }
};

template <bool PRED, bool STATS>
__device__ int small_levels(const State& S, Shared& sh, int L, int nf, int threshold, int epoch) {
    const int tid = threadIdx.x;
    int* words = S.sf_words();
    if (tid < 3) sh.sq.packed[tid] = 0;
    __syncthreads();
    const int* in = S.queue(L);
    for (int i0 = 0; i0 < nf; i0 += BLOCK) {
        const int i = i0 + tid;
        int v = -1;
        offset_t start = 0;
        int len = 0;
        if (i < nf) {
            v = __ldcg(in + i);
            start = S.row[v];
            len = (int)(S.row[v + 1] - start);
        }
        sf_append(sh.sq, 0, L, i < nf, v, start, len);
    }
    __syncthreads();
    SmallLabel<PRED> label{&S, 0, 0};
    int D = L, b = 0, resume;
    for (;; ++D, b ^= 1) {
        const unsigned long long packed = sh.sq.packed[D % 3];
        const int cnt = sf_entries(packed), edges = sf_edges(packed);
        if (cnt == 0) {
            resume = ~D;  // level D is empty: D levels
            break;
        }
        if (D > L && (cnt > threshold || edges > threshold)) {
            resume = D;  // hand level D back to the grid, unexpanded
            break;
        }
        if (tid == 0) sh.sq.packed[(D + 2) % 3] = 0;  // last read at level D - 1, next filled at D + 1
        S.record_top_down<STATS>(D, cnt, edges);
        label.label = D + 1;
        sf_expand<BLOCK>(sh.sq, S.row, S.col, S.visited, D, b, cnt, edges, label);
        __syncthreads();
    }
    // Levels L .. D - 1 ran here: one global update per entry, off the levels' chain.
    if (tid == 0) S.ctl[CTL_SMALL_LEVELS] += (unsigned long long)(D - L);
    if (resume >= 0) {
        // Level D's slot as the grid's level D - 1 would leave it; the parked CTAs read
        // slot L before parking, so wait for them before writing over it.
        sf_wait_parked(words, epoch);
        const int cnt = sf_entries(sh.sq.packed[D % 3]);
        int* out = S.queue(D);
        Counts c;
        c.inf = label.inf;  // every level the leader labelled: L + 1 .. D
        for (int i = tid; i < cnt; i += BLOCK) {
            out[i] = sh.sq.v[b][i];
            c.mf += sh.sq.len[b][i];
        }
        if (tid == 0) {
            c.nf = cnt;
            for (int d = 0; d <= 1; ++d)
                for (int k = 0; k < SLOT_WORDS; ++k) S.slot(D + d)[k] = 0;
        }
        flush<false>(S, sh, D - 1, c, true);  // thread 0 adds after its own clearing
    }
    sf_release(words, epoch, resume);
    return resume;
}

// ---- Mid-frontier mode: a team of CTAs runs top-down levels -----------------------------
// Entered at a top-down level L whose frontier and out-edges number at most `mid_frontier`
// (but not at most small_frontier, the mode above): CTAs 0 .. team - 1 run levels with a
// barrier of their own (team_sync: fewer participants than the grid's) while the rest park
// as in the small-frontier mode. A level's dependency chain is shortened: a queue entry
// carries its vertex's list (start, length), fetched while the claim is in flight
// (sf_discover), and one atomic per warp both reserves queue positions and sums the
// entries' out-edges. The control words keep the grid's slot rotation (level D reads slot
// D % 3, fills D + 1, clears D + 2); slot D's SLOT_NF holds entries << MID_EDGE_BITS |
// out-edges (no carry: see MID_EDGE_BITS), SLOT_INF the entries' in-edges (directed
// graphs; undirected ones have as many as out-edges). The team hands level D back to the
// grid when the heuristic would go bottom-up, when D passes the threshold or fits the
// small-frontier mode, or when its lists are long (DO_HUB_DEGREE: the grid spreads them
// over every warp); CTA 0 then rewrites slot D as the grid's level D - 1 would have left it.

// A level's entries number at most mid_frontier (each is claimed through one edge of
// the level before, which had at most mid_frontier): under 2^16. Their out-edges are
// under 2^31 (at most m) with 32-bit offsets, else under 2^16 lists of under 2^31 each.
constexpr int MID_EDGE_BITS = DO_OFFSET64 ? 48 : 32;
constexpr unsigned long long MID_EDGE_MASK = (1ull << MID_EDGE_BITS) - 1;
static_assert(DO_MID_CAP < (1ull << (64 - MID_EDGE_BITS)), "the team's entries fit above the edges");

// A team queue entry: vertex, list start, list length; a 64-bit start's high word in w.
__device__ __forceinline__ int4 mid_entry(int v, offset_t start, int len) {
#if DO_OFFSET64
    return make_int4(v, (int)start, len, (int)(start >> 32));
#else
    return make_int4(v, start, len, 0);
#endif
}
__device__ __forceinline__ offset_t mid_start(const int4& e) {
#if DO_OFFSET64
    return (long long)(unsigned int)e.y | ((long long)e.w << 32);
#else
    return e.y;
#endif
}

// Whether a top-down frontier is the team's: mid-size, and not a few long lists.
__device__ __forceinline__ bool mid_fits(long long nf, long long mf, int mid_frontier, int small_frontier) {
    return nf <= mid_frontier && mf <= mid_frontier && !(nf <= small_frontier && mf <= small_frontier) &&
           mf < (long long)DO_HUB_DEGREE * nf;
}

template <bool PRED>
struct MidSink {
    const State* S;
    int4* out;
    unsigned long long* packed;  // slot D + 1's SLOT_NF
    unsigned long long* inf;     // slot D + 1's SLOT_INF (directed graphs)
    int label;
    bool directed;
    __device__ void emit(int v, int u, bool active) {
        offset_t start = 0;
        int len = 0;
        const bool mine = active && sf_discover(S->row, S->visited, v, start, len);
        unsigned long long in = 0;
        if (mine) {
            S->dist[v] = label;
            if (PRED) S->parent[v] = u;
            if (directed) in = (unsigned long long)S->in_degree(v);
        }
        const unsigned int m = __ballot_sync(GPUBFS_FULL_MASK, mine);
        if (!m) return;
        const unsigned long long edges = warp_sum_t((unsigned long long)(mine ? len : 0));
        const unsigned long long base =
            warp_leader_add(packed, m, ((unsigned long long)__popc(m) << MID_EDGE_BITS) | edges);
        if (mine) out[(base >> MID_EDGE_BITS) + lane_rank(m)] = mid_entry(v, start, len);
        if (directed) warp_leader_add(inf, m, warp_sum_t(in));
    }
};

// Team level D's tile entries (the team's first level L reads the grid's queue: vertices
// alone; later ones its own entries, which carry their lists).
struct MidLoad {
    const State& S;
    int L, D;
    __device__ __forceinline__ void operator()(int i, int& u, offset_t& start, int& len) const {
        if (D == L) {
            u = __ldcg(S.queue(L) + i);
            start = S.row[u];
            len = (int)(S.row[u + 1] - start);
        } else {
            const int4 e = __ldcg(S.mid_queue(D) + i);
            u = e.x;
            start = mid_start(e);
            len = e.z;
        }
    }
};

// The team's levels from L (frontier nf vertices with mf out-edges in queue L). `m_u`
// and `prev_nf` are the grid's at level L; `bar` counts the team barriers passed.
// Returns the grid's resume word: the level handed back, or ~levels when the search is over.
template <bool PRED, bool STATS>
__device__ int mid_levels(const State& S, Shared& sh, int L, long long nf, long long mf, long long m_u,
                          long long prev_nf, long long alpha_milli, int rule, int mid_frontier,
                          int small_frontier, int team, int epoch, unsigned long long& bar) {
    const int tid = threadIdx.x;
    const bool directed = S.in_row != S.row;
    int* words = S.sf_words();
    unsigned long long inf_sum = 0;  // in-edges of the levels L + 1 .. D
    long long cnt = nf, edges = mf;
    int D = L, resume;
    for (;; ++D) {
        if (D > L) {
            const unsigned long long* slot = S.slot(D);
            const unsigned long long p = __ldcg(slot + SLOT_NF);
            cnt = (long long)(p >> MID_EDGE_BITS);
            edges = (long long)(p & MID_EDGE_MASK);
            const long long in = directed ? (long long)__ldcg(slot + SLOT_INF) : edges;
            inf_sum += (unsigned long long)in;
            m_u -= in;
            if (cnt == 0) {
                resume = ~D;  // level D is empty: D levels
                break;
            }
            const bool down = rule != DO_RULE_TOP_DOWN &&
                              (double)edges * (double)alpha_milli > (double)m_u * DO_MILLI &&
                              (rule == DO_RULE_COUNTS || cnt > prev_nf);
            if (down || !mid_fits(cnt, edges, mid_frontier, small_frontier)) {
                resume = D;  // hand level D back to the grid, unexpanded
                break;
            }
        }
        prev_nf = cnt;
        if (blockIdx.x == 0 && tid == 0) {
            if (D == L + 1)  // slot D + 2 is slot L, which parked CTAs read before parking
                sf_wait_arrived(words, (epoch - 1) * (int)(gridDim.x - 1) + (int)gridDim.x - team);
            if (D > L) {  // at level L the grid cleared slot L + 2
                unsigned long long* clear = S.slot(D + 2);
                for (int k = 0; k < SLOT_WORDS; ++k) clear[k] = 0;
            }
        }
        S.record_top_down<STATS>(D, cnt, edges);
        unsigned long long* next = S.slot(D + 1);
        MidSink<PRED> sink{&S, S.mid_queue(D + 1), next + SLOT_NF, next + SLOT_INF, D + 1, directed};
        // Tiles spread over every team member (tiled.cuh): a lattice's few thousand
        // entries give each CTA one round of gathering, not a few CTAs four.
        MidLoad load{S, L, D};
        gather_tiles<BLOCK>(sh.g, S.col, cnt, team, load, sink);
        team_sync(S.ctl + CTL_TEAM_BAR, (unsigned long long)team * ++bar);
    }
    if (blockIdx.x == 0 && tid == 0) {
        S.ctl[CTL_MID_LEVELS] += (unsigned long long)(D - L);
        if (resume >= 0) S.ctl[CTL_PREV_NF] = (unsigned long long)prev_nf;
    }
    if (resume < 0) {  // nothing to hand back: the parked CTAs only need the word
        if (blockIdx.x == 0) sf_release(words, epoch, resume);
        return resume;
    }
    // Level D's vertices to the grid's queue D, each team member its share; then the
    // members park, and CTA 0 rewrites slot D once every other CTA has parked.
    const int4* in = S.mid_queue(D);
    int* out = S.queue(D);
    for (int i = blockIdx.x * BLOCK + tid; i < cnt; i += team * BLOCK) out[i] = __ldcg(in + i).x;
    if (blockIdx.x != 0) return sf_park(words, epoch, &sh.bcast);
    sf_wait_parked(words, epoch);
    if (tid == 0) {
        unsigned long long* slot = S.slot(D);
        slot[SLOT_NF] = (unsigned long long)cnt;
        slot[SLOT_MF] = (unsigned long long)edges;
        slot[SLOT_INF] = inf_sum;  // the grid subtracts levels L + 1 .. D at level D
    }
    sf_release(words, epoch, resume);
    return resume;
}

// After top-down level L's barrier: the lists its tiles left to the hub pass (hub_edges
// or more out-edges each, the first DO_SPREAD of them: the spread's shared arrays), which
// spreads them over every warp of the grid (top_down_spread), so a hub of millions of
// edges is not one CTA's. Every thread reads the same count after the barrier, so the
// whole grid takes the same branch.
__device__ __forceinline__ int hub_count(const State& S, int L) {
    const unsigned long long h = __ldcg(S.slot(L + 1) + SLOT_HUBS);
    const int count = h < DO_SPREAD ? (int)h : DO_SPREAD;
    if (count && blockIdx.x == 0 && threadIdx.x == 0) ++S.ctl[CTL_HUB_LEVELS];
    return count;
}

// The knobs come as values the kernel reads from its parameters, not from S in place:
// that way the capped builds spill no more than with one kernel parameter a knob.
template <bool PRED, bool STATS>
__device__ void bfs(const State& S, int src, long long m_in, long long alpha_milli, long long beta_milli, int rule,
                    int small_frontier, int mid_frontier, int mid_ctas) {
    GPUBFS_SHARED(Shared, sh);
    const int gtid = grid_thread<BLOCK>();
    S.stamp_header(PROF_ENTRY);
    init_search<BLOCK, PRED>(S.n, src, true, S.dist, S.parent, S.visited);
    if (gtid == 0) {
        for (int k = 0; k < CTL_WORDS; ++k) S.ctl[k] = 0;
        S.ctl[SLOT_NF] = 1;
        S.ctl[SLOT_MF] = (unsigned long long)S.out_degree(src);
        S.ctl[SLOT_INF] = (unsigned long long)S.in_degree(src);
        S.q0[0] = src;
        if (STATS)
            for (int k = 0; k < CNT_KINDS; ++k)
                if (S.counter_cap > 0) S.counters[k * S.counter_cap] = 0;
    }
    GPUBFS_GRID_SYNC();
    S.stamp_header(PROF_READY);

    long long m_u = m_in;  // in-edges of the vertices not yet visited
    long long prev_nf = 0;  // the last level's frontier (DO_RULE_GROWTH)
    bool bu = false;
    int L = 0, bu_levels = 0, switches = 0, epoch = 0;
    const int team = min(mid_ctas, (int)gridDim.x);
    unsigned long long bar = 0;  // team barriers passed (team members)
    for (;;) {
        if (threadIdx.x == 0) {
            const volatile unsigned long long* slot = S.slot(L);
            sh.ctl[0] = slot[SLOT_NF];
            sh.ctl[1] = slot[SLOT_MF];
            sh.ctl[2] = slot[SLOT_INF];
        }
        __syncthreads();
        const long long nf = (long long)sh.ctl[0], mf = (long long)sh.ctl[1];
        m_u -= (long long)sh.ctl[2];
        __syncthreads();  // sh.ctl is rewritten next level
        if (nf == 0) break;
        // Every CTA computes the same decision from the same words.
        const bool was = bu;
        if (rule != DO_RULE_TOP_DOWN) {
            const bool counts = rule == DO_RULE_COUNTS;
            if (!bu && (double)mf * (double)alpha_milli > (double)m_u * DO_MILLI && (counts || nf > prev_nf))
                bu = true;
            else if (bu && (double)nf * (double)beta_milli < (double)S.n * DO_MILLI && (counts || nf < prev_nf))
                bu = false;
        }
        prev_nf = nf;
        if (gtid == 0) {
            unsigned long long* clear = S.slot(L + 2);
            for (int k = 0; k < SLOT_WORDS; ++k) clear[k] = 0;
            if (STATS && L + 1 < S.counter_cap)
                for (int k = 0; k < CNT_KINDS; ++k) S.counters[k * S.counter_cap + L + 1] = 0;
            if (STATS && L < S.counter_cap) S.counters[CNT_DIR * S.counter_cap + L] = bu ? 1 : 0;
        }
        if (!bu && !was && nf <= small_frontier && mf <= small_frontier) {
            // Every CTA read the same words: all enter together (small_frontier.cuh).
            ++epoch;
            const int resume = blockIdx.x == 0
                                   ? small_levels<PRED, STATS>(S, sh, L, (int)nf, small_frontier, epoch)
                                   : sf_park(S.sf_words(), epoch, &sh.bcast);
            if (resume < 0) {
                L = ~resume;
                break;
            }
            L = resume;
            prev_nf = 0;  // the leader's last level is not known here: the frontier grew past it
            continue;
        }
        if (!bu && !was && team > 0 && mid_fits(nf, mf, mid_frontier, small_frontier)) {
            ++epoch;  // one epoch count with the small-frontier mode's entries
            const int resume = (int)blockIdx.x < team
                                   ? mid_levels<PRED, STATS>(S, sh, L, nf, mf, m_u, prev_nf, alpha_milli, rule,
                                                             mid_frontier, small_frontier, team, epoch, bar)
                                   : sf_park(S.sf_words(), epoch, &sh.bcast);
            if (resume < 0) {
                L = ~resume;
                break;
            }
            L = resume;
            prev_nf = (long long)__ldcg(S.ctl + CTL_PREV_NF);
            continue;
        }
        const unsigned long long t0 = S.prof ? GPUBFS_NOW() : 0;
        S.stamp(L, PROF_START, t0);
        S.stamp(L, PROF_DIR, bu ? DIR_BOTTOM_UP : DIR_TOP_DOWN);
        S.stamp(L, PROF_FRONTIER, (unsigned long long)nf);
        if (bu != was) {
            ++switches;
            if (bu) to_bitmap(S, L);
            else to_queue(S, L);
            GPUBFS_GRID_SYNC();
        }
        S.stamp(L, PROF_STEP, bu != was && S.prof ? GPUBFS_NOW() : t0);
        if (bu) {
            ++bu_levels;
            bottom_up<PRED, STATS>(S, sh, L);
            GPUBFS_GRID_SYNC();
        } else {
            // Spread: the level's queue (a small frontier), or after a tiled level the
            // lists it left to the hub pass; one call site keeps the kernel's registers.
            const bool spread = S.spread_edges >= 0 && nf <= DO_SPREAD && mf >= S.spread_edges;
            const int* in = S.queue(L);
            int count = (int)nf;
            if (!spread) {
                top_down<PRED, STATS>(S, sh, L, (int)nf);
                GPUBFS_GRID_SYNC();
                in = S.hubs();
                count = S.hub_edges > 0 ? hub_count(S, L) : 0;
            }
            if (count) top_down_spread<PRED, STATS>(S, sh, L, in, count, spread);
            if (count) GPUBFS_GRID_SYNC();  // the spread level's barrier, or the hub pass's
        }
        ++L;
    }
    if (gtid == 0) {
        S.ctl[CTL_LEVELS] = (unsigned long long)L;
        S.ctl[CTL_BU_LEVELS] = (unsigned long long)bu_levels;
        S.ctl[CTL_SWITCHES] = (unsigned long long)switches;
    }
    S.stamp(L, PROF_START, S.prof ? GPUBFS_NOW() : 0);
}

}  // namespace dobfs

// One BFS from `src`: a persistent kernel (persistent.cuh) of CTAs of DO_BLOCK threads,
// its state in `p` (do.cuh). src_at, when not null, holds the source instead: a CUDA
// graph's arguments are fixed when it is captured, so a graph launch copies each source
// into that word.
template <bool PRED, bool STATS>
__global__ void __launch_bounds__(DO_BLOCK, DO_MIN_BLOCKS)
    do_bfs(const dobfs::Params p, int src, const int* __restrict__ src_at) {
    const dobfs::State S{p};
    dobfs::bfs<PRED, STATS>(S, src_at ? *src_at : src, p.m_in, p.alpha_milli, p.beta_milli, p.rule, p.small_frontier,
                            p.mid_frontier, p.mid_ctas);
}

// Every instantiation, so that a plain nvcc compile checks them all.
#define DO_INSTANTIATE(P, C) \
    template __global__ void do_bfs<P, C>(const dobfs::Params, int, const int* __restrict__);
DO_INSTANTIATE(false, false)
DO_INSTANTIATE(true, false)
DO_INSTANTIATE(false, true)
DO_INSTANTIATE(true, true)
