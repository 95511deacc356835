// merrill.multi_gpu's per-level kernels (Merrill et al. PPoPP'12, section 6): the
// expansion with its fused bitmask filter, and marking of vertices a rank labelled.
// merrill.cu's gathering and culling live inside its persistent kernel's State and
// cannot be called from here without editing it, so these are the smallest generic
// kernels; the bitmask helpers are the shared ones in gpu/include/common.cuh.
#include "common.cuh"

// Set the visited bit of every id in ids[0, count).
extern "C" __global__ void merrill_multi_mark(uint32_t* mask, const long long* ids, long long count) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < count) {
        long long v = ids[i];
        atomicOr(&mask[v >> 5], 1u << (v & 31));
    }
}

// One warp per frontier vertex (local row u): lanes strip-mine its list; a neighbour
// whose bit this warp sets first is appended (global id, and the parent's global id)
// with one atomicAdd per warp round. Every neighbour leaves this rank at most once per
// traversal, the paper's filter before partitioning by owner.
extern "C" __global__ void merrill_multi_expand(const long long* row_offsets, const int* col_indices,
                                                const long long* owned, const long long* frontier,
                                                long long count, uint32_t* mask, long long* out_ids,
                                                int* out_parents, int predecessors,
                                                unsigned long long* out_count) {
    long long w = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (w >= count) return;  // uniform across the warp
    long long u = frontier[w];
    long long end = row_offsets[u + 1];
    int parent = (int)owned[u];
    for (long long base = row_offsets[u]; base < end; base += 32) {
        long long e = base + lane;
        int v = 0;
        bool keep = false;
        if (e < end) {
            v = col_indices[e];
            keep = !bitmask_test(mask, v) && bitmask_test_and_set(mask, v);
        }
        unsigned ballot = __ballot_sync(GPUBFS_FULL_MASK, keep);
        if (ballot == 0) continue;
        unsigned long long first = 0;
        if (lane == 0) first = atomicAdd(out_count, (unsigned long long)__popc(ballot));
        first = __shfl_sync(GPUBFS_FULL_MASK, first, 0);
        if (keep) {
            unsigned long long at = first + __popc(ballot & ((1u << lane) - 1u));
            out_ids[at] = v;
            if (predecessors) out_parents[at] = parent;
        }
    }
}
