// Small-frontier mode for persistent cooperative kernels: while a BFS frontier is small,
// one CTA (the leader, blockIdx.x == 0) iterates levels alone with block barriers, and
// the rest of the grid parks on a flag instead of paying a grid barrier per level.
//
// do.cu's mid-frontier mode parks the CTAs outside its team the same way, and the team
// members park too when the team hands a frontier back (sf_park fences their writes).
//
// Contract (any persistent kernel can follow it; merrill.cu is the first user):
//  - `words` points at SF_WORDS global ints that are zero when the kernel starts (the
//    kernel clears them before its first grid barrier).
//  - Every CTA decides to enter the mode from the same grid-wide state (words read after
//    a grid barrier), so all CTAs agree, and each counts its entries in a local epoch
//    (1, 2, ...): the n-th entry has epoch n on every CTA.
//  - The other CTAs call sf_park(words, epoch, bcast) once they have read everything
//    they need from before the entry; it counts them in SF_ARRIVED, waits for the
//    leader's release and returns the leader's `resume` word to every thread.
//  - The leader runs levels touching nothing the parked CTAs may still read (the entry
//    level's control words). Before it writes such words (to hand a frontier back) it
//    calls sf_wait_parked(words, epoch): all other CTAs have then read theirs. Handing
//    back nothing (the search is over) needs no wait.
//  - It then calls sf_release(words, epoch, resume): after it, every parked CTA sees all
//    the leader's earlier global writes (it must read them through L2: __ldcg, volatile).
//  - `resume` is the kernel's to define (merrill.cu, do.cu: a level >= 0, or ~iterations
//    when the search finished). All three calls are block-uniform (every thread of the CTA).
// The leader's levels use the shared-memory queues below (SfQueues, sf_append,
// sf_expand): one __syncthreads per level, exact culling (one CTA: a returned atomicOr).
// Spins pause with persistent.cuh's GPUBFS_PAUSE (emulated: a fiber switch).
#pragma once

#include "common.cuh"
#include "mergepath.cuh"
#include "persistent.cuh"

#define SF_EPOCH 0    // the last released epoch
#define SF_RESUME 1   // the leader's resume word of that epoch
#define SF_ARRIVED 2  // parked CTAs, summed over all epochs
#define SF_WORDS 3

#define SF_PAUSE(ns) GPUBFS_PAUSE(ns)

// Spins until *word >= target, backing off from 32 to 512 ns between polls: a long
// stretch of small levels (a path's 100,000) must not flood one L2 line with polls,
// and a hand-back is then seen within half a microsecond.
__device__ __forceinline__ void sf_spin_until(const int* word, int target) {
    unsigned int ns = 32;
    while (*(const volatile int*)word < target) {
        SF_PAUSE(ns);
        if (ns < 512) ns <<= 1;
    }
}

__device__ __forceinline__ int sf_park(int* words, int epoch, int* bcast) {
    __syncthreads();  // the CTA's reads of the entry state (and a team member's writes) are done
    if (threadIdx.x == 0) {
        __threadfence();  // release: a team member's hand-back writes come first
        atomicAdd(words + SF_ARRIVED, 1);
        sf_spin_until(words + SF_EPOCH, epoch);
        __threadfence();  // acquire: the leader's writes before its release are visible
        *bcast = *(const volatile int*)(words + SF_RESUME);
    }
    __syncthreads();
    return *bcast;
}

// Thread 0 alone: waits until `arrived` CTAs have parked, summed over all epochs.
__device__ __forceinline__ void sf_wait_arrived(int* words, int arrived) {
    sf_spin_until(words + SF_ARRIVED, arrived);
    __threadfence();  // their reads come before the writes that follow
}

__device__ __forceinline__ void sf_wait_parked(int* words, int epoch) {
    if (threadIdx.x == 0) sf_wait_arrived(words, epoch * (int)(gridDim.x - 1));
    __syncthreads();
}

__device__ __forceinline__ void sf_release(int* words, int epoch, int resume) {
    __syncthreads();  // every thread's writes are done
    if (threadIdx.x == 0) {
        *(volatile int*)(words + SF_RESUME) = resume;
        __threadfence();  // release: the CTA's writes (ordered by the barrier) come first
        *(volatile int*)(words + SF_EPOCH) = epoch;
    }
}

// ---- A barrier among the first `team` CTAs (the mid-frontier mode) ---------------------
// `count` is zero when the kernel starts and only grows: the k-th barrier of the team
// waits for team * k arrivals, so it needs no reset and no generation flag.
// A release add and acquire polls, not full fences around a relaxed add: 1.15 against
// 1.40 us a barrier for 132 CTAs on the H100 (scripts/barrier_probe.py).
__device__ __forceinline__ void team_sync(unsigned long long* count, unsigned long long target) {
    __syncthreads();
    if (threadIdx.x == 0) {
#ifdef GPUBFS_EMULATE
        atomicAdd(count, 1ull);
        while (*(const volatile unsigned long long*)count < target) emu_spin_pause();
#else
        // release: the CTA's writes, ordered before thread 0's by the block barrier, come first
        asm volatile("red.release.gpu.global.add.u64 [%0], 1;" ::"l"(count) : "memory");
        unsigned long long seen;
        do {
            asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(seen) : "l"(count) : "memory");
        } while (seen < target);
#endif
    }
    __syncthreads();
}

// ---- The leader's level loop: shared-memory queues ------------------------------------
// Two queues of (vertex, list start, list length, offset of the list among the queue's
// lists), alternating by level; `packed[level % 3]` holds a level's totals:
// entries << 42 | entries with a non-empty list << 21 | edges (lists clamped at CAP + 1,
// so that CAP lists never carry into the other fields; a clamped total is past any
// threshold). A level whose entries or edges pass the threshold (at most CAP) is handed
// back to the grid, so a queue never holds more than CAP entries. O, the type of a list
// start (an edge offset), is the kernel's row offsets' (int, or long long from 2^31 edges).
template <int CAP, class O = int>
struct SfQueues {
    int v[2][CAP];
    O start[2][CAP];
    int len[2][CAP], ex[2][CAP];
    unsigned long long packed[3];
};

constexpr int SF_FIELD = 21;
constexpr unsigned long long SF_MASK = (1ull << SF_FIELD) - 1;
__device__ __forceinline__ int sf_entries(unsigned long long p) { return (int)(p >> (2 * SF_FIELD)); }
__device__ __forceinline__ int sf_nonempty(unsigned long long p) { return (int)((p >> SF_FIELD) & SF_MASK); }
__device__ __forceinline__ int sf_edges(unsigned long long p) { return (int)(p & SF_MASK); }

// Reserves places in a level's queue for the lanes that keep a vertex (warp-converged):
// one shared atomic per warp reserves the positions and the lists' offsets at once, so
// offsets grow with positions (what sf_expand's binary search needs). Each keeping lane
// then calls put(position, its list's offset).
// `packed` is the queue's three totals' words (SfQueues::packed).
template <int CAP, class Put>
__device__ __forceinline__ void sf_reserve(unsigned long long* packed, int level, bool keep, int len, Put put) {
    const unsigned int m = __ballot_sync(GPUBFS_FULL_MASK, keep);
    if (!m) return;
    const int clamped = keep ? min(len, CAP + 1) : 0;
    int wedges;
    const int ex = warp_exclusive_scan(clamped, &wedges);
    const unsigned int nonempty = __ballot_sync(GPUBFS_FULL_MASK, keep && len > 0);
    const unsigned long long base =
        warp_leader_add(&packed[level % 3], m,
                        ((unsigned long long)__popc(m) << (2 * SF_FIELD)) |
                            ((unsigned long long)__popc(nonempty) << SF_FIELD) | (unsigned long long)wedges);
    if (keep) put(sf_entries(base) + lane_rank(m), sf_edges(base) + ex);
}

// Appends the lanes' kept vertices with their lists to queue b (at most CAP a level).
template <int CAP, class O>
__device__ __forceinline__ void sf_append(SfQueues<CAP, O>& q, int b, int level, bool keep, int v,
                                          O start, int len) {
    sf_reserve<CAP>(q.packed, level, keep, len, [&](int pos, int ex) {
        q.v[b][pos] = v;
        q.start[b][pos] = start;
        q.len[b][pos] = len;
        q.ex[b][pos] = ex;
    });
}

// Exact lookup of v (one CTA runs: a returned atomicOr decides), with v's row offsets
// fetched while the atomic is in flight.
template <class O>
__device__ __forceinline__ bool sf_discover(const O* __restrict__ row, unsigned int* bitmask,
                                            int v, O& start, int& len) {
    start = row[v];
    const O end = row[v + 1];
    const unsigned int bit = 1u << (v & 31);
    const bool fresh = !(atomicOr(bitmask + (v >> 5), bit) & bit);
    len = (int)(end - start);  // one list: under 2^31
    return fresh;
}

// Gathers level D's queue (buffer b: cnt entries, `edges` neighbours) into buffer b ^ 1.
// Each vertex discovered is handed to label(v, u, len): v reached from u, v's list
// length len; the kernel labels it D + 1.
template <int BLOCK, int CAP, class O, class Label>
__device__ void sf_expand(SfQueues<CAP, O>& q, const O* __restrict__ row, const int* __restrict__ col,
                          unsigned int* bitmask, int D, int b, int cnt, int edges, Label& label) {
    for (int e0 = 0; e0 < edges; e0 += BLOCK) {
        const int e = e0 + threadIdx.x;
        bool keep = false;
        int v = -1;
        O start = 0;
        int len = 0;
        if (e < edges) {
            const int lo = mergepath_vertical(q.ex[b], cnt, e) - 1;  // the last list starting <= e
            const int u = q.v[b][lo];
            v = col[q.start[b][lo] + (e - q.ex[b][lo])];
            keep = sf_discover(row, bitmask, v, start, len);
            if (keep) {
                label(v, u, len);
                if (len > 0) prefetch_l1(col + start);  // the next level's loads of v's list
            }
        }
        sf_append(q, b ^ 1, D + 1, keep, v, start, len);
    }
}
