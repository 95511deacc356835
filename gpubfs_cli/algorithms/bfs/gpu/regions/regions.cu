// Region-local asynchronous BFS in one persistent cooperative kernel per traversal.
//
// The launcher numbers the vertices region by region (strategies.py, partition.py):
// a region is at most RG_REGION_CAP vertices grown around one seed, so on a road
// network or a mesh most of a vertex's edges stay inside its region. A CTA takes a
// region from a ring of tickets, copies its labels into shared memory and runs BFS
// levels there, one block barrier a level, from the region's marked vertices; an edge
// that leaves the region lowers the global label of its head with an atomicMin, marks
// that vertex and queues its region (once: the region's active flag). No barrier
// joins the CTAs between regions: a search of thousands of levels pays a grid-wide
// hand-over only where its paths cross from one region to the next.
//
// Labels only fall (atomicMin), so a region run more than once, or by two CTAs at
// once, only repeats work: every label lowered is either relaxed further by the run
// that lowered it (inside the region: the local levels; across: the mark) or marked
// for the next run of its region. The search ends when no region is queued or running
// (ctl[RQ_PENDING] = 0). Then a pass writes the answer in the input's numbering:
// distances, and parents as an in-neighbour one level up.
//
// The queue of regions, its marks and flags, and their memory order: region_queue.cuh.
#include "regions.cuh"

namespace rgbfs {

constexpr int BLOCK = RG_BLOCK;
constexpr int CAP = RG_REGION_CAP;
constexpr int QCAP = RG_QUEUE;
static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "CTAs of 32 to 1024 threads");
constexpr int ECAP = RG_EDGE_CAP;
constexpr int OBOX = RG_OUTBOX;
constexpr int LANES = RG_LANES;
static_assert(LANES >= 1 && BLOCK % LANES == 0, "a CTA's threads in whole lane groups");
static_assert(CAP % 32 == 0 && CAP < (int)RG_OUTSIDE, "regions of whole bitmap words, local ids in 16 bits");
static_assert(ECAP < 65536, "a copied region's edge offsets in 16 bits");

struct Shared {
    unsigned int lab[CAP];            // the region's labels while a CTA runs it
    unsigned short q[2][QCAP];        // the local frontiers, by step parity
    unsigned short lrow[CAP + 1];     // a copied region's edge offsets, from its first edge
    unsigned short ledge[ECAP];       // ... and its edges' heads, local (RG_OUTSIDE: elsewhere)
    int out_v[OBOX];                  // the outbox: heads in other regions ...
    unsigned int out_d[OBOX];         // ... and the labels to give them
    int out_count;
    int count[3];                     // their entries, by step mod 3 (one barrier a step)
    unsigned int low;                 // the least label of a take of marks (a run's first frontier, a resumed one)
    int region;                       // the region thread 0 took, or -1: the search is over
    int waiting[3];                   // absorbing: thread 0 saw marks come, by step mod 3
    int resume;                       // absorbing: marks came before the run could end
    int top;                          // the output pass: the CTA's largest label + 1
};

// The kernel's global state: the queue of regions, and the graph and labels.
struct State : rq::RegionQueue {
    const int* __restrict__ row;   // the CSR in region order (out-edges)
    const int* __restrict__ col;
    const int* __restrict__ roff;  // region r is vertices roff[r] .. roff[r + 1] - 1
    unsigned int* label;           // distances in region order (RG_UNREACHED: none yet)
};

// Local vertex i into the frontier of parity `par` (count slot c); a full queue hands
// it back to its region's next run (its global label is lowered already).
__device__ __forceinline__ void enqueue(const State& s, Shared& sh, int base, int par, int c, int i) {
    const int at = atomicAdd(&sh.count[c], 1);
    if (at < QCAP) {
        sh.q[par][at] = (unsigned short)i;
    } else {
        atomicAdd(&s.ctl[RQ_DEFERRED], 1u);
        rq::mark(s, base + i);
    }
}

// Head v (global id; lv = v - base) of an edge out of a local vertex, at label nd: a
// local head is lowered in shared memory, another region's goes to the outbox.
__device__ __forceinline__ void relax(const State& s, Shared& sh, int base, int size, int v, unsigned int nd,
                                      int par, int c, bool& sent) {
    const unsigned int lv = (unsigned int)(v - base);
    if (lv < (unsigned int)size) {
        if (nd < sh.lab[lv] && nd < atomicMin(&sh.lab[lv], nd)) {
            atomicMin(&s.label[v], nd);  // its global label, for the output and other runs
            enqueue(s, sh, base, par, c, (int)lv);
        }
        return;
    }
    if (rq::post(s, s.label, sh.out_v, sh.out_d, &sh.out_count, OBOX, v, nd)) sent = true;
}

// Local vertex u's out-edges at label nd, this thread's lane of RG_LANES taking every
// RG_LANES-th: from the shared copy (e0: the region's first edge), or the global CSR.
__device__ __forceinline__ void relax_out(const State& s, Shared& sh, int base, int size, bool copied, int e0,
                                          int u, unsigned int nd, int par, int c, bool& sent) {
    const int lane = threadIdx.x % LANES;
    if (copied) {
        for (int e = sh.lrow[u] + lane; e < sh.lrow[u + 1]; e += LANES) {
            const unsigned int lv = sh.ledge[e];
            relax(s, sh, base, size, lv != RG_OUTSIDE ? base + (int)lv : __ldg(&s.col[e0 + e]), nd, par, c, sent);
        }
        return;
    }
    const int e1 = __ldg(&s.row[base + u + 1]);
    for (int e = __ldg(&s.row[base + u]) + lane; e < e1; e += LANES) {
        relax(s, sh, base, size, __ldg(&s.col[e]), nd, par, c, sent);
    }
}

// One run of region r by the whole CTA: its labels into shared memory, its marks taken
// as the first frontier, then levels until no local vertex is lowered. A frontier
// vertex above the step's level waits in the queue for its level (the marks come at
// several levels), so no vertex is expanded twice from one take of marks; a step's level
// is the last one's + 1 (a level with only waiting vertices is a step that carries them).
// Absorbing (region_queue.cuh), the marks that come during the run join the next
// frontier, and those that come as it would end start it again at their least label.
__device__ void run_region(const State& s, Shared& sh, int r, int flush_steps) {
    const int tid = threadIdx.x;
    const rq::Span sp = rq::span_of(s.roff, s.row, r);
    const int base = sp.base, size = sp.size, e0 = sp.e0;
    const bool copied = sp.edges <= ECAP;
    for (int i = tid; i < size; i += BLOCK) sh.lab[i] = __ldcg(&s.label[base + i]);
    if (copied) rq::copy_edges<BLOCK>(s.row, s.col, sp, sh.lrow, sh.ledge, (unsigned short)RG_OUTSIDE);
    if (tid < 3) sh.count[tid] = 0;
    if (tid == 0) sh.low = RG_UNREACHED;
    if (tid == 0) sh.out_count = 0;
    __syncthreads();
    // the marks into frontier `par` (count slot c), their least label into sh.low, by
    // every thread; the caller's barrier follows
    const auto take = [&](int par, int c) {
        rq::take_marks<BLOCK>(s, s.label, sp, [&](int i, unsigned int d) {
            atomicMin(&sh.lab[i], d);
            atomicMin(&sh.low, d);
            enqueue(s, sh, base, par, c, i);
        });
    };
    take(0, 0);
    __syncthreads();
    unsigned int level = sh.low;
    int steps = 0;
    bool sent = false;  // this thread put an edge in the outbox since the last flush
    for (int k = 0;; ++k) {
        const int c = k % 3, nc = (k + 1) % 3, par = k & 1;
        if (sh.count[c] == 0) {  // the run's end, unless (absorbing) marks came: this step's frontier
            if (!rq::resume_run(s, r, sh.resume, [&] { sh.low = RG_UNREACHED; }, [&] { take(par, c); },
                                [&] { return sh.count[c] != 0; }))
                break;
            level = sh.low;
        }
        const int cnt = min(sh.count[c], QCAP);
        ++steps;
        const bool waiting = tid == 0 && rq::marks_waiting(s, r);  // read early: the step hides it
        if (tid == 0) sh.count[(k + 2) % 3] = 0;  // step k - 1's: every thread read it before the last barrier
        for (int j = tid / LANES; j < cnt; j += BLOCK / LANES) {
            const int u = sh.q[par][j];
            const unsigned int du = sh.lab[u];  // a lane group agrees: a lowered label is level + 1
            if (du <= level) relax_out(s, sh, base, size, copied, e0, u, du + 1, par ^ 1, nc, sent);
            else if (tid % LANES == 0) enqueue(s, sh, base, par ^ 1, nc, u);
        }
        if (tid == 0) sh.waiting[c] = waiting;
        // The decision reads only what no thread changes before every thread has read
        // it: the barrier's own answer and the next frontier's count.
        const bool outgoing = __syncthreads_or(sent);
        rq::absorb_step(s, r, sh.waiting[c], [&] { take(par ^ 1, nc); });  // into the next frontier
        ++level;
        rq::flush_step<BLOCK>(s, s.label, sh.out_v, sh.out_d, &sh.out_count, OBOX, outgoing, sh.count[nc] == 0, k,
                              flush_steps, sent);
    }
    if (tid == 0) rq::count_run(s, steps, copied);
}

// Vertex i's parent (region order in, the input's ids out): an in-neighbour one level
// up; the source is its own parent.
__device__ __forceinline__ int parent_of(const int* __restrict__ in_row, const int* __restrict__ in_col,
                                         const int* __restrict__ perm, const unsigned int* label, int i,
                                         unsigned int d) {
    if (d == RG_UNREACHED) return -1;
    if (d == 0) return perm[i];
    for (int e = __ldg(&in_row[i]); e < __ldg(&in_row[i + 1]); ++e) {
        const int u = __ldg(&in_col[e]);
        if (__ldcg(&label[u]) == d - 1) return perm[u];
    }
    return -1;  // none: the check fails this answer
}

}  // namespace rgbfs

// One traversal from `src` (region order). perm[i]: vertex i's id in the input, -1 for
// the padding that starts each region on a bitmap word. absorb: a run takes the marks
// that come while it runs (region_queue.cuh).
template <bool PRED>
__global__ void __launch_bounds__(RG_BLOCK, RG_MIN_BLOCKS)
    regions_bfs(const int* __restrict__ row, const int* __restrict__ col, const int* __restrict__ in_row,
                const int* __restrict__ in_col, const int* __restrict__ roff, const int* __restrict__ vreg,
                const int* __restrict__ perm, unsigned int* label, unsigned int* dirty, int* active, int* ring,
                unsigned int* ctl, int* dist, int* parent, int n_new, int regions, int ring_mask, int flush_steps,
                int absorb, int src) {
    using namespace rgbfs;
    GPUBFS_SHARED(Shared, sh);
    const State s{{vreg, dirty, active, ring, ctl, ring_mask, absorb}, row, col, roff, label};
    const int gtid = grid_thread<BLOCK>(), gstride = grid_threads<BLOCK>();
    for (int i = gtid; i < n_new; i += gstride) label[i] = i == src ? 0u : RG_UNREACHED;
    rq::start_search(s, n_new, regions, src, gtid, gstride);
    if (threadIdx.x == 0) sh.top = 0;
    GPUBFS_GRID_SYNC();

    rq::run_regions(s, sh.region, [&](int r) { run_region(s, sh, r, flush_steps); });

    GPUBFS_GRID_SYNC();
    int top = 0;
    for (int i = gtid; i < n_new; i += gstride) {
        const int old = perm[i];
        if (old < 0) continue;
        const unsigned int d = __ldcg(&label[i]);
        dist[old] = (int)d;
        if (d != RG_UNREACHED && (int)d + 1 > top) top = (int)d + 1;
        if (PRED) parent[old] = parent_of(in_row, in_col, perm, label, i, d);
    }
    if (top) atomicMax(&sh.top, top);
    __syncthreads();
    if (threadIdx.x == 0 && sh.top) atomicMax((int*)&ctl[RG_LEVELS], sh.top);
}

// Every instantiation, so that a plain nvcc compile checks them all.
template __global__ void regions_bfs<false>(const int*, const int*, const int*, const int*, const int*, const int*,
                                            const int*, unsigned int*, unsigned int*, int*, int*, unsigned int*,
                                            int*, int*, int, int, int, int, int, int);
template __global__ void regions_bfs<true>(const int*, const int*, const int*, const int*, const int*, const int*,
                                           const int*, unsigned int*, unsigned int*, int*, int*, unsigned int*,
                                           int*, int*, int, int, int, int, int, int);
