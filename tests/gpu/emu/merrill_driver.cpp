// Runs algorithms/bfs/gpu/merrill/merrill.cu under the CPU emulator (cuda_emu.hpp) with the host
// protocol of algorithms/bfs/gpu/merrill/strategies.py: fresh (poisoned) buffers and one
// launch per source; a queue that overflows reruns with CULL_ATOMIC inside the launch.
//
// usage: merrill_driver IN OUT
// IN  (int32 words): n m nsrc strategy gather culling pred grid_threshold
//     switch_threshold (strategies.switch_threshold's, capped at INT32_MAX) blocks seed
//     yield_permille vq_cap eq_cap big_cap counter_cap claim_threshold small_threshold count,
//     then row[n+1], col[m], sources[nsrc]
// OUT (int32 words) per source: iterations passes (2: rerun) dist[n] parent[n]
//     counters[3 * counter_cap] (as the kernel left them: garbage when count is 0)
// usage: merrill_driver layout OUT
// OUT (text): MerrillParams's fields as compiled, one "name offset" a line, then
//     "sizeof size" (the tests compare strategies.py's PARAMS with it)
#include "cuda_emu.hpp"
#include "merrill.cu"

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace {

std::vector<int> read_ints(const char* path) {
    std::vector<int> out;
    FILE* f = std::fopen(path, "rb");
    if (!f) {
        std::perror(path);
        std::exit(2);
    }
    int buf[4096];
    size_t k;
    while ((k = std::fread(buf, sizeof(int), 4096, f)) > 0) out.insert(out.end(), buf, buf + k);
    std::fclose(f);
    return out;
}

template <bool V, int G, bool P, bool C, bool S>
void launch(int blocks, uint64_t seed, double yp, const int* row, const int* col, const MerrillParams& params,
            int src, int culling) {
    emu::launch(blocks, MERRILL_BLOCK, [&] { merrill_bfs<V, G, P, C, S>(row, col, params, src, culling); }, seed,
                yp);
}

// The instantiation strategies.py picks: expand-contract's vertex frontier, or the edge
// frontier the others share (their switch threshold, given, tells them apart).
template <bool P, bool C, bool S>
void dispatch(int strategy, int gather, int blocks, uint64_t seed, double yp, const int* row, const int* col,
              const MerrillParams& params, int src, int culling) {
#define MERRILL_EMU_G(V)                                                                    \
    if (gather == 0) launch<V, 0, P, C, S>(blocks, seed, yp, row, col, params, src, culling); \
    if (gather == 1) launch<V, 1, P, C, S>(blocks, seed, yp, row, col, params, src, culling); \
    if (gather == 2) launch<V, 2, P, C, S>(blocks, seed, yp, row, col, params, src, culling); \
    if (gather == 3) launch<V, 3, P, C, S>(blocks, seed, yp, row, col, params, src, culling);
    if (strategy == STRAT_EXPAND_CONTRACT) {
        MERRILL_EMU_G(true)
    } else {
        MERRILL_EMU_G(false)
    }
#undef MERRILL_EMU_G
}

#define MERRILL_FIELDS(X)                                                                             \
    X(dist) X(parent) X(bitmask) X(vq0) X(vq1) X(eq0) X(eq1) X(ep0) X(ep1) X(big0)       \
        X(big1) X(ctl) X(big_ctl) X(counters) X(claimed) X(prof) X(switch_threshold) X(n) X(vq_cap)   \
            X(eq_cap) X(big_cap) X(counter_cap) X(grid_threshold) X(claim_threshold) X(prof_cap)      \
                X(small_threshold)

int write_layout(const char* path) {
    FILE* out = std::fopen(path, "w");
    if (!out) return 2;
#define MERRILL_FIELD(f) std::fprintf(out, "%s %zu\n", #f, offsetof(MerrillParams, f));
    MERRILL_FIELDS(MERRILL_FIELD)
#undef MERRILL_FIELD
    std::fprintf(out, "sizeof %zu\n", sizeof(MerrillParams));
    std::fclose(out);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: merrill_driver IN OUT | merrill_driver layout OUT\n");
        return 2;
    }
    if (std::string(argv[1]) == "layout") return write_layout(argv[2]);
    std::vector<int> in = read_ints(argv[1]);
    const int n = in[0], m = in[1], nsrc = in[2], strategy = in[3], gather = in[4],
              culling = in[5], pred = in[6], grid_threshold = in[7], switch_threshold = in[8],
              blocks = in[9], seed = in[10], yield_permille = in[11], vq_cap = in[12],
              eq_cap = in[13], big_cap = in[14], counter_cap = in[15], claim_threshold = in[16],
              small_threshold = in[17], count = in[18];
    const int* row = &in[19];
    const int* col = row + n + 1;
    const int* sources = col + m;
    FILE* out = std::fopen(argv[2], "wb");
    const double yp = yield_permille / 1000.0;

    for (int s = 0; s < nsrc; ++s) {
        std::vector<int> dist, parent, ctl, counters;
        {
            dist.assign(n, 0x5A5A5A5A);
            parent.assign(n, 0x5A5A5A5A);
            std::vector<unsigned int> bitmask((n + 31) / 32, 0xA5A5A5A5u), claimed(bitmask);
            std::vector<int> vq0(vq_cap, -7), vq1(vq_cap, -7), eq0(eq_cap, -7), eq1(eq_cap, -7),
                ep0(eq_cap, -7), ep1(eq_cap, -7);
            std::vector<int4> big0(big_cap, int4{-7, -7, -7, -7}), big1(big0);
            ctl.assign(CTL_WORDS, 0x5A5A5A5A);
            std::vector<unsigned long long> big_ctl(3, 0x5A5A5A5A5A5A5A5Aull);
            counters.assign((size_t)CNT_KINDS * counter_cap, 0x5A5A5A5A);
            std::vector<unsigned long long> prof((size_t)PROF_WORDS * (n + 2), 0);
            MerrillParams params{};
            params.dist = dist.data();
            params.parent = parent.data();
            params.bitmask = bitmask.data();
            params.vq0 = vq0.data();
            params.vq1 = vq1.data();
            params.eq0 = eq0.data();
            params.eq1 = eq1.data();
            params.ep0 = ep0.data();
            params.ep1 = ep1.data();
            params.big0 = big0.data();
            params.big1 = big1.data();
            params.ctl = ctl.data();
            params.big_ctl = big_ctl.data();
            params.counters = counters.data();
            params.claimed = claimed.data();
            params.prof = prof.data();
            params.switch_threshold = switch_threshold;
            params.n = n;
            params.vq_cap = vq_cap;
            params.eq_cap = eq_cap;
            params.big_cap = big_cap;
            params.counter_cap = counter_cap;
            params.grid_threshold = grid_threshold;
            params.claim_threshold = claim_threshold;
            params.prof_cap = n + 2;
            params.small_threshold = small_threshold;
            const uint64_t sd = seed + s * 7919 + 1;
#define EMU_CASE(P, C, S)                                                                       \
    if ((pred != 0) == P && (count != 0) == C && (small_threshold > 0) == S)                     \
        dispatch<P, C, S>(strategy, gather, blocks, sd, yp, row, col, params, sources[s], culling);
            EMU_CASE(false, false, false) EMU_CASE(true, false, false) EMU_CASE(false, true, false)
            EMU_CASE(true, true, false) EMU_CASE(false, false, true) EMU_CASE(true, false, true)
            EMU_CASE(false, true, true) EMU_CASE(true, true, true)
#undef EMU_CASE
        }
        if (ctl[CTL_OVERFLOW]) {
            std::fprintf(stderr, "source %d: queues overflowed even with exact culling\n", sources[s]);
            return 3;
        }
        int header[2] = {ctl[CTL_ITERS], 1 + ctl[CTL_RERUNS]};
        std::fwrite(header, sizeof(int), 2, out);
        std::fwrite(dist.data(), sizeof(int), n, out);
        std::fwrite(parent.data(), sizeof(int), n, out);
        std::fwrite(counters.data(), sizeof(int), counters.size(), out);
    }
    std::fclose(out);
    return 0;
}
