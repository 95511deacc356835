// Delta-stepping SSSP (Meyer and Sanders) and its two-bucket form, near-far (Davidson,
// Baxter, Garland, Owens), in one persistent cooperative kernel per traversal: CTAs meet
// at grid barriers between phases and all read the same control words after each, so a
// bucket costs a few barriers, not a host round trip. strategies.py explains the design;
// in short:
//
//   light round   the current bucket's frontier -> load-balanced gathering of each
//                 vertex's light edges (gpu/include/expand.cuh) -> atomicMin on the
//                 64-bit distance; the thread that lowered it pushes the vertex to the
//                 next round's frontier (new distance inside the bucket) or to the far
//                 pile (beyond it), each at most once per round / far pile (stamps)
//   heavy round   once the frontier is empty: the heavy edges of every vertex the bucket
//                 settled (its list, deduplicated by a per-vertex bucket stamp); every
//                 new distance lands beyond the bucket, in the far pile
//   next bucket   a min-reduction over the far pile's live distances picks the next
//                 non-empty bucket (empty buckets are skipped); a compaction moves its
//                 vertices to the frontier and keeps the rest in the other far pile
//   hub pass      a grid round leaves lists of hub_edges or more (up to DELTA_HUB_CAP of
//                 them) to a pass after its barrier that spreads their edges over every
//                 warp of the grid (gpu/include/spread.cuh): a power-law graph's hub of
//                 10^5 edges would otherwise be one CTA's while the others wait
//   small mode    while a round's frontier and its light edges number at most
//                 small_frontier, CTA 0 (the leader) runs the bucket's light rounds alone
//                 from shared-memory queues, with block barriers, and the rest of the grid
//                 parks (gpu/include/small_frontier.cuh): a road network's rounds relax a
//                 few hundred edges each, and a grid barrier a round is most of their cost
//   parents       (PRED) after the distances: positive-weight tight edges first, then
//                 rounds of a BFS over zero-weight tight edges from vertices anchored
//                 earlier (a tree whatever zero-weight cycles exist)
//
// HEAVY false is near-far: every edge counts as light (the frontier relaxes whole
// lists), there is no heavy round, and the window [lo, lo + delta) is the near bucket.
//
// Distances are unsigned 64-bit with all ones for unreached (-1 through the int64 array
// the launcher returns). Vertex ids and edge offsets are 32-bit (the launcher refuses
// 2^31 edges or more). delta_partition's perm lists each vertex's edge ids with the light
// ones first; the kernel reads the neighbours and weights in that order (pcol, pw, made by
// the launcher), and its sinks take the edge's offset (expand.cuh's kOffsets) to read the
// weight beside the neighbour: no edge-id hop on the way.
#include "delta.cuh"
#include "expand.cuh"
#include "small_frontier.cuh"
#include "spread.cuh"
#include "tiled.cuh"

namespace dsssp {

constexpr int BLOCK = DELTA_BLOCK;
constexpr int WARPS = BLOCK / 32;
constexpr int SMALL_CAP = DELTA_SMALL_CAP;
static_assert(BLOCK % 32 == 0 && WARPS <= 32, "CTAs of 32 to 1024 threads");
static_assert(DELTA_TILE_MIN % 32 == 0 && DELTA_TILE_MIN <= BLOCK, "a tile is whole warps, at most a CTA");

typedef unsigned long long dist_t;
typedef delta_weight_t weight_t;
constexpr dist_t INF = ~0ull;

// The asynchronous leader's pool (DELTA_ASYNC): a ring of pushed vertices, -1 where a
// slot is empty. Positions are reserved at `tail` and taken at `head`; `done` counts the
// taken ones whose edges are relaxed (and their pushes made), so done == tail means no
// work is left anywhere. A slot is handed over by atomics alone (a writer's CAS from -1,
// a taker's exchange to -1): a taker may get a later lap's vertex and that lap's taker
// this one's, but each vertex written is taken once.
constexpr int POOL_CAP = 4 * SMALL_CAP;
static_assert((POOL_CAP & (POOL_CAP - 1)) == 0 && POOL_CAP % 512 == 0, "a power of two, whole CTAs of slots");
static_assert(POOL_CAP > SMALL_CAP, "the entry round fits");
struct Pool {
    int slot[POOL_CAP];
    unsigned int head, tail, done;
    int stop;                  // hand back: no more takes
    unsigned long long hand;   // the hand-back queue's size
    unsigned long long batches;  // the warps' batches, summed
};

struct Shared {
    union {
        GatherShared<BLOCK, int> g;   // the grid's rounds
        SfQueues<SMALL_CAP, int> sq;  // the leader's rounds (small-frontier mode)
        Pool pool;                    // the asynchronous leader (DELTA_ASYNC; no larger than sq)
        struct {
            SpreadLists<DELTA_HUB_CAP, int> l;
            int scan[33];
        } hub;                        // the hub passes
    };
    unsigned long long lead[2];  // the leader's far pile and settled list sizes
    unsigned long long clock[5];  // CTA 0's thread 0: the search's start, ns_small, ns_grid, far_scanned, a round's start
    int long_list;               // the last round given a list the queue's count clamps
    int bcast;                   // sf_park's resume word
#if DELTA_PROFILE
    unsigned long long prof[CTL_PROF_PHASES + 1];  // the leader's phase sums (thread 0; the last word a sink)
#endif
};

// A value that needs every one of a thread's answers (PhaseClock's dep).
template <class T, int N>
__device__ __forceinline__ unsigned long long answers(const T (&x)[N]) {
    unsigned long long s = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) s += (unsigned long long)x[j];
    return s;
}

// The profile build's clock of the leader's rounds: thread 0 ends a phase once `dep`, an
// answer the phase waited for (a load's, an atomic's), has arrived, and adds the phase's
// cycles to sh.prof. A warp issues in order, so a branch on dep before the clock read
// makes the read wait for it (a branch the compiler cannot drop: it adds the last clock
// read). The timed build compiles it all out.
struct PhaseClock {
#if DELTA_PROFILE
    unsigned long long last = 0;
#endif
    __device__ __forceinline__ void start() {
#if DELTA_PROFILE
        if (threadIdx.x == 0) last = GPUBFS_CYCLES();
#endif
    }
    __device__ __forceinline__ void mark(Shared& sh, int phase, unsigned long long dep) {
#if DELTA_PROFILE
        if (threadIdx.x == 0) {
            if (dep + last == 0x5ca1ab1e5ca1ab1eull) sh.prof[CTL_PROF_PHASES] = dep;  // never: last is a clock
            const unsigned long long t = GPUBFS_CYCLES();
            sh.prof[phase] += t - last;
            last = t;
        }
#else
        (void)sh, (void)phase, (void)dep;
#endif
    }
};

// Stamp values fall as rounds go on (all ones: never claimed), so one atomicMin tells a
// vertex's first push in a round from a later one.
__device__ __forceinline__ dist_t key(long long round) { return INF - 1 - (dist_t)round; }

// True for the first claim of v with key k. The plain read (`look`) only skips what is
// claimed already: a stale stamp is only ever higher.
__device__ __forceinline__ bool claim(dist_t* stamp, int v, dist_t k, bool look = true) {
    if (look && stamp[v] <= k) return false;
    return atomicMin(&stamp[v], k) > k;
}

// Lowers dist[v] to nd; true when this call lowered it (a stale read is only too high).
// The read first (`look`) spares a large round the atomics of relaxations that lower
// nothing; a small round's chain is shorter without it.
__device__ __forceinline__ bool lower(dist_t* dist, int v, dist_t nd, bool look = true) {
    if (look && nd >= __ldcg(&dist[v])) return false;
    return nd < atomicMin(&dist[v], nd);
}

__device__ __forceinline__ unsigned long long read_word(const unsigned long long* p) {
    return *(const volatile unsigned long long*)p;
}

// Warp-converged append of v for the lanes that want it: one atomic per warp.
__device__ __forceinline__ void warp_push(bool want, int v, unsigned long long* size, int* queue) {
    const unsigned int m = __ballot_sync(GPUBFS_FULL_MASK, want);
    if (!m) return;
    const unsigned long long base = warp_leader_add<unsigned long long>(size, m, (unsigned long long)__popc(m));
    if (want) queue[base + lane_rank(m)] = v;
}

__device__ __forceinline__ dist_t warp_min_u64(dist_t x) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        const dist_t y = __shfl_xor_sync(GPUBFS_FULL_MASK, x, d);
        x = y < x ? y : x;
    }
    return x;
}

// A compile-time flag a generic lambda takes as a value (NVRTC has no <type_traits>).
template <bool B>
struct Look {
    static constexpr bool value = B;
};

// The relaxation of gathered edges (light and heavy rounds alike): v is the neighbour
// at offset `at` of perm's order (pcol), u its source, pw[at] the edge's weight. New
// distances below `hi` go to the next frontier, the others to the far pile. LOOK: read
// the distance and the stamp before their atomics (lower, claim); a template argument,
// not a field, since a register more makes the kernel spill.
template <bool LOOK = true>
struct RelaxSink {
    static constexpr bool kOffsets = true;
    const weight_t* pw;
    dist_t* dist;
    dist_t* lstamp;
    dist_t* fstamp;
    dist_t hi, lkey, fkey;
    int* next;
    unsigned long long* next_size;
    int* far;
    unsigned long long* far_size;
    unsigned long long relaxed;

    __device__ __forceinline__ void emit(int v, int u, int at, bool active) {
        bool near = false, to_far = false;
        if (active) {
            ++relaxed;
            const dist_t nd = __ldcg(&dist[u]) + (dist_t)pw[at];
            if (lower(dist, v, nd, LOOK)) {
                if (nd < hi) near = claim(lstamp, v, lkey, LOOK);
                else to_far = claim(fstamp, v, fkey, LOOK);
            }
        }
        warp_push(near, v, next_size, next);
        warp_push(to_far, v, far_size, far);
    }
};

// Parents: round 0 anchors v through a tight edge of positive weight (ZERO false),
// round p >= 1 through a tight zero-weight edge out of a vertex anchored in round p - 1.
template <bool ZERO>
struct ParentSink {
    static constexpr bool kOffsets = true;
    const weight_t* pw;
    const dist_t* dist;
    int* parent;
    int* anchor;
    int round;
    int* next;
    unsigned long long* next_size;

    __device__ __forceinline__ void emit(int v, int u, int at, bool active) {
        bool got = false;
        if (active) {
            const dist_t wt = (dist_t)pw[at];
            if ((wt == 0) == ZERO && dist[u] + wt == dist[v] &&
                atomicCAS(&anchor[v], DELTA_UNANCHORED, round) == DELTA_UNANCHORED) {
                parent[v] = u;
                got = true;
            }
        }
        warp_push(got, v, next_size, next);
    }
};

// Which part of pcol an item's list is: its light edges [row, split) (near-far: all of
// them, split = row + degree), its heavy ones [split, row + 1), or every edge of a
// reached vertex (the parents' first round).
enum ListPart { LIGHT, HEAVY_EDGES, REACHED };

// Grid round g's hub queue: the count of the lists it left to its hub pass (a.hubs holds
// the first DELTA_HUB_CAP). The count is read after the round's barrier and cleared at
// round g + 2's start (a barrier between each), before round g + 3 appends to that slot.
__device__ __forceinline__ unsigned long long* hub_slot(unsigned long long* ctl, long long g) {
    return ctl + CTL_HUBS + (int)(g % 3);
}

// The part of each vertex's list a round relaxes (REACHED: the whole list; gather_items
// skips an unreached vertex's), for gather_items and as spread.cuh's lists.
template <ListPart PART>
struct PartLists {
    const int* __restrict__ row;
    const int* __restrict__ split;
    __device__ __forceinline__ int start(int u) const { return PART == HEAVY_EDGES ? split[u] : row[u]; }
    __device__ __forceinline__ int end(int u) const { return PART == LIGHT ? split[u] : row[u + 1]; }
    __device__ __forceinline__ int len(int u) const { return end(u) - start(u); }
};

// Where the bucket's settled vertices go (the heavy round's list), each once per bucket.
struct Settle {
    int* rstamp;
    int bucket_stamp;  // bucket number + 1
    unsigned long long* size;
    int* list;
};

// The lists of items[0, size) (null items: the vertices 0 .. size - 1) over the grid, a
// tile of at most BLOCK items per CTA at a time (the loop is CTA-uniform: gather_lists has
// block barriers). A round of fewer items than the grid's threads is spread over every
// CTA (tiled.cuh's tile_share, in whole warps, as do.bfs's levels): a road network's round
// of a few thousand vertices in BLOCK-item tiles kept a handful of CTAs walking their lists
// a batch after another while the rest of the grid waited at the barrier. With a Settle,
// each item is recorded (warp-converged) before its list; with hub_edges above 0, lists of
// hub_edges or more go to grid round g's hub pass (hub_slot's count, the list `hubs`)
// while its queue has room. The arguments are the parameters' words, which the compiler
// reads again where used instead of holding them: registers are at their cap.
template <ListPart PART, class Sink>
__device__ __forceinline__ void gather_items(Shared& sh, const int* __restrict__ row, const int* __restrict__ split,
                                             const unsigned long long* dist, const int* __restrict__ pcol,
                                             const int* items, long long size, Sink& sink,
                                             const Settle* settle = nullptr, int hub_edges = 0, int* hubs = nullptr,
                                             unsigned long long* ctl = nullptr, long long g = 0) {
    const int tile = tile_share<BLOCK, DELTA_TILE_MIN>(size, (int)gridDim.x);  // whole warps of the grid's share
    for (long long base = (long long)blockIdx.x * tile; base < size; base += (long long)gridDim.x * tile) {
        const long long i = base + threadIdx.x;
        const bool valid = (int)threadIdx.x < tile && i < size;
        int u = -1, start = 0, len = 0;
        if (valid) {
            u = items != nullptr ? __ldcg(items + i) : (int)i;
            const PartLists<PART> lists{row, split};
            start = lists.start(u);
            len = PART == REACHED && dist[u] == INF ? 0 : lists.end(u) - start;
        }
        if (settle != nullptr)
            warp_push(valid && atomicMax(&settle->rstamp[u], settle->bucket_stamp) < settle->bucket_stamp, u,
                      settle->size, settle->list);
        if (hub_edges > 0 && len >= hub_edges) {  // valid items only
            const unsigned long long h = atomicAdd(hub_slot(ctl, g), 1ull);
            if (h < DELTA_HUB_CAP) {
                hubs[h] = u;
                len = 0;
            }
        }
        gather_lists(sh.g, pcol, u, start, len, sink);
    }
}

__device__ __forceinline__ unsigned long long* lsize(unsigned long long* ctl, long long r) {
    return ctl + CTL_LSIZE + (int)(r % 3);
}

__device__ __forceinline__ void hub_round_starts(const DeltaParams& a, long long g) {
    if (grid_thread<BLOCK, long long>() == 0) a.ctl[CTL_HUBS + (int)((g + 1) % 3)] = 0;
}

// After grid round g's barrier: the lists it left to the hub pass, their edges spread over
// every warp of the grid, then the pass's own barrier. Every thread reads the same count,
// so the grid takes the same branch. The caller makes the pass's sink after the barrier,
// so that the round's own is not kept alive across it (registers are at their cap).
template <ListPart PART, class Sink>
__device__ __forceinline__ void hub_pass(Shared& sh, const int* __restrict__ row, const int* __restrict__ split,
                                         const int* __restrict__ pcol, const DeltaParams& a, long long g,
                                         Sink& sink) {
    const unsigned long long h = read_word(hub_slot(a.ctl, g));
    if (h == 0) return;
    const int count = h < DELTA_HUB_CAP ? (int)h : DELTA_HUB_CAP;
    const PartLists<PART> lists{row, split};
    const int total = spread_scan_of<BLOCK>(lists, a.hubs, count, sh.hub.l.off, sh.hub.l.v, sh.hub.scan);
    if (grid_thread<BLOCK, long long>() == 0) {  // the pass relaxes every edge of its lists
        a.ctl[CTL_HUB_ROUNDS] += 1;
        a.ctl[CTL_HUB_LISTS] += (unsigned long long)count;
        a.ctl[CTL_RELAXATIONS] += (unsigned long long)total;
    }
    spread_edges_of<BLOCK>(lists, pcol, sh.hub.l.off, sh.hub.l.v, count, total, sink);
    GPUBFS_GRID_SYNC();
}

// The leader's take-over and hand-back (small_rounds and async_rounds alike), thread 0:
// the far pile's and the settled list's sizes into shared memory, the leader's alone while
// the grid is parked; then round D (`size` vertices) to its control word and the next
// one's cleared, as the grid's round D - 1 would leave them, and the sizes back.
template <bool HEAVY>
__device__ __forceinline__ void lead_take(Shared& sh, const DeltaParams& a, int f) {
    sh.lead[0] = read_word(a.ctl + CTL_FSIZE + f);
    sh.lead[1] = HEAVY ? read_word(a.ctl + CTL_RSIZE) : 0;
}

template <bool HEAVY>
__device__ __forceinline__ void lead_hand_back(Shared& sh, const DeltaParams& a, int f, int D,
                                               unsigned long long size) {
    *lsize(a.ctl, D) = size;
    *lsize(a.ctl, D + 1) = 0;
    a.ctl[CTL_FSIZE + f] = sh.lead[0];
    if (HEAVY) a.ctl[CTL_RSIZE] = sh.lead[1];
}

// ---- Small-frontier mode: the leader runs light rounds alone ---------------------------
// Entered at light round r whose frontier (queue r, `size` vertices) is at most
// small_frontier; the other CTAs park. The leader keeps each round's vertices with their
// light lists (start, length, offset among the round's lists) in shared memory, and
// relaxes round D's edges from pcol/pw (as the grid's rounds), DELTA_SMALL_BATCH edges a
// thread at once: the batch's loads, then its atomicMins, then its claims are each issued
// together, so a round's chain is two global round trips (the edge and the source's
// distance; the atomicMin, the neighbour's list words prefetched to L1 meanwhile) and a
// block barrier. A lowered vertex is pushed without a stamp claim: two threads lowering
// one vertex in a round both push it, and its list is relaxed twice, the second time
// lowering nothing (the grid's rounds, whose queues can be large, claim).
// Measured, a round still grows with its edges (one SM's throughput), so past a few
// hundred vertices the grid's spread round is the cheaper (docs/performance.md, "Spread
// rounds"). The far pile's and the settled list's sizes are the leader's alone
// while the grid is parked: it counts them in shared memory and writes them back when it
// hands over. Every vertex pushed also goes to the global queue D + 1, so a round handed
// back needs no copy. It runs until a round is empty (the bucket's light rounds are over)
// or has more than small_frontier vertices or small_edges light edges (the entry round
// too: the grid then runs it), and returns that round, whose size it leaves in its
// control word.
template <bool HEAVY>
__device__ int small_rounds(Shared& sh, const int* __restrict__ row, const int* __restrict__ split,
                            const int* __restrict__ pcol, const weight_t* __restrict__ pw, const DeltaParams& a,
                            int r, int size, dist_t hi, long long k, int f, int epoch, unsigned long long& relaxed) {
    constexpr int SB = DELTA_SMALL_BATCH(HEAVY);
    const int tid = threadIdx.x;
    const int bucket_stamp = (int)(k + 1);
    unsigned long long* const far_size = &sh.lead[0];
    unsigned long long* const settled_size = &sh.lead[1];
    if (tid < 3) sh.sq.packed[tid] = 0;
    if (tid == 0) {
        sh.long_list = -1;
        lead_take<HEAVY>(sh, a, f);
    }
    __syncthreads();
    const int* in = (r & 1) ? a.q1 : a.q0;
    for (int i0 = 0; i0 < size; i0 += BLOCK) {  // size <= small_frontier <= SMALL_CAP
        const int i = i0 + tid;
        int v = 0, start = 0, len = 0;
        bool settle = false;
        if (i < size) {
            v = __ldcg(in + i);
            start = row[v];
            len = split[v] - start;
            if (HEAVY) settle = atomicMax(&a.rstamp[v], bucket_stamp) < bucket_stamp;
        }
        if (HEAVY) warp_push(settle, v, settled_size, a.settled);
        if (len > SMALL_CAP) sh.long_list = r;
        sf_append(sh.sq, 0, r, i < size, v, start, len);
    }
    __syncthreads();
    PhaseClock phases;
    phases.start();
    int D = r, b = 0;
    for (;; ++D, b ^= 1) {
        const unsigned long long packed = sh.sq.packed[D % 3];
        const int cnt = sf_entries(packed), edges = sf_edges(packed);
        // A list longer than SMALL_CAP is counted as SMALL_CAP + 1 edges (the count's
        // field stays exact): such a round is the grid's whatever the count says.
        if (cnt == 0 || cnt > a.small_frontier || edges > a.small_edges || sh.long_list == D) break;
        if (tid == 0) sh.sq.packed[(D + 2) % 3] = 0;  // last read at round D - 1, next filled at D + 1
        int* const next = ((D + 1) & 1) ? a.q1 : a.q0;
        int* const far = f ? a.far1 : a.far0;
        const dist_t fkey = key(k);
        for (int e0 = 0; e0 < edges; e0 += BLOCK * SB) {
            int v[SB], start[SB], len[SB];
            dist_t nd[SB];
            bool lowered[SB], near[SB], to_far[SB], settle[SB];
#pragma unroll
            for (int j = 0; j < SB; ++j) {
                const int e = e0 + j * BLOCK + tid;
                v[j] = 0;
                nd[j] = INF;
                if (e < edges) {
                    const int lo = mergepath_vertical(sh.sq.ex[b], cnt, e) - 1;  // the last list starting <= e
                    const int at = sh.sq.start[b][lo] + (e - sh.sq.ex[b][lo]);
                    v[j] = pcol[at];
                    nd[j] = __ldcg(&a.dist[sh.sq.v[b][lo]]) + (dist_t)pw[at];
                    ++relaxed;
                }
            }
            phases.mark(sh, 0, answers(nd) + answers(v));
#pragma unroll
            for (int j = 0; j < SB; ++j) {  // the lists' words come to L1 while the atomics are out
                if (nd[j] != INF) {
                    prefetch_l1(row + v[j]);
                    prefetch_l1(split + v[j]);
                }
                lowered[j] = nd[j] != INF && nd[j] < atomicMin(&a.dist[v[j]], nd[j]);
            }
            phases.mark(sh, 1, answers(lowered));
#pragma unroll
            for (int j = 0; j < SB; ++j) {
                near[j] = to_far[j] = settle[j] = false;
                start[j] = len[j] = 0;
                if (lowered[j] && nd[j] < hi) {
                    start[j] = row[v[j]];
                    len[j] = split[v[j]] - start[j];
                    near[j] = true;  // unclaimed: see above
                    if (HEAVY) settle[j] = atomicMax(&a.rstamp[v[j]], bucket_stamp) < bucket_stamp;
                } else if (lowered[j]) {
                    to_far[j] = atomicMin(&a.fstamp[v[j]], fkey) > fkey;
                }
            }
            phases.mark(sh, 2, answers(near) + answers(to_far) + answers(settle) + answers(start) + answers(len));
#pragma unroll
            for (int j = 0; j < SB; ++j) {
                sf_reserve<SMALL_CAP>(sh.sq.packed, D + 1, near[j], len[j], [&](int pos, int ex) {
                    next[pos] = v[j];
                    if (len[j] > SMALL_CAP) sh.long_list = D + 1;
                    if (pos < SMALL_CAP) {  // always: a round's pushes are at most its vertices' edges
                        sh.sq.v[b ^ 1][pos] = v[j];
                        sh.sq.start[b ^ 1][pos] = start[j];
                        sh.sq.len[b ^ 1][pos] = len[j];
                        sh.sq.ex[b ^ 1][pos] = ex;
                    }
                });
                warp_push(to_far[j], v[j], far_size, far);
                if (HEAVY) warp_push(settle[j], v[j], settled_size, a.settled);
            }
            phases.mark(sh, 3, 0);
        }
        __syncthreads();
        phases.mark(sh, 4, 0);
    }
    // The parked CTAs read round r's size before parking.
    sf_wait_parked(reinterpret_cast<int*>(a.ctl + CTL_SF), epoch);
    if (tid == 0) {
        a.ctl[CTL_SMALL_ROUNDS] += (unsigned long long)(D - r);
        lead_hand_back<HEAVY>(sh, a, f, D, (unsigned long long)sf_entries(sh.sq.packed[D % 3]));
#if DELTA_PROFILE
        for (int i = 0; i < CTL_PROF_PHASES; ++i) {
            a.ctl[CTL_PROF_GATHER + i] += sh.prof[i];
            sh.prof[i] = 0;
        }
#endif
    }
    sf_release(reinterpret_cast<int*>(a.ctl + CTL_SF), epoch, D);
    return D;
}

// ---- The asynchronous leader (DELTA_ASYNC) -------------------------------------------
// The same take-over as small_rounds, with no rounds: every warp of the leader takes up to
// 32 vertices from the shared pool (Pool above), relaxes their light edges 32 at a time and
// puts each vertex it lowers inside the bucket back into the pool, while the other warps do
// the same; no block barrier, no reservation per round. A vertex's edges are relaxed from
// its distance when it is taken (a later lowering pushes it again), so the bucket ends, as
// with rounds, when nothing is lowered inside it: every pushed vertex taken and done. A
// road graph's hop then costs the chain of its own loads and atomicMin, not the slowest
// warp of a round and a barrier. Wider work is the grid's: the leader stops taking once
// the pool holds more than small_frontier vertices, or a warp takes a batch of more than
// small_edges / WARPS light edges (that batch goes back unrelaxed), and hands what is
// left to the grid as round r + 1 (each vertex once: the stamp claim of that round).
// With the pool full, pushes go straight there. It returns r + 1 (a take-over counts as
// one light round); CTL_ASYNC_BATCHES sums the warps' batches.
__device__ __forceinline__ void async_pause() { SF_PAUSE(32); }

// The warp's vertices that want it into the pool (warp-converged); with no room, to the
// hand-back queue `hand` (claimed) and the leader stops.
__device__ __forceinline__ void pool_push(Pool& p, bool want, int v, int small_frontier, int* hand,
                                          dist_t* lstamp, dist_t hkey) {
    const unsigned int m = __ballot_sync(GPUBFS_FULL_MASK, want);
    if (!m) return;
    const unsigned int c = __popc(m);
    unsigned int base = 0;
    int room = 0;
    if (lane_id() == 0) {
        for (;;) {
            const unsigned int t = *(volatile unsigned int*)&p.tail;
            const unsigned int h = *(volatile unsigned int*)&p.head;
            if (t + c - h > (unsigned int)POOL_CAP) break;
            if (atomicCAS(&p.tail, t, t + c) == t) {
                base = t;
                room = 1;
                if (t + c - h > (unsigned int)small_frontier) *(volatile int*)&p.stop = 1;
                break;
            }
        }
        if (!room) *(volatile int*)&p.stop = 1;
    }
    room = __shfl_sync(GPUBFS_FULL_MASK, room, 0);
    base = __shfl_sync(GPUBFS_FULL_MASK, base, 0);
    if (room) {
        if (want) {
            int* const s = &p.slot[(base + lane_rank(m)) & (POOL_CAP - 1)];
            while (atomicCAS(s, -1, v) != -1) async_pause();  // the slot's last lap not taken yet
        }
    } else {
        warp_push(want && claim(lstamp, v, hkey, false), v, &p.hand, hand);
    }
}

template <bool HEAVY>
__device__ __noinline__ int async_rounds(Shared& sh, const int* __restrict__ row, const int* __restrict__ split,
                            const int* __restrict__ pcol, const weight_t* __restrict__ pw, const DeltaParams a,
                            int r, int size, dist_t hi, long long k, int f, int epoch, unsigned long long& relaxed) {
    Pool& p = sh.pool;
    const int tid = threadIdx.x, lane = lane_id();
    const int bucket_stamp = (int)(k + 1);
    const int D = r + 1;  // the grid's round after the hand-back
    int* const hand = (D & 1) ? a.q1 : a.q0;
    int* const far = f ? a.far1 : a.far0;
    const dist_t fkey = key(k), hkey = key(D);
    const int batch_edges = max(32, a.small_edges / WARPS);
    unsigned long long* const far_size = &sh.lead[0];
    unsigned long long* const settled_size = &sh.lead[1];
    if (tid == 0) {
        p.head = p.done = 0;
        p.tail = (unsigned int)size;
        p.stop = 0;
        p.hand = p.batches = 0;
        lead_take<HEAVY>(sh, a, f);
    }
    __syncthreads();
    const int* in = (r & 1) ? a.q1 : a.q0;
    for (int i = tid; i < POOL_CAP; i += BLOCK) {  // size <= small_frontier <= SMALL_CAP < POOL_CAP
        const int v = i < size ? __ldcg(in + i) : -1;
        p.slot[i] = v;
        if (HEAVY) warp_push(v >= 0 && atomicMax(&a.rstamp[v], bucket_stamp) < bucket_stamp, v, settled_size, a.settled);
    }
    __syncthreads();
    unsigned long long batches = 0;
    for (;;) {
        unsigned int h = 0, n = 0;
        if (lane == 0) {
            for (;;) {
                if (*(volatile int*)&p.stop) break;
                const unsigned int hh = *(volatile unsigned int*)&p.head;
                const unsigned int t = *(volatile unsigned int*)&p.tail;
                if (t != hh) {
                    const unsigned int take = t - hh < 32u ? t - hh : 32u;
                    if (atomicCAS(&p.head, hh, hh + take) == hh) {
                        h = hh;
                        n = take;
                        break;
                    }
                    continue;
                }
                // done first, then tail: equal, nothing is being relaxed that could push
                const unsigned int fin = *(volatile unsigned int*)&p.done;
                __threadfence_block();
                if (fin == *(volatile unsigned int*)&p.tail) break;
                async_pause();
            }
        }
        n = __shfl_sync(GPUBFS_FULL_MASK, n, 0);
        h = __shfl_sync(GPUBFS_FULL_MASK, h, 0);
        if (n == 0) break;
        ++batches;
        int u = -1, start = 0, len = 0;
        dist_t du = 0;
        if (lane < (int)n) {
            int* const s = &p.slot[(h + lane) & (POOL_CAP - 1)];
            while ((u = atomicExch(s, -1)) < 0) async_pause();  // reserved, not written yet
            start = row[u];
            len = split[u] - start;
            du = __ldcg(&a.dist[u]);
        }
        int edges;
        const int ex = warp_exclusive_scan(len, &edges);
        if (edges > batch_edges) {  // wide work: the grid's, unrelaxed
            warp_push(u >= 0 && claim(a.lstamp, u, hkey, false), u, &p.hand, hand);
            if (lane == 0) *(volatile int*)&p.stop = 1;
        } else {
            for (int e0 = 0; e0 < edges; e0 += 32) {
                const int e = e0 + lane;
                int o = 0;  // the last lane whose list starts at or before e
#pragma unroll
                for (int step = 16; step > 0; step >>= 1) {
                    const int x = __shfl_sync(GPUBFS_FULL_MASK, ex, o + step);
                    if (x <= e) o += step;
                }
                const int at = __shfl_sync(GPUBFS_FULL_MASK, start, o) + e - __shfl_sync(GPUBFS_FULL_MASK, ex, o);
                const dist_t d = __shfl_sync(GPUBFS_FULL_MASK, du, o);
                int v = 0;
                bool near = false, to_far = false, settle = false;
                if (e < edges) {
                    v = pcol[at];
                    const dist_t nd = d + (dist_t)pw[at];
                    ++relaxed;
                    if (nd < atomicMin(&a.dist[v], nd)) {
                        if (nd < hi) {
                            near = true;
                            if (HEAVY) settle = atomicMax(&a.rstamp[v], bucket_stamp) < bucket_stamp;
                        } else {
                            to_far = atomicMin(&a.fstamp[v], fkey) > fkey;
                        }
                    }
                }
                pool_push(p, near, v, a.small_frontier, hand, a.lstamp, hkey);
                warp_push(to_far, v, far_size, far);
                if (HEAVY) warp_push(settle, v, settled_size, a.settled);
            }
        }
        if (lane == 0) {
            __threadfence_block();  // the batch's pushes before its count
            atomicAdd(&p.done, n);
        }
    }
    if (lane == 0) atomicAdd(&p.batches, batches);
    __syncthreads();
    for (int i = tid; i < POOL_CAP; i += BLOCK) {  // what no warp took: round D's
        const int v = p.slot[i];
        warp_push(v >= 0 && claim(a.lstamp, v, hkey, false), v, &p.hand, hand);
    }
    sf_wait_parked(reinterpret_cast<int*>(a.ctl + CTL_SF), epoch);  // a barrier: p.hand is final
    if (tid == 0) {
        a.ctl[CTL_SMALL_ROUNDS] += 1;
        a.ctl[CTL_ASYNC_BATCHES] += p.batches;
        lead_hand_back<HEAVY>(sh, a, f, D, p.hand);
    }
    sf_release(reinterpret_cast<int*>(a.ctl + CTL_SF), epoch, D);
    return D;
}

#if DELTA_ASYNC
#define DELTA_LEADER async_rounds
#else
#define DELTA_LEADER small_rounds
#endif

}  // namespace dsssp

// Each vertex's edge ids with its light edges (weight <= light_max) first, and where its
// heavy ones start (split). One warp per vertex; prepare time.
extern "C" __global__ void delta_partition(int n, const int* __restrict__ row,
                                           const dsssp::weight_t* __restrict__ w, long long light_max,
                                           int* perm, int* split) {
    const int lane = lane_id();
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long u = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; u < n; u += warps) {
        const long long b = row[u], e = row[u + 1];
        int light = 0;
        for (long long x = b; x < e; x += 32) {
            const long long j = x + lane;
            light += __popc(__ballot_sync(GPUBFS_FULL_MASK, j < e && (long long)w[j] <= light_max));
        }
        long long lp = b, hp = b + light;
        for (long long x = b; x < e; x += 32) {
            const long long j = x + lane;
            const bool valid = j < e;
            const bool l = valid && (long long)w[j] <= light_max;
            const unsigned int ml = __ballot_sync(GPUBFS_FULL_MASK, l);
            const unsigned int mh = __ballot_sync(GPUBFS_FULL_MASK, valid && !l);
            if (l) perm[lp + lane_rank(ml)] = (int)j;
            else if (valid) perm[hp + lane_rank(mh)] = (int)j;
            lp += __popc(ml);
            hp += __popc(mh);
        }
        if (lane == 0) split[u] = (int)(b + light);
    }
}

// One traversal from `source`. HEAVY: delta-stepping (light rounds, then a heavy round
// per bucket); false: near-far. PRED: the parents pass after the distances. split comes
// from delta_partition, pcol and pw are the neighbours and weights in its perm's order
// (each vertex's light edges first).
#define DELTA_PARAMS                                                                              \
    const int *__restrict__ row, const int *__restrict__ split, const int *__restrict__ pcol,      \
        const dsssp::weight_t *__restrict__ pw, const DeltaParams args, int source

template <bool HEAVY, bool PRED>
__global__ void __launch_bounds__(DELTA_BLOCK, DELTA_MIN_BLOCKS) delta_sssp(DELTA_PARAMS) {
    using namespace dsssp;
    const int n = args.n;
    unsigned long long* const dist = args.dist;
    unsigned long long* const lstamp = args.lstamp;
    unsigned long long* const fstamp = args.fstamp;
    int* const rstamp = args.rstamp;
    int* const q0 = args.q0;
    int* const q1 = args.q1;
    int* const settled = args.settled;
    int* const far0 = args.far0;
    int* const far1 = args.far1;
    unsigned long long* const ctl = args.ctl;
    GPUBFS_SHARED(Shared, sh);
    const dist_t delta = (dist_t)args.delta;
    const long long gtid = grid_thread<BLOCK, long long>();
    auto gstride = [] { return grid_threads<BLOCK, long long>(); };  // read again where used: registers are at their cap
    auto queue = [q0, q1](long long i) { return (i & 1) ? q1 : q0; };
    auto far = [far0, far1](int i) { return i ? far1 : far0; };

    for (long long v = gtid; v < n; v += gstride()) {
        const bool s = v == source;
        dist[v] = s ? 0 : INF;
        lstamp[v] = s ? key(0) : INF;
        fstamp[v] = INF;
        if (HEAVY) rstamp[v] = 0;
        if (PRED) {
            args.parent[v] = s ? source : -1;
            args.anchor[v] = s ? 0 : DELTA_UNANCHORED;
        }
    }
    if (gtid == 0) {
        for (int k = 0; k < CTL_WORDS; ++k) ctl[k] = 0;
        ctl[CTL_LSIZE] = 1;
        ctl[CTL_MIN] = INF;
        q0[0] = source;
    }
    GPUBFS_GRID_SYNC();

    dist_t hi = delta;  // the bucket [hi - delta, hi): bucket 0 first (its start not held: registers)
    long long r = 0;            // light rounds so far: round r reads queue(r)
    long long k = 0;            // buckets so far (the far piles' and settled stamps)
    long long grid_rounds = 0;  // light and heavy rounds the grid ran (their hub queues rotate by it)
    int f = 0;                  // the far pile in use
    unsigned long long relaxed = 0;
    const int lane = lane_id();
    int epoch = 0;  // small-frontier entries (every CTA counts the same)
    // Where the time goes, on thread 0's clock (gtid 0 alone reads it, a few times a
    // round, and sums in shared memory: registers are at their cap).
    if (gtid == 0) {
        sh.clock[0] = GPUBFS_NOW();
        sh.clock[1] = sh.clock[2] = sh.clock[3] = 0;
#if DELTA_PROFILE
        for (int i = 0; i < CTL_PROF_PHASES; ++i) sh.prof[i] = 0;
#endif
    }
    for (;;) {
        bool handed = false;  // the leader just handed round r back: the grid runs it
        for (;;) {  // light rounds until the bucket stops changing
            const long long size = (long long)read_word(lsize(ctl, r));
            if (size == 0) break;
            if (gtid == 0) sh.clock[4] = GPUBFS_NOW();
            if (size <= args.small_frontier && !handed) {  // every CTA read the same word
                ++epoch;
                r = blockIdx.x == 0
                        ? DELTA_LEADER<HEAVY>(sh, row, split, pcol, pw, args, (int)r, (int)size, hi, k, f, epoch, relaxed)
                        : sf_park(reinterpret_cast<int*>(ctl + CTL_SF), epoch, &sh.bcast);
                handed = true;
                if (gtid == 0) sh.clock[1] += GPUBFS_NOW() - sh.clock[4];
                continue;
            }
            // Round r appends to slot r + 1; slot r + 2 was last read in round r - 1.
            if (gtid == 0) *lsize(ctl, r + 2) = 0;
            const Settle settle{rstamp, (int)(k + 1), ctl + CTL_RSIZE, settled};
            hub_round_starts(args, grid_rounds);
            auto relax = [&](auto look) {  // a round below direct_below skips the looks
                RelaxSink<decltype(look)::value> sink{pw, dist, lstamp, fstamp, hi, key(r + 1), key(k), queue(r + 1),
                                                      lsize(ctl, r + 1), far(f), ctl + CTL_FSIZE + f, 0};
                gather_items<LIGHT>(sh, row, split, dist, pcol, queue(r), size, sink, HEAVY ? &settle : nullptr,
                                    args.hub_edges, args.hubs, ctl, grid_rounds);
                return sink.relaxed;
            };
            if constexpr (HEAVY) relaxed += relax(Look<true>{});  // its registers have no room for both
            else relaxed += size < args.direct_below ? relax(Look<false>{}) : relax(Look<true>{});
            GPUBFS_GRID_SYNC();
            if (args.hub_edges) {
                RelaxSink<> spread{pw, dist, lstamp, fstamp, hi, key(r + 1), key(k), queue(r + 1),
                                   lsize(ctl, r + 1), far(f), ctl + CTL_FSIZE + f, 0};
                hub_pass<LIGHT>(sh, row, split, pcol, args, grid_rounds, spread);
            }
            ++grid_rounds;
            ++r;
            handed = false;
            if (gtid == 0) sh.clock[2] += GPUBFS_NOW() - sh.clock[4];
        }
        if (HEAVY) {  // the heavy edges of every vertex the bucket settled, once
            const long long size = (long long)read_word(ctl + CTL_RSIZE);
            RelaxSink<> sink{pw, dist, lstamp, fstamp, hi, key(r), key(k), queue(r),
                             lsize(ctl, r), far(f), ctl + CTL_FSIZE + f, 0};
            hub_round_starts(args, grid_rounds);
            gather_items<HEAVY_EDGES>(sh, row, split, dist, pcol, settled, size, sink, nullptr,
                                      args.hub_edges, args.hubs, ctl, grid_rounds);
            relaxed += sink.relaxed;
            if (gtid == 0 && size > 0) ++ctl[CTL_HEAVY_ROUNDS];  // counted in place: registers are at their cap
            GPUBFS_GRID_SYNC();
            if (gtid == 0) ctl[CTL_RSIZE] = 0;  // next appended after the compaction's barrier
            if (args.hub_edges) {
                RelaxSink<> spread{pw, dist, lstamp, fstamp, hi, key(r), key(k), queue(r),
                                   lsize(ctl, r), far(f), ctl + CTL_FSIZE + f, 0};
                hub_pass<HEAVY_EDGES>(sh, row, split, pcol, args, grid_rounds, spread);
            }
            ++grid_rounds;
        }
        const long long fsize = (long long)read_word(ctl + CTL_FSIZE + f);
        if (fsize == 0) break;
        if (gtid == 0) sh.clock[3] += (unsigned long long)fsize;
        {  // the smallest live distance of the far pile (entries below hi are settled)
            dist_t mn = INF;
            for (long long i = gtid; i < fsize; i += gstride()) {
                const dist_t d = __ldcg(&dist[far(f)[i]]);
                if (d >= hi && d < mn) mn = d;
            }
            mn = warp_min_u64(mn);
            if (lane == 0 && mn != INF) atomicMin(ctl + CTL_MIN, mn);
        }
        GPUBFS_GRID_SYNC();
        const dist_t mn = read_word(ctl + CTL_MIN);
        if (mn == INF) break;
        hi = mn / delta * delta + delta;  // skips the empty buckets between
        ++k;
        {  // the new bucket's vertices to round r's frontier, the rest to the other pile
            int* const from = far(f);
            int* const keep = far(f ^ 1);
            const dist_t fk = key(k), lk = key(r);
            for (long long b = gtid - lane; b < fsize; b += gstride()) {  // warp-uniform
                const long long i = b + lane;
                int v = 0;
                bool near = false, stay = false;
                if (i < fsize) {
                    v = from[i];
                    const dist_t d = __ldcg(&dist[v]);
                    if (d >= hi) {
                        stay = true;
                        fstamp[v] = fk;  // still in a pile: later pushes skip it
                    } else if (d >= hi - delta) {
                        near = claim(lstamp, v, lk);
                    }
                }
                warp_push(near, v, lsize(ctl, r), queue(r));
                warp_push(stay, v, ctl + CTL_FSIZE + (f ^ 1), keep);
            }
        }
        GPUBFS_GRID_SYNC();
        if (gtid == 0) {  // both read before that barrier, next written after another
            ctl[CTL_FSIZE + f] = 0;
            ctl[CTL_MIN] = INF;
        }
        f ^= 1;
    }
    relaxed = warp_sum_t(relaxed);
    if (lane == 0 && relaxed) atomicAdd(ctl + CTL_RELAXATIONS, relaxed);
    if (gtid == 0) {
        ctl[CTL_NS_SEARCH] = GPUBFS_NOW() - sh.clock[0];
        ctl[CTL_NS_SMALL] = sh.clock[1];
        ctl[CTL_NS_GRID] = sh.clock[2];
        ctl[CTL_FAR_SCANNED] = sh.clock[3];
        ctl[CTL_SMALL_ENTRIES] = (unsigned long long)epoch;
        ctl[CTL_BUCKETS] = (unsigned long long)(k + 1);
        ctl[CTL_LIGHT_ROUNDS] = (unsigned long long)r;
    }
    if (!PRED) return;

    // ---- parents: (distance, round anchored) falls strictly along every parent link,
    // so the links form a tree rooted at the source. The psize slots rotate as above.
    unsigned long long* const psize = ctl + CTL_PSIZE;
    if (gtid == 0) {
        psize[0] = 1;
        q0[0] = source;
    }
    GPUBFS_GRID_SYNC();  // the distances final everywhere, the source queued
    {
        ParentSink<false> sink{pw, dist, args.parent, args.anchor, 0, q0, psize};
        gather_items<REACHED>(sh, row, split, dist, pcol, nullptr, n, sink);
    }
    GPUBFS_GRID_SYNC();
    int p = 1;
    for (;; ++p) {  // round p: zero-weight tight edges out of round p - 1's vertices
        const long long size = (long long)read_word(psize + (p - 1) % 3);
        if (size == 0) break;
        if (gtid == 0) psize[(p + 1) % 3] = 0;
        ParentSink<true> sink{pw, dist, args.parent, args.anchor, p, queue(p), psize + p % 3};
        // zero weighs at most delta: a light edge
        gather_items<LIGHT>(sh, row, split, dist, pcol, queue(p - 1), size, sink);
        GPUBFS_GRID_SYNC();
    }
    if (gtid == 0) ctl[CTL_PARENT_ROUNDS] = (unsigned long long)p;
}

// Every instantiation, so that a plain nvcc compile checks them all.
#define DELTA_INSTANTIATE(H, P) template __global__ void delta_sssp<H, P>(DELTA_PARAMS);
DELTA_INSTANTIATE(true, false)
DELTA_INSTANTIATE(true, true)
DELTA_INSTANTIATE(false, false)
DELTA_INSTANTIATE(false, true)
