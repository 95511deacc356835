// Merrill, Garland, Grimshaw (PPoPP'12): constants and the kernel's parameter struct
// shared by merrill.cu, its launcher and the CPU emulation harness (tests/gpu/emu), which compiles merrill.cu with g++ and
// -DGPUBFS_EMULATE to check the kernel logic on machines without a GPU (the shims for
// it are persistent.cuh's).
#pragma once

#include "common.cuh"
#include "persistent.cuh"
#include "small_frontier.cuh"

#ifndef MERRILL_BLOCK
#define MERRILL_BLOCK 256  // threads per CTA (a multiple of 32)
#endif
#ifndef MERRILL_MIN_BLOCKS
#define MERRILL_MIN_BLOCKS 4  // launch bound: caps registers at 64 so 4 CTAs fit an SM
#endif
#ifndef MERRILL_HISTORY
#define MERRILL_HISTORY 4096  // history-culling hash entries per CTA (power of two)
#endif
#ifndef MERRILL_SMALL_CAP
// Small-frontier mode: the largest threshold (frontier items). Its queues (8 ints an
// entry) share the history table's shared memory: 512 entries fill its 16 KB.
#define MERRILL_SMALL_CAP 512
#endif

// Knob codes (the Python side mirrors them).
#define GATHER_SERIAL 0
#define GATHER_WARP 1
#define GATHER_SCAN 2
#define GATHER_SCAN_WARP_CTA 3

#define CULL_BITMASK 0
#define CULL_LABEL 1
#define CULL_WARP 2
#define CULL_HISTORY 3
#define CULL_ATOMIC 4  // not in the paper: exact test-and-set (the overflow fallback)

#define STRAT_EXPAND_CONTRACT 0
#define STRAT_CONTRACT_EXPAND 1
#define STRAT_TWO_PHASE 2
#define STRAT_HYBRID 3

// ctl[] words. Three rotating slots: iteration L reads slot L%3, fills slot (L+1)%3
// and clears slot (L+2)%3, so one grid barrier per phase is enough.
#define CTL_VCOUNT 0    // vertex-queue length
#define CTL_ECOUNT 1    // edge-queue length
#define CTL_OVF 2       // a queue of this slot overflowed
#define CTL_BIG_OVF 3   // this slot's huge list overflowed (entries past big_cap, or a
                        // total past INT_MAX): it must not be read
#define CTL_SLOT 4      // words per slot
#define CTL_OVERFLOW 12 // sticky: some queue overflowed (the kernel reruns with CULL_ATOMIC;
                        // still set at the end: the atomic pass overflowed too)
#define CTL_ITERS 13    // iterations run (by the last pass)
#define CTL_RERUNS 14   // 1 when the traversal was rerun with CULL_ATOMIC
#define CTL_SF 16       // SF_WORDS words of the small-frontier protocol (small_frontier.cuh)
#define CTL_WORDS 20

// Per-level counters, counters[k * cap + level].
#define CNT_ENQUEUED 0  // vertices that passed culling and were labelled at this level
#define CNT_EXPANDED 1  // adjacency lists of this level's vertices gathered
#define CNT_EDGES 2     // neighbours gathered from this level's vertices
#define CNT_KINDS 3

// Optional profile, 4 words per iteration: start time (ns), time after the first
// phase (two-phase and huge-list iterations), frontier size, phase kind; the end time
// follows the last iteration.
#define PROF_WORDS 4
#define KIND_EC 0
#define KIND_EC_HUGE 1
#define KIND_CE 2
#define KIND_TWO_PHASE 3
#define KIND_SMALL 4  // run by CTA 0 alone (small-frontier mode)

// Huge-list entries (grid-wide gathering): packed count and edge total per slot. An
// add past big_cap entries or past an INT_MAX total sets CTL_BIG_OVF, so a slot whose
// flag is clear holds at most big_cap entries and INT_MAX edges: the fields never
// wrap as long as big_cap < 2^24 (the host keeps it below BIG_COUNT_LIMIT).
#define BIG_COUNT_SHIFT 40
#define BIG_COUNT_LIMIT 16777216  // 1 << (64 - BIG_COUNT_SHIFT)
#define BIG_TOTAL_MASK ((1ull << BIG_COUNT_SHIFT) - 1)

// merrill_bfs's parameters but the CSR arrays, the source and the culling: built once
// per graph and kind of BFS by the host (strategies.py's PARAMS: a numpy structured dtype
// of this layout, compared with the compiled one by
// tests/algorithms/bfs/gpu/test_merrill_emulated.py) and passed by value. Pointers first,
// then the 64-bit scalar, then the ints: no padding. The CSR arrays stay kernel
// parameters of their own: `const __restrict__` there is what lets nvcc read them through
// the read-only path (ld.global.nc), which it does not do for a struct member.
struct MerrillParams {
    int* dist;
    int* parent;             // predecessor BFSs only
    unsigned int* bitmask;   // visited bits
    int* vq0;                // vertex queues, halves alternating by iteration parity
    int* vq1;
    int* eq0;                // edge queues
    int* eq1;
    int* ep0;                // the edge queues' parents (predecessor BFSs)
    int* ep1;
    int4* big0;              // huge lists (grid_threshold)
    int4* big1;
    int* ctl;                // CTL_WORDS control words
    unsigned long long* big_ctl;  // huge lists' packed count and edge total, per slot
    int* counters;           // CNT_KINDS x counter_cap per-level counters (COUNT)
    unsigned int* claimed;   // claimed lists (claim_threshold)
    unsigned long long* prof;     // null: no profile
    long long switch_threshold;   // hybrid: contract-expand while the edge frontier is at most this
    int n;
    int vq_cap, eq_cap, big_cap;  // queue capacities (entries)
    int counter_cap;         // levels the counters have room for
    int grid_threshold;      // lists at least this long go grid-wide (0: off)
    int claim_threshold;     // lists at least this long are claimed (0: off)
    int prof_cap;            // iterations the profile has room for
    int small_threshold;     // small-frontier mode up to this many items (0: off)
};
