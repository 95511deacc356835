// Direction-optimizing BFS (do.*): constants shared by do.cu, its launcher
// (strategies.py reads the #defines with header_constants) and the CPU emulation
// harness (tests/gpu/emu/do_driver.cpp, which compiles do.cu with -DGPUBFS_EMULATE;
// the shims for it are persistent.cuh's).
#pragma once

#include "common.cuh"
#include "persistent.cuh"
#include "small_frontier.cuh"

#ifndef DO_BLOCK
#define DO_BLOCK 256  // threads per CTA (a multiple of 32)
#endif
#ifndef DO_MIN_BLOCKS
#define DO_MIN_BLOCKS 4  // launch bound: registers capped so 1024 threads fit an SM
#endif

#ifndef DO_SPREAD
#define DO_SPREAD 1024  // the largest frontier whose edges a top-down step may spread over the grid
#endif

#ifndef DO_SMALL_CAP
#define DO_SMALL_CAP 512  // the largest small_frontier threshold (shared-memory queue entries)
#endif

#ifndef DO_MID_CAP
#define DO_MID_CAP 32768  // the largest mid_frontier threshold (team queue entries, edges)
#endif
#define DO_HUB_DEGREE 32  // a frontier averaging this many out-edges a vertex leaves the team mode

// Edge offsets (the CSRs' row offsets, list starts): 32-bit, or 64-bit in the build the
// launcher picks for graphs of 2^31 edges or more (it reads twice the bytes per offset).
#ifndef DO_OFFSET64
#define DO_OFFSET64 0
#endif

// The direction rule (Params::rule).
#define DO_RULE_TOP_DOWN 0  // never bottom-up (do.top_down)
#define DO_RULE_COUNTS 1    // Beamer's thresholds alone: m_f * alpha > m_u, n_f * beta < n
#define DO_RULE_GROWTH 2    // ... and the frontier growing (to bottom-up) / shrinking (back)
#define DO_MILLI 1000

// ctl[] words (64-bit). Three rotating slots: level L reads slot L%3, fills slot
// (L+1)%3 and clears slot (L+2)%3, so one grid barrier per level is enough.
#define SLOT_NF 0    // frontier vertices (top-down: also the queue's reservation counter)
#define SLOT_MF 1    // edges out of the frontier (sum of out-degrees)
#define SLOT_INF 2   // edges into the frontier (sum of in-degrees: leaves m_u)
#define SLOT_CONV 3  // bitmap -> queue conversion: reservation counter
#define SLOT_HUBS 4  // top-down level L's lists of hub_edges or more (slot L + 1): hub queue entries
#define SLOT_WORDS 5
#define CTL_LEVELS 15     // levels run (the last one found nothing)
#define CTL_BU_LEVELS 16  // of which bottom-up
#define CTL_SWITCHES 17   // direction changes
#define CTL_SMALL_LEVELS 18  // of which run by CTA 0 alone (small-frontier mode)
#define CTL_SF 19         // small_frontier.cuh's SF_WORDS ints (two 64-bit words)
#define CTL_MID_LEVELS 21  // of which run by the team alone (mid-frontier mode)
#define CTL_TEAM_BAR 22    // the team's barrier: arrivals, summed over the traversal
#define CTL_PREV_NF 23     // the frontier before the level the team hands back
#define CTL_HUB_LEVELS 24  // top-down levels that ran the hub pass
#define CTL_WORDS 25

// Per-level counters (counters and profile builds only): counters[k * cap + level].
#define CNT_VERTICES 0  // top-down: frontier vertices expanded; bottom-up: unvisited vertices checked
#define CNT_EDGES 1     // top-down: neighbours gathered; bottom-up: in-edges looked at
#define CNT_DIR 2       // 0 top-down, 1 bottom-up
#define CNT_KINDS 3

// Profile (profile build): PROF_WORDS per level, stamped by thread 0 of CTA 0 after
// the grid barrier: start ns, ns after the frontier conversion (= start without one),
// direction, frontier size. The end time follows the last level's words. Past the
// level rows (row prof_cap), a header: kernel entry (CTA 0) and the end of the search's
// set-up (CTA 0 past its grid barrier), so the time before the first level is split.
#define PROF_WORDS 4
#define PROF_START 0
#define PROF_STEP 1
#define PROF_DIR 2
#define PROF_FRONTIER 3
#define PROF_ENTRY 0
#define PROF_READY 1

#define DIR_TOP_DOWN 0
#define DIR_BOTTOM_UP 1

namespace dobfs {

#if DO_OFFSET64
typedef long long offset_t;
#else
typedef int offset_t;
#endif

// One traversal's fixed state, do_bfs's by-value parameter: built once by the launcher
// (strategies.py's PARAMS mirrors it field by field, in this order), so a launch passes
// three arguments rather than thirty. Pointers are device addresses (8 bytes whatever
// offset_t is: one layout for every build); buffer sizes are the launcher's.
struct Params {
    const offset_t* __restrict__ row;     // out-edges (CSR)
    const int* __restrict__ col;
    const offset_t* __restrict__ in_row;  // in-edges (the CSR itself when undirected)
    const int* __restrict__ in_col;
    int* dist;
    int* parent;  // null without predecessors
    unsigned int* visited;
    unsigned int* front0;  // the frontier bitmaps of even and odd levels
    unsigned int* front1;
    int* q0;  // the frontier queues of even and odd levels
    int* q1;
    unsigned long long* ctl;       // CTL_WORDS
    unsigned long long* counters;  // CNT_KINDS rows of counter_cap levels (STATS), else null
    unsigned long long* prof;      // PROF_WORDS * (prof_cap + 1) (profile), else null
    int4* mq;                      // the team's two queues of mq_cap entries; the hub queue (DO_SPREAD ints) between its levels
    long long m_in;                // in-edges (m)
    long long alpha_milli;         // the switch thresholds, in thousandths (DO_MILLI)
    long long beta_milli;
    long long spread_edges;        // a small top-down frontier with this many out-edges spreads them (< 0: never)
    int n;
    int rule;                      // DO_RULE_*
    int small_frontier;            // CTA 0 alone up to this frontier (0: never; at most DO_SMALL_CAP)
    int mid_ctas;                  // the team's size
    int counter_cap;
    int prof_cap;
    int mq_cap;
    int hub_edges;                 // a tiled top-down level's lists this long go to the hub pass (0: never)
    // Read late only, so last and paired: adjacent ints load as one pair, and one paired
    // with a field read at entry would be held in a register from there.
    int mid_frontier;              // the team up to this frontier (0: never; at most DO_MID_CAP)
    int thread_edges;              // bottom-up: in-edges a lane scans before its warp takes the list (0: never)
};

}  // namespace dobfs

#define DO_PARAMS_BYTES 192  // sizeof(dobfs::Params), checked by do.cu and strategies.py
