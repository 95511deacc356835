// Region-local asynchronous BFS (regions.bfs): constants shared by regions.cu, its
// launcher (strategies.py reads the #defines with header_constants, beside
// region_queue.cuh's) and the CPU emulation harness (tests/gpu/emu/regions_driver.cpp).
#pragma once

#include "common.cuh"
#include "region_queue.cuh"

#ifndef RG_BLOCK
#define RG_BLOCK 256  // threads per CTA (a multiple of 32)
#endif
#ifndef RG_MIN_BLOCKS
#define RG_MIN_BLOCKS 1  // launch bound
#endif

// The largest region (vertices): its labels live in shared memory while a CTA runs it.
#ifndef RG_REGION_CAP
#define RG_REGION_CAP 2048
#endif
// Entries of each of a CTA's two local frontier queues: a vertex is in one at most
// twice (carried to a later step, and lowered in this one), rarely both; a full queue
// hands the vertex back to its region's next run instead (regions.cu, enqueue).
#ifndef RG_QUEUE
#define RG_QUEUE (3 * RG_REGION_CAP / 2)
#endif
// Edges leaving the region that a run's levels lowered, kept in shared memory until the
// run sends them (every flush_steps levels, and at its end): a level then waits for no
// global atomic. A full outbox relaxes the edge at once.
#ifndef RG_OUTBOX
#define RG_OUTBOX 512
#endif

// The most edges of a region a run copies into shared memory (with its offsets): its
// local levels then read no global memory but for edges that leave it. A region with
// more edges runs from the global CSR.
#ifndef RG_EDGE_CAP
#define RG_EDGE_CAP (4 * RG_REGION_CAP)
#endif
#define RG_OUTSIDE 0xffffu
// Threads a frontier vertex in a local level, each taking every RG_LANES-th of its edges:
// a road vertex's three or four edges are relaxed at once, not one after another.
#ifndef RG_LANES
#define RG_LANES 4
#endif  // a copied edge whose head is in another region

#define RG_UNREACHED 0xffffffffu  // a label no path has lowered (reads as -1 when an int)

// ctl[] word 3 (region_queue.cuh's RQ_* are the others)
#define RG_LEVELS 3       // the largest distance + 1
