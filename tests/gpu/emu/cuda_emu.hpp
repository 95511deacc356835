// A small CUDA emulator for checking kernel logic on a machine without a GPU.
//
// Every CUDA thread is a fiber run by one OS thread (started with makecontext, then
// switched with GCC's __builtin_setjmp/__builtin_longjmp, which save only what the switch needs:
// no signal mask, no cleanup-handler walk, as swapcontext and libc's longjmp do). Fibers switch only at
// synchronisation points (block and warp barriers, warp collectives, grid barriers)
// and, with a seeded probability, at global-memory lookups (__ldcg, __ldca) and atomics, so
// that benign races (two lanes discovering one vertex) actually happen. Warp
// collectives require all 32 lanes, as full-mask intrinsics do on the GPU; a deadlock
// (a barrier some thread never reaches) aborts with a message.
//
// Supports what algorithms/bfs/gpu/merrill/merrill.cu uses: threadIdx/blockIdx/blockDim/gridDim .x,
// __syncthreads(_or/_count), __syncwarp, __shfl(_up/_down/_xor)_sync, __ballot_sync,
// __match_any_sync, atomics, __ldcg, __ldca, int4, ulonglong2, per-block shared storage
// (emu_block_shared<T>) and a grid barrier (emu_grid_sync).
#pragma once

#include <ucontext.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#define GPUBFS_EMULATE 1
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __restrict__ __restrict

// Function-scope `__shared__` variables, for kernel files compiled unchanged (luo.cu):
// a driver that defines EMU_STATIC_SHARED before including this header turns them into
// function statics, and the test registers their addresses (emu::statics(), read from
// the library's symbol table: GCC ignores section attributes on template statics). The
// scheduler then gives each block its own copy of them, swapped in when a fiber of
// another block runs (garbage at launch, as on the GPU). Other kernel files use
// emu_block_shared<T>() through their own macros.
#ifdef EMU_STATIC_SHARED
#define __shared__ static
#endif

struct int4 {
    int x, y, z, w;
};
inline int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
struct ulonglong2 {
    unsigned long long x, y;
};

struct EmuDim {
    unsigned int x, y, z;
};

namespace emu {

struct Barrier {
    int size = 0;
    int count = 0;
    uint64_t gen = 0;
};

// A switch point: __builtin_setjmp's five words. The jump is its own function, as
// GCC asks (__builtin_longjmp may not share a function with __builtin_setjmp).
struct JmpBuf {
    void* words[5];
};
[[gnu::noinline]] inline void jump_to(JmpBuf& b) { __builtin_longjmp(b.words, 1); }

struct Fiber {
    ucontext_t ctx;
    JmpBuf jb;
    bool started = false;
    char* stack = nullptr;  // from fiber_stack()
    EmuDim tidx{0, 0, 0};
    EmuDim bidx{0, 0, 0};
    bool done = false;
    const Barrier* waiting = nullptr;  // for the deadlock report and the scheduler
    uint64_t wait_gen = 0;             // waiting's generation when this fiber arrived
    unsigned warp_round = 0, block_round = 0;  // which half of the exchange words is next
};

struct Block {
    Barrier bar;
    std::vector<char> statics;  // this block's copy of the registered statics
    std::vector<Barrier> warp_bars;
    // Two words per thread for warp exchanges and two for block exchanges, used in turn:
    // an exchange needs one barrier, not a second to keep a fast thread's next post from
    // overwriting a word a slow one has yet to read (that post goes to the other half,
    // and the one after it waits behind the next exchange's barrier, which every thread
    // reaches only after reading this one).
    std::vector<uint64_t> warp_xchg, block_xchg;
    std::vector<char> smem;
};

struct Grid {
    EmuDim bdim{0, 1, 1};
    EmuDim gdim{0, 1, 1};
    std::vector<Fiber> fibers;
    std::vector<Block> blocks;
    Barrier grid_bar;
    ucontext_t sched;
    JmpBuf sched_jb;
    int current = -1;
    bool progress = false;
    std::function<void()> body;
    std::mt19937_64 rng{1};
    double yield_probability = 0.0;
    int statics_owner = -1;  // the block whose copy the registered statics hold
};

struct Region {
    char* begin;
    size_t size;
};

// The registered function-scope __shared__ statics (empty: nothing to swap).
inline std::vector<Region>& statics() {
    static std::vector<Region> r;
    return r;
}

inline size_t statics_bytes() {
    size_t n = 0;
    for (const Region& r : statics()) n += r.size;
    return n;
}

inline void switch_statics(Grid& g, int b) {
    if (g.statics_owner == b || statics().empty()) return;
    size_t at = 0;
    for (const Region& r : statics()) {
        if (g.statics_owner >= 0) std::memcpy(g.blocks[g.statics_owner].statics.data() + at, r.begin, r.size);
        std::memcpy(r.begin, g.blocks[b].statics.data() + at, r.size);
        at += r.size;
    }
    g.statics_owner = b;
}

constexpr size_t kStackBytes = 256 * 1024;

// Fiber stacks, kept from one launch to the next and never cleared (a real stack starts
// as garbage too): allocating and zero-filling 256 KB per thread per launch was most of
// the time of a launch that does little work.
inline char* fiber_stack(size_t i) {
    static std::vector<std::unique_ptr<char[]>> pool;
    while (pool.size() <= i) pool.emplace_back(new char[kStackBytes]);
    return pool[i].get();
}

inline Grid*& grid() {
    static Grid* g = nullptr;
    return g;
}
inline Fiber& fiber() { return grid()->fibers[grid()->current]; }
inline Block& block() { return grid()->blocks[fiber().bidx.x]; }

inline void yield() {
    if (__builtin_setjmp(fiber().jb.words) == 0) jump_to(grid()->sched_jb);
}

inline void maybe_yield() {
    Grid* g = grid();
    if (g->yield_probability > 0 &&
        std::uniform_real_distribution<double>(0, 1)(g->rng) < g->yield_probability) {
        g->progress = true;  // it ran up to here
        yield();
    }
}

inline void wait(Barrier& b) {
    Grid* g = grid();
    g->progress = true;
    uint64_t gen = b.gen;
    if (++b.count == b.size) {
        b.count = 0;
        ++b.gen;
        return;
    }
    fiber().waiting = &b;
    fiber().wait_gen = gen;
    while (b.gen == gen) yield();
    fiber().waiting = nullptr;
}

inline int lane() { return (int)(fiber().tidx.x & 31); }

inline void warp_wait() { wait(block().warp_bars[fiber().tidx.x >> 5]); }

// Each lane posts a word, the warp meets, f reads the 32 posted words.
template <class F>
inline auto warp_exchange(uint64_t mine, F f) {
    Fiber& me = fiber();
    unsigned int t = me.tidx.x;
    uint64_t* words = block().warp_xchg.data() + (me.warp_round++ & 1) * grid()->bdim.x;
    words[t] = mine;
    warp_wait();
    return f(words + (t & ~31u));
}

template <class F>
inline auto block_exchange(uint64_t mine, F f) {
    Fiber& me = fiber();
    Block& b = block();
    uint64_t* words = b.block_xchg.data() + (me.block_round++ & 1) * grid()->bdim.x;
    words[me.tidx.x] = mine;
    wait(b.bar);
    return f(words, (int)grid()->bdim.x);
}

inline void trampoline() {
    grid()->body();
    fiber().done = true;
    grid()->progress = true;
    jump_to(grid()->sched_jb);
}

// Runs body() as gridDim x blockDim fibers until all finish.
inline void launch(int blocks, int threads, std::function<void()> body, uint64_t seed = 1,
                   double yield_probability = 0.0, size_t shared_bytes = 1 << 17) {
    if (threads % 32 != 0) {
        std::fprintf(stderr, "emu: blockDim must be a multiple of 32\n");
        std::abort();
    }
    Grid g;
    g.bdim = EmuDim{(unsigned)threads, 1, 1};
    g.gdim = EmuDim{(unsigned)blocks, 1, 1};
    g.body = std::move(body);
    g.rng.seed(seed);
    g.yield_probability = yield_probability;
    g.grid_bar.size = blocks * threads;
    g.blocks.resize(blocks);
    const size_t statics_size = statics_bytes();
    for (auto& b : g.blocks) {
        b.bar.size = threads;
        b.warp_bars.resize(threads / 32);
        for (auto& w : b.warp_bars) w.size = 32;
        b.warp_xchg.assign(2 * (size_t)threads, 0);
        b.block_xchg.assign(2 * (size_t)threads, 0);
        b.smem.assign(shared_bytes, (char)0xA5);  // garbage, as on the GPU
        b.statics.assign(statics_size, (char)0xA5);
    }
    g.fibers.resize((size_t)blocks * threads);
    grid() = &g;
    for (int i = 0; i < blocks * threads; ++i) {
        Fiber& f = g.fibers[i];
        f.tidx = EmuDim{(unsigned)(i % threads), 0, 0};
        f.bidx = EmuDim{(unsigned)(i / threads), 0, 0};
        f.stack = fiber_stack(i);
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = f.stack;
        f.ctx.uc_stack.ss_size = kStackBytes;
        f.ctx.uc_link = nullptr;
        makecontext(&f.ctx, trampoline, 0);
    }
    for (;;) {
        bool all_done = true;
        g.progress = false;
        for (int i = 0; i < blocks * threads; ++i) {
            if (g.fibers[i].done) continue;
            all_done = false;
            Fiber& f = g.fibers[i];
            // Still blocked at its barrier: resumed, it would only yield again (no work, no
            // random draw), so skipping it leaves the schedule exactly as it was. Most
            // switches were these when a few threads hold up a block or the whole grid.
            if (f.waiting && f.waiting->gen == f.wait_gen) continue;
            g.current = i;
            switch_statics(g, (int)f.bidx.x);
            if (__builtin_setjmp(g.sched_jb.words) == 0) {
                if (f.started) jump_to(f.jb);
                f.started = true;
                swapcontext(&g.sched, &f.ctx);
            }
        }
        if (all_done) break;
        if (!g.progress) {
            std::fprintf(stderr, "emu: deadlock (a barrier that some thread never reaches)\n");
            for (int i = 0; i < blocks * threads; ++i) {
                const Fiber& f = g.fibers[i];
                const Block& b = g.blocks[f.bidx.x];
                const char* what = f.done ? "done"
                                   : f.waiting == &g.grid_bar ? "grid barrier"
                                   : f.waiting == &b.bar      ? "block barrier"
                                   : f.waiting                ? "warp barrier"
                                                              : "running";
                std::fprintf(stderr, "  block %u thread %u: %s\n", f.bidx.x, f.tidx.x, what);
            }
            std::abort();
        }
    }
    grid() = nullptr;
}

}  // namespace emu

#define threadIdx (emu::fiber().tidx)
#define blockIdx (emu::fiber().bidx)
#define blockDim (emu::grid()->bdim)
#define gridDim (emu::grid()->gdim)

template <class T>
inline T* emu_block_shared() {
    static_assert(sizeof(T) <= (1 << 17), "emu shared storage too small");
    return reinterpret_cast<T*>(emu::block().smem.data());
}

inline void emu_grid_sync() { emu::wait(emu::grid()->grid_bar); }
// A spinning thread (small_frontier.cuh's park loop) lets the others run; it makes no
// progress itself, so a grid where every thread spins is reported as a deadlock.
inline void emu_spin_pause() { emu::yield(); }
inline unsigned long long emu_clock() {
    static unsigned long long t = 0;
    return t += 1000;
}

inline void __syncthreads() { emu::wait(emu::block().bar); }
inline int __syncthreads_or(int p) {
    return emu::block_exchange((uint64_t)(p != 0), [](const uint64_t* v, int n) {
        int r = 0;
        for (int i = 0; i < n; ++i) r |= (int)v[i];
        return r;
    });
}
inline int __syncthreads_count(int p) {
    return emu::block_exchange((uint64_t)(p != 0), [](const uint64_t* v, int n) {
        int r = 0;
        for (int i = 0; i < n; ++i) r += (int)v[i];
        return r;
    });
}
inline void __syncwarp(unsigned int = 0xffffffffu) { emu::warp_wait(); }

template <class T>
inline uint64_t emu_bits(T v) {
    uint64_t u = 0;
    std::memcpy(&u, &v, sizeof(T));
    return u;
}
template <class T>
inline T emu_from(uint64_t u) {
    T v;
    std::memcpy(&v, &u, sizeof(T));
    return v;
}

template <class T>
inline T __shfl_sync(unsigned int, T v, int src, int width = 32) {
    int l = emu::lane();
    int s = (l & ~(width - 1)) + (src & (width - 1));
    return emu::warp_exchange(emu_bits(v), [s](const uint64_t* w) { return emu_from<T>(w[s]); });
}
template <class T>
inline T __shfl_up_sync(unsigned int, T v, unsigned int d) {
    int l = emu::lane();
    return emu::warp_exchange(emu_bits(v), [l, d, v](const uint64_t* w) {
        return l >= (int)d ? emu_from<T>(w[l - d]) : v;
    });
}
template <class T>
inline T __shfl_down_sync(unsigned int, T v, unsigned int d) {
    int l = emu::lane();
    return emu::warp_exchange(emu_bits(v), [l, d, v](const uint64_t* w) {
        return l + (int)d < 32 ? emu_from<T>(w[l + d]) : v;
    });
}
template <class T>
inline T __shfl_xor_sync(unsigned int, T v, int m) {
    int l = emu::lane();
    return emu::warp_exchange(emu_bits(v), [l, m](const uint64_t* w) { return emu_from<T>(w[l ^ m]); });
}
inline unsigned int __ballot_sync(unsigned int, int p) {
    return emu::warp_exchange((uint64_t)(p != 0), [](const uint64_t* w) {
        unsigned int r = 0;
        for (int i = 0; i < 32; ++i) r |= (unsigned int)w[i] << i;
        return r;
    });
}
inline int __any_sync(unsigned int m, int p) { return __ballot_sync(m, p) != 0; }
inline int __all_sync(unsigned int m, int p) { return __ballot_sync(m, p) == 0xffffffffu; }
template <class T>
inline unsigned int __match_any_sync(unsigned int, T v) {
    return emu::warp_exchange(emu_bits(v), [v](const uint64_t* w) {
        unsigned int r = 0;
        for (int i = 0; i < 32; ++i) r |= (unsigned int)(emu_from<T>(w[i]) == v) << i;
        return r;
    });
}

inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(unsigned int x) { return __builtin_ffs((int)x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __clz(unsigned int x) { return x ? __builtin_clz(x) : 32; }

inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }

template <class T>
inline T __ldcg(const T* p) {
    emu::maybe_yield();
    return *p;
}
template <class T>
inline T __ldca(const T* p) {
    emu::maybe_yield();
    return *p;
}
template <class T>
inline T __ldg(const T* p) {
    return *p;
}
inline void __threadfence() {}
inline void __threadfence_block() {}
inline void __nanosleep(unsigned int) {}

template <class T>
inline T emu_atomic(T* p, T v, T (*op)(T, T)) {
    emu::maybe_yield();
    T old = *p;
    *p = op(old, v);
    emu::grid()->progress = true;  // a spinning thread may be waiting for this word
    return old;
}
inline int atomicAdd(int* p, int v) { return emu_atomic<int>(p, v, [](int a, int b) { return a + b; }); }
inline unsigned int atomicAdd(unsigned int* p, unsigned int v) {
    return emu_atomic<unsigned int>(p, v, [](unsigned int a, unsigned int b) { return a + b; });
}
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    return emu_atomic<unsigned long long>(
        p, v, [](unsigned long long a, unsigned long long b) { return a + b; });
}
inline int atomicOr(int* p, int v) { return emu_atomic<int>(p, v, [](int a, int b) { return a | b; }); }
inline int atomicAnd(int* p, int v) { return emu_atomic<int>(p, v, [](int a, int b) { return a & b; }); }
inline unsigned int atomicOr(unsigned int* p, unsigned int v) {
    return emu_atomic<unsigned int>(p, v, [](unsigned int a, unsigned int b) { return a | b; });
}
inline unsigned long long atomicOr(unsigned long long* p, unsigned long long v) {
    return emu_atomic<unsigned long long>(p, v, [](unsigned long long a, unsigned long long b) { return a | b; });
}
inline int atomicMax(int* p, int v) { return emu_atomic<int>(p, v, [](int a, int b) { return a > b ? a : b; }); }
inline int atomicMin(int* p, int v) { return emu_atomic<int>(p, v, [](int a, int b) { return a < b ? a : b; }); }
inline int atomicExch(int* p, int v) { return emu_atomic<int>(p, v, [](int, int b) { return b; }); }
inline unsigned int atomicExch(unsigned int* p, unsigned int v) {
    return emu_atomic<unsigned int>(p, v, [](unsigned int, unsigned int b) { return b; });
}
template <class T>
inline T emu_cas(T* p, T cmp, T v) {
    emu::maybe_yield();
    T old = *p;
    if (old == cmp) {
        *p = v;
        emu::grid()->progress = true;
    }
    return old;
}
inline int atomicCAS(int* p, int cmp, int v) { return emu_cas<int>(p, cmp, v); }
inline unsigned int atomicCAS(unsigned int* p, unsigned int cmp, unsigned int v) {
    return emu_cas<unsigned int>(p, cmp, v);
}

// Unsigned and 64-bit min/max (algorithms/sssp/gpu/raval/raval.cu: distances as unsigned).
inline unsigned int atomicMin(unsigned int* p, unsigned int v) {
    return emu_atomic<unsigned int>(p, v, [](unsigned int a, unsigned int b) { return a < b ? a : b; });
}
inline unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
    return emu_atomic<unsigned long long>(
        p, v, [](unsigned long long a, unsigned long long b) { return a < b ? a : b; });
}
