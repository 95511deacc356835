// The queue of regions that the region-local asynchronous kernels share (regions.bfs's
// regions.cu, sssp.regions's regions_sssp.cu): a ring of tickets that CTAs take regions
// from, a mark bit a vertex whose label was lowered from outside its region's run, and an
// active flag a region (queued once until a CTA takes it). Launchers read the #defines
// with header_constants.
//
// Memory order. A mark sets the vertex's bit, fences, then sets its region's flag; a
// take clears the flag, fences, and only then may its run read the bits and their labels:
// a label lowered after the run has taken its bit finds the flag clear and queues the
// region again. A push raises ctl[RQ_PENDING] before its ticket, and a run lowers it only
// after every push it made (so the search cannot look over while a region waits).
//
// Absorbing (RegionQueue::absorb): a run keeps its region's flag at RQ_RUNNING, so a mark
// for a region being run sets RQ_QUEUED and queues nothing; the run sees the bit between
// its steps (marks_waiting), clears it, fences and takes the marks itself (claim_marks),
// and it ends only by swapping RQ_RUNNING for 0 (end_run), so a mark after that finds the
// flag clear and queues the region. A region is then run by one CTA at a time, and a
// shorter distance reaching a region being run costs it no second run.
#pragma once

#include "persistent.cuh"

#define RQ_EMPTY (-1)  // a free slot of the ring

// ctl[] words (unsigned int) the queue keeps, and the counters both kernels count there;
// word 3 is each kernel's own.
#define RQ_HEAD 0       // tickets taken by waiting CTAs
#define RQ_TAIL 1       // tickets given to pushed regions
#define RQ_PENDING 2    // regions pushed and not yet done (0: the search is over)
#define RQ_RUNS 4       // regions run (one CTA's visit to one region)
#define RQ_STEPS 5      // local steps, summed over the runs
#define RQ_PUSHES 6     // regions pushed (the source's included)
#define RQ_DEFERRED 7   // vertices handed back to their region's queue entry (a full local queue)
#define RQ_COPIED 8     // runs whose region's edges fit shared memory
#define RQ_ABSORBED 9   // takes of marks inside a run (absorb)
#define RQ_CTL_WORDS 10

// active[] flag bits
#define RQ_QUEUED 1   // marks wait: the region is in the ring, or (with RQ_RUNNING) its run takes them
#define RQ_RUNNING 2  // a run absorbs its region's marks

namespace rq {

struct RegionQueue {
    const int* __restrict__ vreg;  // each vertex's region
    unsigned int* dirty;           // the marks: a bit a vertex
    int* active;                   // a flag a region: queued and not yet taken
    int* ring;                     // the queued regions by ticket (RQ_EMPTY: free)
    unsigned int* ctl;
    int ring_mask;                 // ring entries - 1 (a power of two)
    int absorb;                    // a run takes the marks that come while it runs (0: they queue a new run)
};

// Queue region r: pending first. The ring holds more entries than regions plus threads,
// so a slot's last region has been taken, or is being taken, when its next ticket comes.
__device__ __forceinline__ void push_region(const RegionQueue& s, int r) {
    atomicAdd(&s.ctl[RQ_PENDING], 1u);
    const unsigned int t = atomicAdd(&s.ctl[RQ_TAIL], 1u);
    int* slot = &s.ring[t & s.ring_mask];
    while (atomicCAS(slot, RQ_EMPTY, r) != RQ_EMPTY) GPUBFS_PAUSE(32);
    atomicAdd(&s.ctl[RQ_PUSHES], 1u);
    __threadfence();
}

// Vertex v's global label was lowered by a thread that is not running v's region (or
// cannot keep it): mark it and queue its region unless it is queued already.
__device__ __forceinline__ void mark(const RegionQueue& s, int v) {
    atomicOr(&s.dirty[v >> 5], 1u << (v & 31));
    __threadfence();
    const int r = __ldg(&s.vreg[v]);
    if (atomicOr(&s.active[r], RQ_QUEUED) == 0) push_region(s, r);  // idle: neither queued nor running
}

// Thread 0's wait for the next region: a ticket, then its slot until a region lands
// there or nothing is pending any more (-1).
__device__ __forceinline__ int take_region(const RegionQueue& s) {
    const unsigned int t = atomicAdd(&s.ctl[RQ_HEAD], 1u);
    int* slot = &s.ring[t & s.ring_mask];
    unsigned int ns = 32;
    for (;;) {
        if (*(volatile int*)slot != RQ_EMPTY) {
            const int r = atomicExch(slot, RQ_EMPTY);
            if (r != RQ_EMPTY) {
                // from here a lowered label queues r again, or (absorb) sets RQ_QUEUED for this run
                atomicExch(&s.active[r], s.absorb ? RQ_RUNNING : 0);
                __threadfence();  // the flag cleared before the marks are read
                return r;
            }
        }
        if (*(volatile unsigned int*)&s.ctl[RQ_PENDING] == 0) return -1;
        GPUBFS_PAUSE(ns);
        if (ns < 128) ns <<= 1;
    }
}

// Absorbing, thread 0 of the CTA running region r: whether marks came since the last take
// (a plain read: a late answer only delays them to the next step or the run's end) ...
__device__ __forceinline__ bool marks_waiting(const RegionQueue& s, int r) {
    return s.absorb && (*(volatile int*)&s.active[r] & RQ_QUEUED);
}

// ... and its claim on them before any thread reads the marks (a later mark sets the bit
// again), counted.
__device__ __forceinline__ void claim_marks(const RegionQueue& s, int r) {
    atomicAnd(&s.active[r], ~RQ_QUEUED);
    __threadfence();
    atomicAdd(&s.ctl[RQ_ABSORBED], 1u);
}

// Thread 0 when region r's run has nothing queued: true when the run may end (absorbing:
// its flag back to idle), false when marks came since the last take (claimed: the run
// takes them and goes on).
__device__ __forceinline__ bool end_run(const RegionQueue& s, int r) {
    if (!s.absorb || atomicCAS(&s.active[r], RQ_RUNNING, 0) == RQ_RUNNING) return true;
    claim_marks(s, r);
    return false;
}

// By every thread of the CTA running region r when its queue is empty: false when the run
// ends; true when (absorbing) marks came and take() queued some (queued() says so after
// the barrier). before(): thread 0's, ahead of each take (`resume`: a shared word).
template <typename Before, typename Take, typename Queued>
__device__ __forceinline__ bool resume_run(const RegionQueue& s, int r, int& resume, Before before, Take take,
                                           Queued queued) {
    for (;;) {
        if (threadIdx.x == 0) {
            resume = !end_run(s, r);
            before();
        }
        __syncthreads();
        if (!resume) return false;
        take();
        __syncthreads();
        if (queued()) return true;
    }
}

// After a step's barrier, by every thread: the marks that thread 0 saw come (`waiting`,
// read from shared memory after that barrier) claimed and taken by take().
template <typename Take>
__device__ __forceinline__ void absorb_step(const RegionQueue& s, int r, bool waiting, Take take) {
    if (!waiting) return;
    if (threadIdx.x == 0) claim_marks(s, r);
    __syncthreads();
    take();
    __syncthreads();
}

// Vertex v of another region at label nd: lower its global label, and mark it when that
// lowered it (labels of either width: atomicMin takes both).
template <typename L>
__device__ __forceinline__ void send(const RegionQueue& s, L* label, int v, L nd) {
    if (nd < __ldcg(&label[v]) && nd < atomicMin(&label[v], nd)) mark(s, v);
}

// The search's start, by every thread of the grid: the marks all clear but the source's,
// the flags all clear but its region's, and (thread 0) that region at ticket 0 (the
// ring is all free between searches) with the control words zeroed.
__device__ __forceinline__ void start_search(const RegionQueue& s, int n_new, int regions, int src, int gtid,
                                             int gstride) {
    const int first = s.vreg[src];
    for (int w = gtid; w < (n_new + 31) >> 5; w += gstride) s.dirty[w] = w == (src >> 5) ? 1u << (src & 31) : 0u;
    for (int r = gtid; r < regions; r += gstride) s.active[r] = r == first;
    if (gtid == 0) {
        for (int k = 0; k < RQ_CTL_WORDS; ++k) s.ctl[k] = 0;
        s.ctl[RQ_TAIL] = 1;
        s.ctl[RQ_PENDING] = 1;
        s.ctl[RQ_PUSHES] = 1;
        s.ring[0] = first;
    }
}

// Region r of a run: its first id, its size, its first edge and its edge count (row: the
// CSR in region order).
struct Span {
    int base, size, e0, edges;
};
__device__ __forceinline__ Span span_of(const int* __restrict__ roff, const int* __restrict__ row, int r) {
    const int base = __ldg(&roff[r]), size = __ldg(&roff[r + 1]) - base;
    const int e0 = __ldg(&row[base]);
    return {base, size, e0, __ldg(&row[base + size]) - e0};
}

// The region's edges into shared memory by every thread: offsets from its first edge,
// heads as local ids (`outside`: a head in another region).
template <int BLOCK>
__device__ __forceinline__ void copy_edges(const int* __restrict__ row, const int* __restrict__ col, Span sp,
                                           unsigned short* lrow, unsigned short* ledge, unsigned short outside) {
    for (int i = threadIdx.x; i <= sp.size; i += BLOCK) lrow[i] = (unsigned short)(__ldg(&row[sp.base + i]) - sp.e0);
    for (int e = threadIdx.x; e < sp.edges; e += BLOCK) {
        const unsigned int lv = (unsigned int)(__ldg(&col[sp.e0 + e]) - sp.base);
        ledge[e] = lv < (unsigned int)sp.size ? (unsigned short)lv : outside;
    }
}

// The region's marks taken by every thread (a region starts on a bitmap word): each
// marked vertex's label read after its bit, and take(local id, label) called.
template <int BLOCK, typename L, typename F>
__device__ __forceinline__ void take_marks(const RegionQueue& s, const L* label, Span sp, F take) {
    for (int w = threadIdx.x; w < (sp.size + 31) >> 5; w += BLOCK) {
        unsigned int bits = atomicExch(&s.dirty[(sp.base >> 5) + w], 0u);
        if (bits) __threadfence();
        while (bits) {
            const int i = (w << 5) + __ffs(bits) - 1;
            bits &= bits - 1;
            take(i, __ldcg(&label[sp.base + i]));
        }
    }
}

// Head v of another region at label nd into a run's outbox (true), or, the outbox full,
// sent at once (false).
template <typename L>
__device__ __forceinline__ bool post(const RegionQueue& s, L* label, int* out_v, L* out_d, int* out_count, int cap,
                                     int v, L nd) {
    const int at = atomicAdd(out_count, 1);
    if (at < cap) {
        out_v[at] = v;
        out_d[at] = nd;
        return true;
    }
    send(s, label, v, nd);
    return false;
}

// A run's outbox (its first `entries` heads and labels) sent by every thread.
template <int BLOCK, typename L>
__device__ __forceinline__ void send_outbox(const RegionQueue& s, L* label, const int* out_v, const L* out_d,
                                            int entries) {
    for (int j = threadIdx.x; j < entries; j += BLOCK) send(s, label, out_v[j], out_d[j]);
}

// After a step's barrier, by every thread (outgoing: that barrier's answer to "did any
// thread post since the last flush"; last: the run's last step): the outbox sent every
// flush_steps steps, and at the end, and emptied.
template <int BLOCK, typename L>
__device__ __forceinline__ void flush_step(const RegionQueue& s, L* label, const int* out_v, const L* out_d,
                                           int* out_count, int cap, bool outgoing, bool last, int k, int flush_steps,
                                           bool& sent) {
    if (!outgoing || !(last || (k + 1) % flush_steps == 0)) return;
    send_outbox<BLOCK>(s, label, out_v, out_d, min(*out_count, cap));
    __syncthreads();
    if (threadIdx.x == 0) *out_count = 0;
    sent = false;
    __syncthreads();
}

// A run's counters, by one thread.
__device__ __forceinline__ void count_run(const RegionQueue& s, int steps, bool copied) {
    atomicAdd(&s.ctl[RQ_RUNS], 1u);
    atomicAdd(&s.ctl[RQ_STEPS], (unsigned int)steps);
    if (copied) atomicAdd(&s.ctl[RQ_COPIED], 1u);
}

// The search's loop, by every thread of a CTA: thread 0 takes a region into `taken` (the
// CTA's shared word), the CTA runs it (run(r)), and after the barrier that ends the run
// (every push it made is done) pending falls; until no region is pending.
template <typename F>
__device__ __forceinline__ void run_regions(const RegionQueue& s, int& taken, F run) {
    for (;;) {
        if (threadIdx.x == 0) taken = take_region(s);
        __syncthreads();
        const int r = taken;
        if (r < 0) return;
        run(r);
        __syncthreads();
        if (threadIdx.x == 0) {
            __threadfence();
            atomicAdd(&s.ctl[RQ_PENDING], 0xffffffffu);  // minus one
        }
    }
}

}  // namespace rq
