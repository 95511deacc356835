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

// Inclusive scan of `x` across the 32 lanes of a warp (shuffle-based).
__device__ __forceinline__ int warp_inclusive_scan(int x) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        int y = __shfl_up_sync(GPUBFS_FULL_MASK, x, d);
        if (lane >= d) x += y;
    }
    return x;
}

// Exclusive warp scan; *total receives the warp-wide sum.
__device__ __forceinline__ int warp_exclusive_scan(int x, int* total) {
    int inc = warp_inclusive_scan(x);
    *total = __shfl_sync(GPUBFS_FULL_MASK, inc, 31);
    return inc - x;
}

// Exclusive block scan of one int per thread. `scratch` holds >= 33 ints of shared
// memory. Every thread of the block must call it. *total receives the block sum.
__device__ __forceinline__ int block_exclusive_scan(int x, int* scratch, int* total) {
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int nwarps = (blockDim.x + 31) >> 5;
    int wtotal;
    int wex = warp_exclusive_scan(x, &wtotal);
    __syncthreads();  // scratch may still be read by a previous call
    if (lane == 0) scratch[warp] = wtotal;
    __syncthreads();
    if (warp == 0) {
        int v = lane < nwarps ? scratch[lane] : 0;
        int t;
        int ex = warp_exclusive_scan(v, &t);
        if (lane < nwarps) scratch[lane] = ex;
        if (lane == 0) scratch[32] = t;
    }
    __syncthreads();
    *total = scratch[32];
    return scratch[warp] + wex;
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
