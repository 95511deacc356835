// Delta-stepping and near-far SSSP (sssp.delta, sssp.near_far): constants and the
// persistent kernel's parameter struct shared by delta.cu, its launcher (strategies.py reads the #defines with header_constants) and
// the CPU emulation (tests/gpu/emu/delta_driver.cpp).
#pragma once

#include "common.cuh"
#include "persistent.cuh"

#ifndef DELTA_BLOCK
#define DELTA_BLOCK 256  // threads per CTA (a multiple of 32)
#endif
#ifndef DELTA_SMALL_CAP
#define DELTA_SMALL_CAP 1024  // the largest small_frontier threshold (the leader's shared queues)
#endif
#ifndef DELTA_MIN_BLOCKS
// CTAs an SM must hold (__launch_bounds__): 768 threads, which caps a thread at 80
// registers; past it an H100/H200 SM holds two CTAs of 256, not three
#define DELTA_MIN_BLOCKS (DELTA_BLOCK >= 768 ? 1 : 768 / DELTA_BLOCK)
#endif
#ifndef DELTA_SMALL_BATCH
// edges a thread of the leader relaxes at once: near-far's 4 fit the 80 registers;
// delta-stepping (its settled list, its heavy round) spills with 2
#define DELTA_SMALL_BATCH(heavy) ((heavy) ? 1 : 4)
#endif
#ifndef DELTA_SMALL_EDGES_MAX
#define DELTA_SMALL_EDGES_MAX 1048576  // the largest small_edges (the leader's 21-bit edge count)
#endif
#ifndef DELTA_HUB_CAP
// lists a grid round leaves to its hub pass at most (the spread's shared arrays); more
// lists as long are many CTAs' tiles anyway
#define DELTA_HUB_CAP 256
#endif
#ifndef DELTA_TILE_MIN
// the fewest items of a grid round a CTA takes at a time (a whole number of warps)
#define DELTA_TILE_MIN 32
#endif
#ifndef DELTA_WEIGHT64
#define DELTA_WEIGHT64 0  // int64 edge weights (else int32)
#endif
#ifndef DELTA_PROFILE
// 1: the profile build: thread 0 splits the leader's rounds into phases on its clock
// (the CTL_PROF_* words); the timed build compiles it out
#define DELTA_PROFILE 0
#endif

#ifndef DELTA_ASYNC
// 1: the asynchronous leader (knob leader_async): the leader's warps take vertices from
// one shared pool as they come, with no round and no block barrier (delta.cu says how)
#define DELTA_ASYNC 0
#endif
#if DELTA_ASYNC && DELTA_PROFILE
#error "the profile build times the leader's rounds; the asynchronous leader has none"
#endif

// anchor[v] of a vertex the parents pass has not given a parent yet.
#define DELTA_UNANCHORED 2147483647

// Control words (unsigned 64-bit). A queue size is cleared by thread 0 only between its
// last read and its next append with a grid barrier on each side: three rotating slots
// for the frontiers (a round reads one, appends to the next, clears the third).
#define CTL_LSIZE 0          // + (light round % 3): entries of that round's frontier
#define CTL_FSIZE 3          // + (far pile & 1): entries of the far pile
#define CTL_RSIZE 5          // vertices the current bucket settled (the heavy round's list)
#define CTL_MIN 6            // the far pile's smallest live distance (the empty-bucket skip)
#define CTL_BUCKETS 7        // buckets processed
#define CTL_LIGHT_ROUNDS 8   // light relaxation rounds (near-far: near rounds)
#define CTL_HEAVY_ROUNDS 9   // heavy rounds that had settled vertices
#define CTL_RELAXATIONS 10   // edges relaxed (light and heavy rounds)
#define CTL_PARENT_ROUNDS 11 // rounds of the parents pass (predecessors only)
#define CTL_PSIZE 12         // + (parents round % 3): vertices anchored in that round
#define CTL_SF 16            // small_frontier.cuh's words (three ints in two words)
#define CTL_SMALL_ROUNDS 18  // light rounds the leader ran alone (small-frontier mode; DELTA_ASYNC: one a take-over)
#define CTL_SMALL_ENTRIES 19 // times the leader took over
#define CTL_FAR_SCANNED 20   // far-pile entries the bucket changes read (their sizes summed)
#define CTL_NS_SEARCH 21     // the distances' nanoseconds (CTA 0's clock: after the set-up, to the parents)
#define CTL_NS_SMALL 22      // ... of them in the leader's rounds (entries and hand-backs included)
#define CTL_NS_GRID 23       // ... of them in the grid's light rounds (the rest: heavy rounds, bucket changes)
#define CTL_HUBS 24          // + (grid round % 3): lists left to that round's hub pass
#define CTL_HUB_ROUNDS 27    // grid rounds (light or heavy) that ran a hub pass
#define CTL_HUB_LISTS 28     // lists the hub passes spread (their counts summed)
// The profile build: the leader's rounds in phases, thread 0's clock cycles summed (the
// phase ends once thread 0 has the answers it waits for; the barrier, once every warp has)
#define CTL_PROF_GATHER 29   // the round's lists found and their edges loaded (neighbour, weight, source's distance)
#define CTL_PROF_RELAX 30    // the distances' atomicMin answered
#define CTL_PROF_CLAIM 31    // the pushed vertices' lists read, the far pile's claims answered
#define CTL_PROF_PUSH 32     // the next round's and the far pile's places reserved and written
#define CTL_PROF_SYNC 33     // the round's block barrier
#define CTL_PROF_PHASES 5
#define CTL_ASYNC_BATCHES 34 // DELTA_ASYNC: the batches the leader's warps took, summed
#define CTL_WORDS 35

#if DELTA_WEIGHT64
typedef long long delta_weight_t;
#else
typedef int delta_weight_t;
#endif

// delta_sssp's parameters but the graph's read-only arrays and the source: built once per
// graph and kind of traversal by the host (strategies.py's PARAMS, a numpy structured
// dtype of this layout, compared with the compiled one by
// tests/algorithms/sssp/gpu/test_delta_emulated.py) and passed by value. Pointers first,
// then the 64-bit scalar, then the int: no padding inside. The read-only arrays (row,
// split, perm, col, w) stay kernel parameters of their own: `const __restrict__` there is
// what lets nvcc read them through the read-only path (ld.global.nc), which it does not
// do for a struct member.
struct DeltaParams {
    unsigned long long* dist;
    unsigned long long* lstamp;  // per vertex: the last round whose frontier took it
    unsigned long long* fstamp;  // per vertex: the last far pile that took it
    int* rstamp;                 // per vertex: the last bucket that settled it (HEAVY)
    int* q0;                     // frontiers of even and odd rounds
    int* q1;
    int* settled;                // the bucket's settled vertices (HEAVY)
    int* far0;                   // the two far piles
    int* far1;
    unsigned long long* ctl;     // CTL_WORDS control words
    int* parent;                 // PRED
    int* anchor;                 // PRED
    int* hubs;                   // a grid round's lists of hub_edges or more (DELTA_HUB_CAP entries)
    long long delta;             // the bucket width
    int n;
    int small_frontier;          // small-frontier mode: the leader's most vertices a round (0: off)
    int small_edges;             // ... and most light edges a round
    int hub_edges;               // a grid round's lists this long or longer go to its hub pass (0: none)
    int direct_below;            // near-far: a grid round of fewer vertices takes its atomics without looking first (0: never)
};
