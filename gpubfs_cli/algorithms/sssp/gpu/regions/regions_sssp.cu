// Region-local asynchronous SSSP in one persistent cooperative kernel per traversal.
//
// regions.bfs's scheme with weights (algorithms/bfs/gpu/regions/regions.cu): the
// launcher numbers the vertices region by region (graph/regions.py), a CTA takes a
// queued region (region_queue.cuh), copies its labels, and where they fit its edges and
// weights, into shared memory and relaxes there from the region's marked vertices; an
// edge that leaves the region lowers its head's global label (atomicMin), marks it and
// queues its region. No grid barrier joins the regions.
//
// Inside a run, near-far (Davidson et al., IPDPS'14) over a threshold: a step expands
// the queued vertices whose label is below it and carries the others to the next step;
// when the next step's least label reaches the threshold, it moves to that label +
// delta. A vertex is queued at most once a step (a bit a vertex for the next queue), so a
// queue never holds more than the region. A run ends when no vertex is queued; labels
// only fall, so a region run twice, or by two CTAs at once, repeats work and never loses
// it. The search ends when no region is queued or running.
//
// Then a pass writes distances in the input's numbering, and with parents (PRED) rounds
// of the whole grid: round 0 gives each vertex a parent through a tight in-edge of
// positive weight (strictly closer), round p >= 1 through a tight zero-weight in-edge
// from a vertex anchored in an earlier round, until a round anchors none; every parent
// link then falls in (distance, round), so the tree has no cycle.
#include "regions_sssp.cuh"

namespace rgsssp {

typedef unsigned long long dist_t;
constexpr int BLOCK = RS_BLOCK;
constexpr int CAP = RS_REGION_CAP;
constexpr int ECAP = RS_EDGE_CAP;
constexpr int OBOX = RS_OUTBOX;
constexpr int LANES = RS_LANES;
constexpr int WORDS = CAP / 32;
static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "CTAs of 32 to 1024 threads");
static_assert(LANES >= 1 && BLOCK % LANES == 0, "a CTA's threads in whole lane groups");
static_assert(CAP % 32 == 0 && CAP < (int)RS_OUTSIDE, "regions of whole bitmap words, local ids in 16 bits");
static_assert(ECAP < 65536, "a copied region's edge offsets in 16 bits");

struct Shared {
    dist_t lab[CAP];                  // the region's labels while a CTA runs it
    dist_t out_d[OBOX];               // the outbox: labels to give ...
    int out_v[OBOX];                  // ... to heads in other regions
    int lw[ECAP];                     // a copied region's edge weights ...
    unsigned short ledge[ECAP];       // ... and heads, local (RS_OUTSIDE: elsewhere)
    unsigned short lrow[CAP + 1];     // ... and offsets, from its first edge
    unsigned short q[2][CAP];         // the queues, by step parity
    unsigned int inq[2][WORDS];       // a bit a vertex in each queue
    dist_t nmin[3];                   // the least label put in each queue, by step mod 3
    int count[3];                     // their entries, by step mod 3 (one barrier a step)
    int out_count;
    int region;                       // the region thread 0 took, or -1: the search is over
    int waiting[3];                   // absorbing: thread 0 saw marks come, by step mod 3
    int resume;                       // absorbing: marks came before the run could end
};

// The kernel's global state: the queue of regions, and the graph and labels.
struct State : rq::RegionQueue {
    const int* __restrict__ row;   // the CSR in region order (out-edges) ...
    const int* __restrict__ col;
    const int* __restrict__ w;     // ... and its weights
    const int* __restrict__ roff;  // region r is vertices roff[r] .. roff[r + 1] - 1
    dist_t* label;                 // distances in region order (RS_UNREACHED: none yet)
};

__device__ __forceinline__ dist_t sat_add(dist_t a, dist_t b) { return a > RS_UNREACHED - b ? RS_UNREACHED : a + b; }

// Local vertex i into queue `par` (count slot c) at label d, once a step.
__device__ __forceinline__ void enqueue(Shared& sh, int par, int c, int i, dist_t d) {
    atomicMin(&sh.nmin[c], d);
    if (atomicOr(&sh.inq[par][i >> 5], 1u << (i & 31)) & (1u << (i & 31))) return;
    sh.q[par][atomicAdd(&sh.count[c], 1)] = (unsigned short)i;
}

// Head v (global id; lv = v - base) of an edge out of a local vertex, at label nd: a
// local head is lowered in shared memory (and globally, for the output and other runs)
// and queued, another region's goes to the outbox.
__device__ __forceinline__ void relax(const State& s, Shared& sh, int base, int size, int v, dist_t nd, int par,
                                      int c, bool& sent) {
    const unsigned int lv = (unsigned int)(v - base);
    if (lv < (unsigned int)size) {
        if (nd < sh.lab[lv] && nd < atomicMin(&sh.lab[lv], nd)) {
            atomicMin(&s.label[v], nd);
            enqueue(sh, par, c, (int)lv, nd);
        }
        return;
    }
    if (rq::post(s, s.label, sh.out_v, sh.out_d, &sh.out_count, OBOX, v, nd)) sent = true;
}

// Local vertex u's out-edges at label du, this thread's lane of RS_LANES taking every
// RS_LANES-th: from the shared copy (e0: the region's first edge), or the global CSR.
__device__ __forceinline__ void relax_out(const State& s, Shared& sh, int base, int size, bool copied, int e0,
                                          int u, dist_t du, int par, int c, bool& sent) {
    const int lane = threadIdx.x % LANES;
    if (copied) {
        for (int e = sh.lrow[u] + lane; e < sh.lrow[u + 1]; e += LANES) {
            const unsigned int lv = sh.ledge[e];
            const int v = lv != RS_OUTSIDE ? base + (int)lv : __ldg(&s.col[e0 + e]);
            relax(s, sh, base, size, v, sat_add(du, (dist_t)sh.lw[e]), par, c, sent);
        }
        return;
    }
    const int e1 = __ldg(&s.row[base + u + 1]);
    for (int e = __ldg(&s.row[base + u]) + lane; e < e1; e += LANES) {
        relax(s, sh, base, size, __ldg(&s.col[e]), sat_add(du, (dist_t)__ldg(&s.w[e])), par, c, sent);
    }
}

// One run of region r by the whole CTA: its labels (and edges) into shared memory, its
// marks taken as the first queue, then steps until no vertex is queued. Absorbing
// (region_queue.cuh), the marks that come during the run join the next step's queue, and
// those that come as it would end start its queue again.
__device__ void run_region(const State& s, Shared& sh, int r, int flush_steps, dist_t delta) {
    const int tid = threadIdx.x;
    const rq::Span sp = rq::span_of(s.roff, s.row, r);
    const int base = sp.base, size = sp.size, e0 = sp.e0;
    const bool copied = sp.edges <= ECAP;
    for (int i = tid; i < size; i += BLOCK) sh.lab[i] = __ldcg(&s.label[base + i]);
    if (copied) {
        rq::copy_edges<BLOCK>(s.row, s.col, sp, sh.lrow, sh.ledge, (unsigned short)RS_OUTSIDE);
        for (int e = tid; e < sp.edges; e += BLOCK) sh.lw[e] = __ldg(&s.w[e0 + e]);
    }
    for (int k = tid; k < 2 * WORDS; k += BLOCK) sh.inq[k / WORDS][k % WORDS] = 0;
    if (tid < 3) {
        sh.count[tid] = 0;
        sh.nmin[tid] = RS_UNREACHED;
    }
    if (tid == 0) sh.out_count = 0;
    __syncthreads();
    // the marks into queue `par` (count slot c), by every thread; the caller's barrier follows
    const auto take = [&](int par, int c) {
        rq::take_marks<BLOCK>(s, s.label, sp, [&](int i, dist_t d) {
            atomicMin(&sh.lab[i], d);
            enqueue(sh, par, c, i, d);
        });
    };
    take(0, 0);
    __syncthreads();
    dist_t thr = sat_add(sh.nmin[0], delta);  // expanded below this; every thread the same
    int steps = 0;
    bool sent = false;  // this thread put an edge in the outbox since the last flush
    for (int k = 0;; ++k) {
        const int c = k % 3, nc = (k + 1) % 3, par = k & 1;
        if (sh.count[c] == 0) {  // the run's end, unless (absorbing) marks came: they are this step's queue
            if (!rq::resume_run(s, r, sh.resume, [] {}, [&] { take(par, c); }, [&] { return sh.count[c] != 0; }))
                break;
            if (sh.nmin[c] >= thr) thr = sat_add(sh.nmin[c], delta);
        }
        const int cnt = sh.count[c];
        ++steps;
        const bool waiting = tid == 0 && rq::marks_waiting(s, r);  // read early: the step hides it
        if (tid == 0) {  // step k - 1's: every thread read them before the last barrier
            sh.count[(k + 2) % 3] = 0;
            sh.nmin[(k + 2) % 3] = RS_UNREACHED;
        }
        // this queue's bits: no thread sets them before the next step (only par ^ 1's)
        for (int j = tid; j < WORDS; j += BLOCK) sh.inq[par][j] = 0;
        for (int j = tid / LANES; j < cnt; j += BLOCK / LANES) {
            const int u = sh.q[par][j];
            const dist_t du = sh.lab[u];  // a lane group may read two values: both relax soundly
            if (du < thr) relax_out(s, sh, base, size, copied, e0, u, du, par ^ 1, nc, sent);
            else if (tid % LANES == 0) enqueue(sh, par ^ 1, nc, u, du);
        }
        if (tid == 0) sh.waiting[c] = waiting;
        // The decision reads only what no thread changes before every thread has read
        // it: the barrier's own answer, the next queue's count and least label.
        const bool outgoing = __syncthreads_or(sent);
        rq::absorb_step(s, r, sh.waiting[c], [&] { take(par ^ 1, nc); });  // into the next queue
        const dist_t next_min = sh.nmin[nc];
        if (next_min >= thr) thr = sat_add(next_min, delta);
        rq::flush_step<BLOCK>(s, s.label, sh.out_v, sh.out_d, &sh.out_count, OBOX, outgoing, sh.count[nc] == 0, k,
                              flush_steps, sent);
    }
    if (tid == 0) rq::count_run(s, steps, copied);
}

// Round p's parent of vertex i (region order) at distance d, among its in-edges: round 0
// a tight one of positive weight, round p >= 1 a tight zero-weight one from a vertex
// anchored in an earlier round. The parent's id in the input, or -1.
__device__ __forceinline__ int parent_in(const int* __restrict__ in_row, const int* __restrict__ in_col,
                                         const int* __restrict__ in_w, const dist_t* label, const int* anchor,
                                         int i, dist_t d, int p) {
    for (int e = __ldg(&in_row[i]); e < __ldg(&in_row[i + 1]); ++e) {
        const int wt = __ldg(&in_w[e]);
        const int u = __ldg(&in_col[e]);
        if (p == 0 ? wt > 0 && (dist_t)wt <= d && __ldcg(&label[u]) == d - (dist_t)wt
                   : wt == 0 && __ldcg(&label[u]) == d && (unsigned int)__ldcg(&anchor[u]) < (unsigned int)p)
            return u;
    }
    return -1;
}

}  // namespace rgsssp

// One traversal from `src` (region order). perm[i]: vertex i's id in the input, -1 for
// the padding that starts each region on a bitmap word. anchor (PRED): each vertex's
// parent round, -1 until it has one. absorb: a run takes the marks that come while it
// runs (region_queue.cuh).
template <bool PRED>
__global__ void __launch_bounds__(RS_BLOCK, RS_MIN_BLOCKS)
    regions_sssp(const int* __restrict__ row, const int* __restrict__ col, const int* __restrict__ w,
                 const int* __restrict__ in_row, const int* __restrict__ in_col, const int* __restrict__ in_w,
                 const int* __restrict__ roff, const int* __restrict__ vreg, const int* __restrict__ perm,
                 unsigned long long* label, unsigned int* dirty, int* active, int* ring, unsigned int* ctl,
                 int* anchor, long long* dist, int* parent, int n_new, int regions, int ring_mask, int flush_steps,
                 long long delta, int absorb, int src) {
    using namespace rgsssp;
    GPUBFS_SHARED(Shared, sh);
    const State s{{vreg, dirty, active, ring, ctl, ring_mask, absorb}, row, col, w, roff, label};
    const int gtid = grid_thread<BLOCK>(), gstride = grid_threads<BLOCK>();
    for (int i = gtid; i < n_new; i += gstride) label[i] = i == src ? 0ull : RS_UNREACHED;
    rq::start_search(s, n_new, regions, src, gtid, gstride);
    if (gtid == 0)
        for (int k = RQ_CTL_WORDS; k < RS_CTL_WORDS; ++k) ctl[k] = 0;
    GPUBFS_GRID_SYNC();

    rq::run_regions(s, sh.region, [&](int r) { run_region(s, sh, r, flush_steps, (dist_t)delta); });

    GPUBFS_GRID_SYNC();
    for (int i = gtid; i < n_new; i += gstride) {
        const int old = perm[i];
        if (old < 0) continue;
        const dist_t d = __ldcg(&label[i]);
        dist[old] = d == RS_UNREACHED ? -1ll : (long long)d;
        if (PRED) {
            const int u = d == RS_UNREACHED ? -1 : i == src ? i : parent_in(in_row, in_col, in_w, label, anchor, i, d, 0);
            anchor[i] = u < 0 ? -1 : 0;
            parent[old] = u < 0 ? -1 : perm[u];
        }
    }
    if (!PRED) return;
    if (gtid == 0) ctl[RS_PARENT_ROUNDS] = 1;
    for (int p = 1;; ++p) {  // round p: zero-weight tight edges out of earlier rounds' vertices
        GPUBFS_GRID_SYNC();
        if (gtid == 0) ctl[RS_ZERO + (p + 1) % 3] = 0;  // round p - 2's, read before the last barrier
        for (int i = gtid; i < n_new; i += gstride) {
            const int old = perm[i];
            if (old < 0 || __ldcg(&anchor[i]) >= 0) continue;
            const dist_t d = __ldcg(&label[i]);
            if (d == RS_UNREACHED) continue;
            const int u = parent_in(in_row, in_col, in_w, label, anchor, i, d, p);
            if (u >= 0) {
                anchor[i] = p;
                parent[old] = perm[u];
                atomicExch(&ctl[RS_ZERO + p % 3], 1u);
            }
        }
        GPUBFS_GRID_SYNC();
        if (__ldcg(&ctl[RS_ZERO + p % 3]) == 0) break;
        if (gtid == 0) ctl[RS_PARENT_ROUNDS] = (unsigned int)p + 1;
    }
}

// Every instantiation, so that a plain nvcc compile checks them all.
template __global__ void regions_sssp<false>(const int*, const int*, const int*, const int*, const int*, const int*,
                                             const int*, const int*, const int*, unsigned long long*, unsigned int*,
                                             int*, int*, unsigned int*, int*, long long*, int*, int, int, int, int,
                                             long long, int, int);
template __global__ void regions_sssp<true>(const int*, const int*, const int*, const int*, const int*, const int*,
                                            const int*, const int*, const int*, unsigned long long*, unsigned int*,
                                            int*, int*, unsigned int*, int*, long long*, int*, int, int, int, int,
                                            long long, int, int);
