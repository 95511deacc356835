// Multi-GPU direction-optimizing BFS (mgpu.*): constants shared by mgpu.cu, its
// launcher (rank.py reads the #defines with header_constants) and the CPU emulation
// harness (tests/gpu/emu/mgpu_driver.cpp).
#pragma once

#include "common.cuh"

#ifndef MGPU_BLOCK
#define MGPU_BLOCK 256  // threads per CTA (a multiple of 32)
#endif

// Bits per vertex in the exchange buffer: every rank adds 1 to the field of each vertex
// it discovered, and the all-reduce (a sum) leaves a field non-zero exactly when some
// rank discovered the vertex. A field holds up to 2^bits - 1 ranks without carrying into
// the next one: 2 bits for up to 3 ranks, 4 for 15, 8 for 255. The peer-to-peer exchange
// ORs the fields instead of adding them: 1 bit.
#ifndef MGPU_FIELD_BITS
#define MGPU_FIELD_BITS 2
#endif

// A top-down task: CHUNK edges (or the rest of a list) of one frontier vertex, so that
// a hub's list is spread over many warps.
#ifndef MGPU_CHUNK
#define MGPU_CHUNK 256
#endif

#define MGPU_TOP_DOWN 0
#define MGPU_BOTTOM_UP 1
#define MGPU_MILLI 1000  // alpha and beta reach publish() in thousandths

// ctl[] words (int64), kept on each rank's GPU; every rank computes the same values from
// the same all-reduced counts, so every rank takes the same direction at every level.
#define CTL_LEVEL 0     // the level about to run (its frontier has depth CTL_LEVEL)
#define CTL_DIR 1       // its direction
#define CTL_DONE 2      // 1 once a level found nothing
#define CTL_PREV_NF 3   // the frontier before (Beamer's growth test)
#define CTL_MU 4        // edges out of the unvisited vertices (global)
#define CTL_TASKS 5     // top-down tasks queued for the level
#define CTL_BU_LEVELS 6  // levels run bottom-up
#define CTL_SWITCHES 7   // direction changes
#define CTL_FAILED 8     // 1: a wait on a peer gave up (the host asked, or the time ran out)
#define CTL_WORDS 9

// counts[] words: partial (this rank) before the small all-reduce, global after it.
#define CNT_NF 0  // vertices of the new frontier
#define CNT_MF 1  // their out-edges
#define CNT_WORDS 2

// pub[] words (int64, page-locked host memory the GPU writes and the host polls):
// Publication k's frontier sits in its own slot of a ring: a rank running one level ahead
// reads publication k while k + 1 may already be written, and every rank must read the
// same value (the ranks launch the same levels, or their all-reduces would not match).
#define PUB_SEQ 0      // publications so far in this traversal (init = 1, level L = L + 2)
#define PUB_SOURCE 1   // written by the host before the traversal
#define PUB_ABORT 2    // the host sets it to end every wait on a peer (a peer died)
#define PUB_FAILED 3   // the GPU sets it when a wait on a peer gave up
#define PUB_RING 16    // slots of the ring: more than the levels the host runs ahead
#define PUB_NF 4       // PUB_NF + k % PUB_RING: the frontier after publication k (0: over)
#define PUB_WORDS 20

// The device loop's optional profile (unsigned 64-bit %globaltimer ns, CTA 0, just after
// each grid barrier): MGPU_PROF_WORDS words a level.
#define MGPU_PROF_START 0    // the level's start
#define MGPU_PROF_QUEUE 1    // top-down tasks queued
#define MGPU_PROF_STEP 2     // the rank's own search done (and the peers told)
#define MGPU_PROF_APPLY 3    // the peers' fields ORed in (parents found): the next frontier
#define MGPU_PROF_PUBLISH 4  // the peers' counts summed, the direction decided
#define MGPU_PROF_WORDS 5

// hist[] (int64): per level L, hist[2L] = the frontier found, hist[2L+1] = direction.

// The peer-to-peer exchange (ranks on one host whose GPUs reach each other's memory):
// each rank's `p2p` region, mapped by every peer, starts with an inbox of int64 words
// that only the peers write, followed by the rank's exchange fields x.
//   INBOX_SYNC + r: the x signals rank r has sent (its x of that level is complete)
//   INBOX_TAG + r:  the count exchanges rank r has sent (its counts below are current)
//   INBOX_CNT + 2r: rank r's counts (CNT_NF, CNT_MF) of the level
// sync[] (int64, on each rank, never reset, so a tag from an earlier traversal can not
// pass for a current one): SYNC_X signals and SYNC_CNT count exchanges sent so far.
// The exchange fields are one bit a vertex here (an OR needs no room to count ranks).
#define P2P_MAX 16
#define INBOX_SYNC 0
#define INBOX_TAG 16
#define INBOX_CNT 32
#define INBOX_WORDS 64
#define SYNC_X 0
#define SYNC_CNT 1
#define SYNC_BLOCKS 2  // blocks of the running kernel done (its last block resets it)
#define SYNC_WORDS 3
