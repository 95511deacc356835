// Shared device helpers: one source of truth for warp/block scans, bitmask ops,
// and integer types. Included by every kernel file (NVRTC and nvcc alike: no host
// headers beyond what both provide).
#pragma once

#if defined(__CUDACC_RTC__)
// NVRTC has no host headers: declare the fixed-width types ourselves.
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#else
// nvcc already includes <stdint.h> through cuda_runtime.h; redeclaring clashes with it.
#include <stdint.h>
#endif

#define GPUBFS_WARP 32
#define GPUBFS_FULL_MASK 0xffffffffu

// Starts bringing p's line to this SM's L1 and does not wait for it (no register held):
// a one-CTA loop's next step then finds it there.
__device__ __forceinline__ void prefetch_l1(const void* p) {
#ifdef GPUBFS_EMULATE
    (void)p;
#else
    asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
#endif
}

// Inclusive scan of `x` across the 32 lanes of a warp (shuffle-based). The templates
// are the one implementation, for any integer type (lbbfs scans packed 64-bit words);
// the int functions below are what most kernels call.
template <class T>
__device__ __forceinline__ T warp_inclusive_scan_t(T x) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        T y = __shfl_up_sync(GPUBFS_FULL_MASK, x, d);
        if (lane >= d) x += y;
    }
    return x;
}

// Exclusive warp scan; *total receives the warp-wide sum.
template <class T>
__device__ __forceinline__ T warp_exclusive_scan_t(T x, T* total) {
    T inc = warp_inclusive_scan_t<T>(x);
    *total = __shfl_sync(GPUBFS_FULL_MASK, inc, 31);
    return inc - x;
}

// Exclusive block scan of one value per thread. `scratch` holds >= 33 values of shared
// memory. Every thread of the block must call it. *total receives the block sum.
template <class T>
__device__ __forceinline__ T block_exclusive_scan_t(T x, T* scratch, T* total) {
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int nwarps = (blockDim.x + 31) >> 5;
    T wtotal;
    T wex = warp_exclusive_scan_t<T>(x, &wtotal);
    __syncthreads();  // scratch may still be read by a previous call
    if (lane == 0) scratch[warp] = wtotal;
    __syncthreads();
    if (warp == 0) {
        T v = lane < nwarps ? scratch[lane] : T(0);
        T t;
        T ex = warp_exclusive_scan_t<T>(v, &t);
        if (lane < nwarps) scratch[lane] = ex;
        if (lane == 0) scratch[32] = t;
    }
    __syncthreads();
    *total = scratch[32];
    return scratch[warp] + wex;
}

__device__ __forceinline__ int warp_inclusive_scan(int x) { return warp_inclusive_scan_t<int>(x); }

__device__ __forceinline__ int warp_exclusive_scan(int x, int* total) {
    return warp_exclusive_scan_t<int>(x, total);
}

__device__ __forceinline__ int block_exclusive_scan(int x, int* scratch, int* total) {
    return block_exclusive_scan_t<int>(x, scratch, total);
}

// Binary variant of the exclusive warp scan (BFS-4K section 5.1, after Harris and
// Garland): when each lane contributes 0 or 1, a ballot and a population count replace
// the shuffles. *total receives the number of lanes whose flag is set.
__device__ __forceinline__ int warp_binary_exclusive_scan(bool flag, int* total) {
    const unsigned int set = __ballot_sync(GPUBFS_FULL_MASK, flag);
    *total = __popc(set);
    return __popc(set & ((1u << (threadIdx.x & 31)) - 1u));
}

__device__ __forceinline__ int lane_id() { return threadIdx.x & 31; }

// Butterfly reductions across the 32 lanes of a warp: every lane receives the result.
__device__ __forceinline__ int warp_sum(int x) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) x += __shfl_xor_sync(GPUBFS_FULL_MASK, x, d);
    return x;
}

__device__ __forceinline__ int warp_max(int x) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) x = max(x, __shfl_xor_sync(GPUBFS_FULL_MASK, x, d));
    return x;
}

__device__ __forceinline__ int warp_min(int x) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) x = min(x, __shfl_xor_sync(GPUBFS_FULL_MASK, x, d));
    return x;
}

// Visited bitmask: one bit per vertex, 32 vertices per word.
__device__ __forceinline__ bool bitmask_test(const uint32_t* mask, int v) {
    return (mask[v >> 5] >> (v & 31)) & 1u;
}

// Sets v's bit; returns true if this call set it (it was clear before).
__device__ __forceinline__ bool bitmask_test_and_set(uint32_t* mask, int v) {
    uint32_t bit = 1u << (v & 31);
    return (atomicOr(&mask[v >> 5], bit) & bit) == 0;
}

// Warp-aggregated atomic (warp-converged): the lowest lane of the ballot `m` adds `add`
// to *counter for the whole warp, and every lane gets the old value back. A lane set in
// `m` takes position base + lane_rank(m) of what the warp reserved.
template <class T>
__device__ __forceinline__ T warp_leader_add(T* counter, unsigned int m, T add) {
    const int leader = __ffs(m) - 1;
    T base = 0;
    if (lane_id() == leader) base = atomicAdd(counter, add);
    return __shfl_sync(GPUBFS_FULL_MASK, base, leader);
}

// The lanes of `m` below this one.
__device__ __forceinline__ int lane_rank(unsigned int m) { return __popc(m & ((1u << lane_id()) - 1u)); }

// Butterfly sum for any integer type (64-bit counts of edges).
template <class T>
__device__ __forceinline__ T warp_sum_t(T x) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) x += __shfl_xor_sync(GPUBFS_FULL_MASK, x, d);
    return x;
}
