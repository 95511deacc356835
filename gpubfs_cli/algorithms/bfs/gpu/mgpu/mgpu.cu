// mgpu.bfs's kernels: one rank's part of a level of direction-optimizing BFS over p
// GPUs. Each rank owns the vertices [lo, hi) (lo a multiple of 32) with their out-edges
// (and in-edges, for bottom-up steps); every rank holds the same two n-bit bitmaps,
// `known` (visited) and `front` (the level's frontier). A level is, over NCCL,
//   queue -> step -> all-reduce(x) -> [parents] -> apply -> all-reduce(counts) -> publish
// and, peer to peer (GPUs of one host that map each other's memory),
//   queue -> step (its last block signals) -> [p2p_gather -> parents]
//         -> apply (gathers itself without parents; its last block sends the counts)
//         -> publish (waits for the peers' counts)
// Each step is a phase (a __device__ function) run by a kernel of its own on each rank's
// stream (rank.py: launched one by one or as one CUDA graph a level) or, peer to peer,
// by mgpu_levels: every level in one cooperative launch, the phases between grid
// barriers. The direction, the level and the end of the search live in device memory
// (ctl[]): the host launches and polls the page-locked word publish() writes.
#include "mgpu.cuh"
#include "bottom_up.cuh"
#include "persistent.cuh"  // GPUBFS_SHARED, GPUBFS_NOW (emulated builds: the emulator's)

#ifdef GPUBFS_EMULATE
#define MGPU_FENCE_SYSTEM() __threadfence()
#else
#define MGPU_FENCE_SYSTEM() __threadfence_system()
#endif

#define FPW (32 / MGPU_FIELD_BITS)  // exchange fields per 32-bit word
#define FIELD_MASK ((1u << MGPU_FIELD_BITS) - 1u)

__device__ __forceinline__ long long warp_id_global() {
    return (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
}
__device__ __forceinline__ long long warps_global() { return (gridDim.x * (long long)blockDim.x) >> 5; }

// Adds 1 to vertex v's exchange field (this rank found v).
__device__ __forceinline__ void mark_found(unsigned int* x, long long v) {
    atomicOr(&x[v / FPW], 1u << ((unsigned)(v % FPW) * MGPU_FIELD_BITS));
}

// ---- the peer-to-peer exchange -----------------------------------------------------
// peers[r] is rank r's p2p region as this rank addresses it (its own at peers[rank]),
// null on the NCCL exchange. A writer stores its data, fences at system scope, then
// stores the tag; a reader waits for the tag, fences, then loads the data. The two waits
// of a level (p2p_gather for the fields, publish for the counts) are two barriers, which
// is what lets each rank keep one x and one set of counts: a rank rewrites its x (queue)
// only after publish saw every peer's counts, sent after that peer had read the x.

__device__ __forceinline__ volatile long long* inbox_of(const long long* peers, int r) {
    return reinterpret_cast<volatile long long*>(peers[r]);
}
__device__ __forceinline__ unsigned int* x_of(const long long* peers, int r) {
    return reinterpret_cast<unsigned int*>(peers[r] + INBOX_WORDS * (long long)sizeof(long long));
}

// Until inbox[base + r] >= target for every peer r. False once the host set PUB_ABORT or
// timeout_ns passed: the search is then over on this rank (CTL_FAILED, CTL_DONE), and
// publish() tells the host.
__device__ bool wait_peers(const long long* peers, int rank, int ranks, int base, long long target,
                           long long pub_addr, long long timeout_ns, long long* ctl) {
    volatile long long* inbox = inbox_of(peers, rank);
    volatile const long long* pub = reinterpret_cast<volatile const long long*>(pub_addr);
    const unsigned long long t0 = GPUBFS_NOW();
    for (int r = 0; r < ranks; ++r) {
        if (r == rank) continue;
        unsigned int spins = 0;
        while (inbox[base + r] < target) {
            if ((++spins & 1023u) == 0 && (pub[PUB_ABORT] || GPUBFS_NOW() - t0 > (unsigned long long)timeout_ns)) {
                ctl[CTL_FAILED] = 1;
                ctl[CTL_DONE] = 1;
                return false;
            }
        }
    }
    if (ranks > 1) MGPU_FENCE_SYSTEM();
    return true;
}

// This rank's x of the level is complete: the next signal into every peer's inbox.
__device__ void signal_x(const long long* peers, int rank, int ranks, long long* sync) {
    const long long s = sync[SYNC_X] + 1;
    sync[SYNC_X] = s;
    if (ranks == 1) return;  // no peer to tell (and no fence to pay)
    MGPU_FENCE_SYSTEM();
    for (int r = 0; r < ranks; ++r)
        if (r != rank) inbox_of(peers, r)[INBOX_SYNC + rank] = s;
}

// This rank's counts into every peer's inbox, then the tag.
__device__ void put_counts(const long long* peers, int rank, int ranks, long long* sync, long long nf, long long mf) {
    const long long s = sync[SYNC_CNT] + 1;
    sync[SYNC_CNT] = s;
    if (ranks == 1) return;
    for (int r = 0; r < ranks; ++r) {
        if (r == rank) continue;
        inbox_of(peers, r)[INBOX_CNT + 2 * rank + CNT_NF] = nf;
        inbox_of(peers, r)[INBOX_CNT + 2 * rank + CNT_MF] = mf;
    }
    MGPU_FENCE_SYSTEM();
    for (int r = 0; r < ranks; ++r)
        if (r != rank) inbox_of(peers, r)[INBOX_TAG + rank] = s;
}

// True in one thread of the last block of the grid to get here (every thread of the
// block calls it): what the other blocks wrote before is then visible to it.
__device__ bool last_block(long long* sync) {
    GPUBFS_SHARED(int, last);
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        const unsigned long long done =
            atomicAdd(reinterpret_cast<unsigned long long*>(&sync[SYNC_BLOCKS]), 1ull);
        last = done == gridDim.x - 1;
        if (last) sync[SYNC_BLOCKS] = 0;
    }
    __syncthreads();
    return last && threadIdx.x == 0;
}

// Called by every thread of a block: true once every peer signalled its x of the level
// complete (one thread waits, the block follows); false if that wait gave up.
__device__ bool block_waits_for_signals(const long long* peers, int rank, int ranks, const long long* sync,
                                        long long pub_addr, long long timeout_ns, long long* ctl) {
    GPUBFS_SHARED(int, ok);  // read before a later barrier of the kernel can reuse the storage
    if (threadIdx.x == 0) ok = wait_peers(peers, rank, ranks, INBOX_SYNC, sync[SYNC_X], pub_addr, timeout_ns, ctl);
    __syncthreads();
    return ok;
}

// Word i of every rank's x, ORed (read in place, each rank's own included).
__device__ __forceinline__ unsigned int or_of_peers(const long long* peers, int ranks, long long i) {
    unsigned int v = 0;
    for (int r = 0; r < ranks; ++r) v |= __ldcg(x_of(peers, r) + i);
    return v;
}

// Every array of a traversal to its initial state.
extern "C" __global__ void mgpu_clear(unsigned int* known, unsigned int* front, long long words,
                                      unsigned int* x, long long x_words, int* dist, int* parent,
                                      long long count) {
    const long long step = gridDim.x * (long long)blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < words; i += step) {
        known[i] = 0;
        front[i] = 0;
    }
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < x_words; i += step) x[i] = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += step) {
        dist[i] = -1;
        if (parent) parent[i] = -1;
    }
}

// The source (read from the host word the host wrote before launching) is the level-0
// frontier; its owner counts it. One thread.
extern "C" __global__ void mgpu_source(long long pub_addr, long long lo, long long hi, const long long* off,
                                       unsigned int* known, unsigned int* front, int* dist, int* parent,
                                       long long* ctl, long long* part, long long m_total, const long long* peers,
                                       int rank, int ranks, long long* sync) {
    if (blockIdx.x || threadIdx.x) return;
    const long long s = reinterpret_cast<volatile const long long*>(pub_addr)[PUB_SOURCE];
    known[s >> 5] |= 1u << (s & 31);
    front[s >> 5] |= 1u << (s & 31);
    part[CNT_NF] = 0;
    part[CNT_MF] = 0;
    if (s >= lo && s < hi) {
        const long long l = s - lo;
        dist[l] = 0;
        if (parent) parent[l] = (int)s;
        part[CNT_NF] = 1;
        part[CNT_MF] = off[l + 1] - off[l];
    }
    for (int i = 0; i < CTL_WORDS; ++i) ctl[i] = 0;
    ctl[CTL_DIR] = MGPU_TOP_DOWN;
    ctl[CTL_MU] = m_total;
    if (peers) put_counts(peers, rank, ranks, sync, part[CNT_NF], part[CNT_MF]);
}

// Top-down levels: the owned frontier vertices as tasks of at most MGPU_CHUNK edges
// (task = local vertex, chunk index), one warp per 32-vertex word, one atomic per warp.
// `xclear` (the peer-to-peer exchange's x, else null): cleared first, since the peers
// have read the last level's by now (publish waited for their counts, sent after).
__device__ __forceinline__ void queue_phase(const unsigned int* front, long long lo, long long hi,
                                      const long long* off, long long* ctl, int* tasks, unsigned int* xclear,
                                      long long x_words) {
    if (ctl[CTL_DONE]) return;
    if (xclear) {
        const long long step = gridDim.x * (long long)blockDim.x;
        for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < x_words; i += step) xclear[i] = 0;
    }
    if (ctl[CTL_DIR] != MGPU_TOP_DOWN) return;
    const int lane = threadIdx.x & 31;
    const long long last = (hi + 31) >> 5;
    // A warp reads 32 words at once and queues the non-empty ones one after another (a
    // word a warp step would leave the scan bound by one load's latency per word).
    for (long long first = (lo >> 5) + 32 * warp_id_global(); first < last; first += 32 * warps_global()) {
        const unsigned int mine = first + lane < last ? front[first + lane] : 0u;
        for (unsigned int busy = __ballot_sync(GPUBFS_FULL_MASK, mine != 0); busy; busy &= busy - 1) {
            const int j = __ffs(busy) - 1;
            const unsigned int f = __shfl_sync(GPUBFS_FULL_MASK, mine, j);
            const long long v = ((first + j) << 5) + lane;
            int k = 0;
            if (((f >> lane) & 1u) && v < hi) {
                const long long d = off[v - lo + 1] - off[v - lo];
                k = (int)((d + MGPU_CHUNK - 1) / MGPU_CHUNK);
            }
            int total;
            const int before = warp_exclusive_scan(k, &total);
            unsigned long long at = 0;
            if (lane == 0 && total)
                at = atomicAdd(reinterpret_cast<unsigned long long*>(&ctl[CTL_TASKS]), (unsigned long long)total);
            at = __shfl_sync(GPUBFS_FULL_MASK, at, 0);
            for (int i = 0; i < k; ++i) {
                const long long t = (long long)at + before + i;
                tasks[2 * t] = (int)(v - lo);
                tasks[2 * t + 1] = i;
            }
        }
    }
}

// One level's work on this rank.
// Top-down: a warp per task; a neighbour not yet known is claimed in `known` (exact
// test-and-set) and marked in x; an owned one is labelled at once.
// Bottom-up: a warp per owned 32-vertex word, a lane per unvisited vertex scanning its
// in-edges for a frontier vertex, stopping at the first; past thread_edges in-edges the
// warp scans the list together (bottom_up.cuh).
__device__ __forceinline__ void step_phase(long long lo, long long hi, const long long* off, const int* col,
                                     const long long* in_off, const int* in_col, unsigned int* known,
                                     const unsigned int* front, unsigned int* x, int* dist, int* parent,
                                     const long long* ctl, const int* tasks, const long long* peers, int rank,
                                     int ranks, long long* sync, int thread_edges) {
    if (ctl[CTL_DONE]) return;
    const int next = (int)ctl[CTL_LEVEL] + 1;
    const int lane = threadIdx.x & 31;
    if (ctl[CTL_DIR] == MGPU_TOP_DOWN) {
        const long long count = ctl[CTL_TASKS];
        for (long long t = warp_id_global(); t < count; t += warps_global()) {
            const int lv = tasks[2 * t];
            const long long b = off[lv] + (long long)tasks[2 * t + 1] * MGPU_CHUNK;
            const long long e = min(b + (long long)MGPU_CHUNK, off[lv + 1]);
            for (long long i = b + lane; i < e; i += 32) {
                const int u = col[i];
                const unsigned int bit = 1u << (u & 31);
                if (__ldcg(&known[u >> 5]) & bit) continue;
                if (atomicOr(&known[u >> 5], bit) & bit) continue;
                mark_found(x, u);
                if (u >= lo && u < hi) {
                    dist[u - lo] = next;
                    if (parent) parent[u - lo] = (int)(lo + lv);
                }
            }
        }
    } else {
        const long long last = (hi + 31) >> 5;
        for (long long w = (lo >> 5) + warp_id_global(); w < last; w += warps_global()) {
            const long long v = (w << 5) + lane;  // w's vertices are all this rank's (lo % 32 == 0)
            const bool want = v < hi && !((known[w] >> lane) & 1u);
            const long long l = v - lo;
            long long s = 0, e = 0;
            if (want) {
                s = in_off[l];
                e = in_off[l + 1];
            }
            const long long k = bottom_up_search<long long>(want, s, e, in_col, front, thread_edges);
            if (k < e) {
                dist[l] = next;
                if (parent) parent[l] = in_col[k];
            }
#if MGPU_FIELD_BITS == 1
            const unsigned int got = __ballot_sync(GPUBFS_FULL_MASK, k < e);  // word w of x is this warp's alone
            if (lane == 0 && got) atomicOr(&x[w], got);
#else
            if (k < e) mark_found(x, v);
#endif
        }
    }
    if (peers && last_block(sync)) signal_x(peers, rank, ranks, sync);
}

// After the exchange of a top-down level (parents asked for): an owned vertex another
// rank found has no parent yet; any in-neighbour in the level's frontier is one.
__device__ __forceinline__ void parents_phase(long long lo, long long hi, const long long* in_off, const int* in_col,
                                        const unsigned int* front, const unsigned int* x, int* dist, int* parent,
                                        const long long* ctl) {
    if (ctl[CTL_DONE] || ctl[CTL_DIR] != MGPU_TOP_DOWN) return;
    const int next = (int)ctl[CTL_LEVEL] + 1;
    const long long step = gridDim.x * (long long)blockDim.x;
    for (long long v = lo + blockIdx.x * (long long)blockDim.x + threadIdx.x; v < hi; v += step) {
        if (!((x[v / FPW] >> ((unsigned)(v % FPW) * MGPU_FIELD_BITS)) & FIELD_MASK)) continue;
        const long long l = v - lo;
        if (parent[l] >= 0) continue;
        for (long long i = in_off[l]; i < in_off[l + 1]; ++i) {
            const int u = in_col[i];
            if ((front[u >> 5] >> (u & 31)) & 1u) {
                parent[l] = u;
                dist[l] = next;
                break;
            }
        }
    }
}

// After the exchange: a non-zero field is a vertex found this level by some rank. The
// new frontier replaces `front`, joins `known`, and x is cleared for the next level;
// owned new vertices are labelled and counted (vertices, out-edges) into part[].
// With `gather` (peer to peer, no parents asked for) apply does p2p_gather's part itself:
// it waits for the peers' signals and ORs their one-bit fields in place, one kernel
// fewer a level.
__device__ __forceinline__ void apply_phase(long long lo, long long hi, long long words, const long long* off,
                                      unsigned int* known, unsigned int* front, unsigned int* x, int* dist,
                                      long long* ctl, long long* part, const long long* peers, int rank,
                                      int ranks, long long* sync, int gather, long long pub_addr,
                                      long long timeout_ns) {
    if (ctl[CTL_DONE]) return;
    if (gather && !block_waits_for_signals(peers, rank, ranks, sync, pub_addr, timeout_ns, ctl)) return;
    const int next = (int)ctl[CTL_LEVEL] + 1;
    const int lane = threadIdx.x & 31;
    long long nf = 0, mf = 0;
    // A warp takes 32 words, a lane a word; then the owned vertices of each non-empty
    // word, a lane a vertex, so the labels and offsets are read 32 in a row.
    for (long long first = 32 * warp_id_global(); first < words; first += 32 * warps_global()) {
        const long long w = first + lane;
        unsigned int f = 0;
        if (w < words) {
#if MGPU_FIELD_BITS == 1
            if (gather) {
                f = or_of_peers(peers, ranks, w);
            } else {
                f = x[w];
                if (f) x[w] = 0;
            }
#else
#pragma unroll
            for (int j = 0; j < MGPU_FIELD_BITS; ++j) {
                const unsigned int xw = x[w * MGPU_FIELD_BITS + j];
                if (!xw) continue;
                x[w * MGPU_FIELD_BITS + j] = 0;
                for (int i = 0; i < FPW; ++i)
                    if ((xw >> (i * MGPU_FIELD_BITS)) & FIELD_MASK) f |= 1u << (j * FPW + i);
            }
#endif
            front[w] = f;
            if (f) known[w] |= f;
        }
        if (((first + 32) << 5) <= lo || (first << 5) >= hi) continue;  // none of the 32 words is this rank's
        for (unsigned int busy = __ballot_sync(GPUBFS_FULL_MASK, f != 0); busy; busy &= busy - 1) {
            const int j = __ffs(busy) - 1;
            const unsigned int fj = __shfl_sync(GPUBFS_FULL_MASK, f, j);
            const long long v = ((first + j) << 5) + lane;
            if (((fj >> lane) & 1u) && v >= lo && v < hi) {
                const long long l = v - lo;
                if (dist[l] < 0) dist[l] = next;
                nf += 1;
                mf += off[l + 1] - off[l];
            }
        }
    }
    nf = warp_sum_t<long long>(nf);
    mf = warp_sum_t<long long>(mf);
    if ((threadIdx.x & 31) == 0 && (nf || mf)) {
        atomicAdd(reinterpret_cast<unsigned long long*>(&part[CNT_NF]), (unsigned long long)nf);
        atomicAdd(reinterpret_cast<unsigned long long*>(&part[CNT_MF]), (unsigned long long)mf);
    }
    if (peers && last_block(sync)) {
        volatile const long long* total = part;  // the other blocks' sums, at L2
        put_counts(peers, rank, ranks, sync, total[CNT_NF], total[CNT_MF]);
    }
}

// One thread, after the counts' all-reduce: the level's history, m_u, the end of the
// search, Beamer's switch for the next level (alpha, beta in thousandths; `growth`: to
// bottom-up only while the frontier grows, back only while it shrinks), then the
// publication the host polls. `advance` is 0 after the source (no level ran yet).
// On the peer-to-peer exchange (peers non-null) it first waits for the peers' counts and
// sums them with part[] into counts[]. With `announce` 0 (the device loop: no host waits
// on a level) only the last publication, or a failure, goes to the host.
__device__ __forceinline__ void publish_phase(long long pub_addr, long long* ctl, long long* counts,
                                        long long* part, long long* hist, long long hist_cap, long long n,
                                        long long alpha_milli, long long beta_milli, int growth, int advance,
                                        const long long* peers, int rank, int ranks, const long long* sync,
                                        long long timeout_ns, int announce) {
    if (blockIdx.x || threadIdx.x) return;
    volatile long long* pub = reinterpret_cast<volatile long long*>(pub_addr);
    if (peers && !ctl[CTL_DONE] &&
        wait_peers(peers, rank, ranks, INBOX_TAG, sync[SYNC_CNT], pub_addr, timeout_ns, ctl)) {
        volatile long long* inbox = inbox_of(peers, rank);
        long long nf = part[CNT_NF], mf = part[CNT_MF];
        for (int r = 0; r < ranks; ++r) {
            if (r == rank) continue;
            nf += inbox[INBOX_CNT + 2 * r + CNT_NF];
            mf += inbox[INBOX_CNT + 2 * r + CNT_MF];
        }
        counts[CNT_NF] = nf;
        counts[CNT_MF] = mf;
    }
    if (ctl[CTL_FAILED]) pub[PUB_FAILED] = 1;
    const long long nf = counts[CNT_NF], mf = counts[CNT_MF];
    part[CNT_NF] = 0;
    part[CNT_MF] = 0;
    ctl[CTL_TASKS] = 0;
    if (!ctl[CTL_DONE]) {
        long long level = ctl[CTL_LEVEL];
        const long long dir = ctl[CTL_DIR];
        if (advance) {
            if (level < hist_cap) {
                hist[2 * level] = nf;
                hist[2 * level + 1] = dir;
            }
            if (dir == MGPU_BOTTOM_UP) ctl[CTL_BU_LEVELS] += 1;
            ctl[CTL_LEVEL] = level + 1;
        }
        const long long mu = ctl[CTL_MU] - mf;
        ctl[CTL_MU] = mu;
        if (nf == 0) {
            ctl[CTL_DONE] = 1;
        } else {
            const long long prev = ctl[CTL_PREV_NF];
            long long to = dir;
            if (dir == MGPU_TOP_DOWN) {
                if (alpha_milli > 0 && mf * alpha_milli > mu * MGPU_MILLI && (!growth || nf > prev))
                    to = MGPU_BOTTOM_UP;
            } else if (nf * beta_milli < n * MGPU_MILLI && (!growth || nf < prev)) {
                to = MGPU_TOP_DOWN;
            }
            if (to != dir) ctl[CTL_SWITCHES] += 1;
            ctl[CTL_DIR] = to;
            ctl[CTL_PREV_NF] = nf;
        }
    }
    if (!announce && !ctl[CTL_DONE]) return;
    const long long seq = pub[PUB_SEQ] + 1;
    pub[PUB_NF + seq % PUB_RING] = ctl[CTL_DONE] ? 0 : nf;
    MGPU_FENCE_SYSTEM();
    pub[PUB_SEQ] = seq;
    MGPU_FENCE_SYSTEM();
}

// ---- the peer-to-peer exchange's own kernels ----------------------------------------

// Once every peer's x of the level is complete (step's signal): xs = the OR of every
// rank's x, read in place (a field is non-zero where some rank found the vertex, as the
// NCCL sum leaves it).
__device__ __forceinline__ void p2p_gather_phase(const long long* peers, int rank, int ranks, const long long* sync,
                                           unsigned int* xs, long long x_words, long long pub_addr,
                                           long long timeout_ns, long long* ctl) {
    if (ctl[CTL_DONE] || !block_waits_for_signals(peers, rank, ranks, sync, pub_addr, timeout_ns, ctl)) return;
    const long long step = gridDim.x * (long long)blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < x_words; i += step)
        xs[i] = or_of_peers(peers, ranks, i);
}

// One thread, before a traversal's start event: every rank reaches this point, so no
// rank's time includes waiting for another to be told to start. A wait that gives up
// sets PUB_FAILED.
extern "C" __global__ void mgpu_p2p_barrier(const long long* peers, int rank, int ranks, long long* sync,
                                            long long pub_addr, long long timeout_ns, long long* ctl) {
    if (blockIdx.x || threadIdx.x) return;
    signal_x(peers, rank, ranks, sync);
    if (!wait_peers(peers, rank, ranks, INBOX_SYNC, sync[SYNC_X], pub_addr, timeout_ns, ctl))
        reinterpret_cast<volatile long long*>(pub_addr)[PUB_FAILED] = 1;
}

// ---- the level's kernels: one phase each (rank.py launches them one by one or as a
// CUDA graph; over NCCL the all-reduces sit between them) ------------------------------

extern "C" __global__ void mgpu_queue(const unsigned int* front, long long lo, long long hi, const long long* off,
                                      long long* ctl, int* tasks, unsigned int* xclear, long long x_words) {
    queue_phase(front, lo, hi, off, ctl, tasks, xclear, x_words);
}

extern "C" __global__ void mgpu_step(long long lo, long long hi, const long long* off, const int* col,
                                     const long long* in_off, const int* in_col, unsigned int* known,
                                     const unsigned int* front, unsigned int* x, int* dist, int* parent,
                                     const long long* ctl, const int* tasks, const long long* peers, int rank,
                                     int ranks, long long* sync, int thread_edges) {
    step_phase(lo, hi, off, col, in_off, in_col, known, front, x, dist, parent, ctl, tasks, peers, rank, ranks, sync,
               thread_edges);
}

extern "C" __global__ void mgpu_parents(long long lo, long long hi, const long long* in_off, const int* in_col,
                                        const unsigned int* front, const unsigned int* x, int* dist, int* parent,
                                        const long long* ctl) {
    parents_phase(lo, hi, in_off, in_col, front, x, dist, parent, ctl);
}

extern "C" __global__ void mgpu_apply(long long lo, long long hi, long long words, const long long* off,
                                      unsigned int* known, unsigned int* front, unsigned int* x, int* dist,
                                      long long* ctl, long long* part, const long long* peers, int rank,
                                      int ranks, long long* sync, int gather, long long pub_addr,
                                      long long timeout_ns) {
    apply_phase(lo, hi, words, off, known, front, x, dist, ctl, part, peers, rank, ranks, sync, gather, pub_addr,
                timeout_ns);
}

extern "C" __global__ void mgpu_publish(long long pub_addr, long long* ctl, long long* counts, long long* part,
                                        long long* hist, long long hist_cap, long long n, long long alpha_milli,
                                        long long beta_milli, int growth, int advance, const long long* peers,
                                        int rank, int ranks, const long long* sync, long long timeout_ns) {
    publish_phase(pub_addr, ctl, counts, part, hist, hist_cap, n, alpha_milli, beta_milli, growth, advance, peers,
                  rank, ranks, sync, timeout_ns, 1);
}

extern "C" __global__ void mgpu_p2p_gather(const long long* peers, int rank, int ranks, const long long* sync,
                                           unsigned int* xs, long long x_words, long long pub_addr,
                                           long long timeout_ns, long long* ctl) {
    p2p_gather_phase(peers, rank, ranks, sync, xs, x_words, pub_addr, timeout_ns, ctl);
}

// ---- the level loop on the device ----------------------------------------------------
// Every level after the source's in one cooperative launch (the peer-to-peer exchange,
// one rank or several): the kernels above as phases between grid barriers, so a level
// costs barriers and the peers' flags instead of a launch and a host round trip. Every
// CTA reads CTL_DONE just after the same barrier (it is written only before one), so
// all of them leave the loop at the same level. xs is the gathered x (parents asked
// for), x_send the fields the peers read. Only the last level's publication reaches the
// host. At most 64 registers a thread (the launch bound): as many CTAs resident as the
// level's own kernels get, at any cta_size. With `prof` (else null), CTA 0 stamps
// %globaltimer after each barrier: MGPU_PROF_WORDS words a level (the level's start,
// then the end of each phase).
extern "C" __global__ void __launch_bounds__(1024) mgpu_levels(long long lo, long long hi, long long words, long long n, const long long* off,
                                       const int* col, const long long* in_off, const int* in_col,
                                       unsigned int* known, unsigned int* front, unsigned int* xs,
                                       unsigned int* x_send, long long x_words, int* dist, int* parent,
                                       long long* ctl, int* tasks, long long* part, long long* counts,
                                       long long* hist, long long hist_cap, long long alpha_milli,
                                       long long beta_milli, int growth, const long long* peers, int rank,
                                       int ranks, long long* sync, long long pub_addr, long long timeout_ns,
                                       unsigned long long* prof, int prof_cap, int thread_edges) {
    while (!__ldcg(&ctl[CTL_DONE])) {
        const int L = (int)__ldcg(&ctl[CTL_LEVEL]);
        prof_stamp<MGPU_PROF_WORDS>(prof, prof_cap, L, MGPU_PROF_START, GPUBFS_NOW());
        queue_phase(front, lo, hi, off, ctl, tasks, x_send, x_words);
        GPUBFS_GRID_SYNC();
        prof_stamp<MGPU_PROF_WORDS>(prof, prof_cap, L, MGPU_PROF_QUEUE, GPUBFS_NOW());
        step_phase(lo, hi, off, col, in_off, in_col, known, front, x_send, dist, parent, ctl, tasks, peers, rank,
                   ranks, sync, thread_edges);
        GPUBFS_GRID_SYNC();
        prof_stamp<MGPU_PROF_WORDS>(prof, prof_cap, L, MGPU_PROF_STEP, GPUBFS_NOW());
        if (parent) {
            p2p_gather_phase(peers, rank, ranks, sync, xs, x_words, pub_addr, timeout_ns, ctl);
            GPUBFS_GRID_SYNC();
            parents_phase(lo, hi, in_off, in_col, front, xs, dist, parent, ctl);
            GPUBFS_GRID_SYNC();
        }
        apply_phase(lo, hi, words, off, known, front, xs, dist, ctl, part, peers, rank, ranks, sync, !parent, pub_addr,
                    timeout_ns);
        GPUBFS_GRID_SYNC();
        prof_stamp<MGPU_PROF_WORDS>(prof, prof_cap, L, MGPU_PROF_APPLY, GPUBFS_NOW());
        publish_phase(pub_addr, ctl, counts, part, hist, hist_cap, n, alpha_milli, beta_milli, growth, 1, peers, rank,
                      ranks, sync, timeout_ns, 0);
        GPUBFS_GRID_SYNC();
        prof_stamp<MGPU_PROF_WORDS>(prof, prof_cap, L, MGPU_PROF_PUBLISH, GPUBFS_NOW());
    }
}
