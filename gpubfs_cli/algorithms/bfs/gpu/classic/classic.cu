// The classic "status array" BFS kernels: every level inspects every vertex
// (Harish & Narayanan's IIIT-BFS, Hong et al.'s static virtual warps) or every
// edge (edge-parallel BFS over a COO copy). No frontier queue: a vertex is in the
// frontier when its distance equals the level being expanded.
//
// Distances are written with plain stores: every writer of dist[v] in one level
// writes the same value (level + 1), so the race is benign; parent[v] ends up as
// one of the frontier vertices that reached v, any of which is a valid parent.
//
// state[0] (hong, edge): the last level that received a vertex. The kernel for
// level L returns at once when state[0] < L (the BFS ended earlier), so the host
// can launch several levels ahead and read state[0] back once per batch.
#include "common.cuh"

// dist[v] = -1 except dist[source] = 0; parent likewise (may be null); state[0] = 0.
extern "C" __global__ void classic_init(int n, int source, int* dist, int* parent, int* state) {
    const int stride = gridDim.x * blockDim.x;
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        dist[v] = v == source ? 0 : -1;
        if (parent != nullptr) parent[v] = v == source ? source : -1;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0 && state != nullptr) state[0] = 0;
}

// ---- IIIT-BFS (Harish & Narayanan, HiPC 2007): three boolean masks, two kernels
// per level, a "changed" flag the host reads after each level. ----

extern "C" __global__ void harish_init(int n, int source, int* dist, int* parent,
                                       unsigned char* frontier, unsigned char* visited,
                                       unsigned char* updating) {
    const int stride = gridDim.x * blockDim.x;
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        const bool s = v == source;
        dist[v] = s ? 0 : -1;
        if (parent != nullptr) parent[v] = s ? source : -1;
        frontier[v] = s;
        visited[v] = s;
        updating[v] = 0;
    }
}

// Kernel 1: each frontier vertex leaves the frontier and marks its unvisited
// neighbours as updating. Thread 0 also clears the flag kernel 2 will raise.
extern "C" __global__ void harish_expand(int n, int level, const long long* row_offsets,
                                         const int* col_indices, int* dist, int* parent,
                                         unsigned char* frontier, const unsigned char* visited,
                                         unsigned char* updating, int* changed) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v == 0) *changed = 0;
    if (v >= n || !frontier[v]) return;
    frontier[v] = 0;
    const long long end = row_offsets[v + 1];
    for (long long e = row_offsets[v]; e < end; ++e) {
        const int u = col_indices[e];
        if (!visited[u]) {
            dist[u] = level + 1;
            if (parent != nullptr) parent[u] = v;
            updating[u] = 1;
        }
    }
}

// Kernel 2: updating vertices become the next frontier; any of them raises `changed`.
extern "C" __global__ void harish_commit(int n, unsigned char* frontier, unsigned char* visited,
                                         unsigned char* updating, int* changed) {
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !updating[v]) return;
    frontier[v] = 1;
    visited[v] = 1;
    updating[v] = 0;
    *changed = 1;
}

// ---- Static virtual warps (Hong et al., PPoPP 2011): a group of W lanes per
// vertex, every vertex each level; the W lanes stride over the adjacency list. ----
template <int W>
__global__ void vwarp_level(int n, int level, const long long* __restrict__ row_offsets,
                            const int* __restrict__ col_indices, int* dist, int* parent,
                            int* state) {
    if (*(volatile int*)state < level) return;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long groups = ((long long)gridDim.x * blockDim.x) / W;
    const int lane = threadIdx.x % W;
    bool found = false;
    for (long long v = tid / W; v < n; v += groups) {
        if (dist[v] != level) continue;
        const long long end = row_offsets[v + 1];
        for (long long e = row_offsets[v] + lane; e < end; e += W) {
            const int u = col_indices[e];
            if (dist[u] == -1) {
                dist[u] = level + 1;
                if (parent != nullptr) parent[u] = (int)v;
                found = true;
            }
        }
    }
    // One store per warp that found something, not one per thread.
    if (__any_sync(GPUBFS_FULL_MASK, found) && (threadIdx.x & 31) == 0) state[0] = level + 1;
}

// ---- Edge-parallel BFS over COO: one thread per edge, every edge each level. ----

// src[e] = the row of edge e (upper bound of e in row_offsets, minus one).
extern "C" __global__ void coo_rows(int n, long long m, const long long* __restrict__ row_offsets,
                                    int* src) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += stride) {
        int lo = 0, hi = n;  // first row r with row_offsets[r + 1] > e
        while (lo < hi) {
            const int mid = (lo + hi) >> 1;
            if (row_offsets[mid + 1] > e) hi = mid; else lo = mid + 1;
        }
        src[e] = lo;
    }
}

extern "C" __global__ void edge_level(long long m, int level, const int* __restrict__ src,
                                      const int* __restrict__ dst, int* dist, int* parent,
                                      int* state) {
    if (*(volatile int*)state < level) return;
    const long long stride = (long long)gridDim.x * blockDim.x;
    bool found = false;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += stride) {
        const int u = src[e];
        if (dist[u] != level) continue;
        const int v = dst[e];
        if (dist[v] == -1) {
            dist[v] = level + 1;
            if (parent != nullptr) parent[v] = u;
            found = true;
        }
    }
    if (__any_sync(GPUBFS_FULL_MASK, found) && (threadIdx.x & 31) == 0) state[0] = level + 1;
}

// Explicit instantiations of every virtual-warp width the strategy offers.
#define VWARP_INSTANCE(W)                                                                   \
    template __global__ void vwarp_level<W>(int, int, const long long* __restrict__,        \
                                            const int* __restrict__, int*, int*, int*);
VWARP_INSTANCE(1)
VWARP_INSTANCE(2)
VWARP_INSTANCE(4)
VWARP_INSTANCE(8)
VWARP_INSTANCE(16)
VWARP_INSTANCE(32)
