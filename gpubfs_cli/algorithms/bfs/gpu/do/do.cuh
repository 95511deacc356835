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

// alpha and beta reach the kernel in thousandths (integer kernel arguments).

// The direction rule (kernel argument `rule`).
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
