// Runs algorithms/bfs/gpu/bfs4k/bfs4k.cu under the CPU emulator (cuda_emu.hpp) with the
// host protocol of bfs4k/bfs4k.py: the init kernel, then the kernel sequence (program)
// again and again, reading status[] after each pass, until the frontier is empty.
// Built with BFS4K_DP=0: the emulator cannot launch kernels from kernels.
//
// usage: bfs4k_driver IN OUT
// IN  (int64 words): n m nsrc pred seed yield_permille coop_blocks level_blocks
//     init_blocks skip_idle program_len, program[program_len] (MODE_* codes),
//     params[P_WORDS], row[n+1], col[m], sources[nsrc]
// skip_idle: do not start the kernels that would return at once (the host reads the
// status before each launch; emulated launches are slow). The kernels' own entry test
// is the same function (bfs4k::mode_of), run on the host here.
// OUT (int32 words) per source: levels passes launches dist[n] parent[n]
//     counters[CNT_WORDS]
#include "cuda_emu.hpp"
#include "bfs4k.cu"

#include <cstdio>
#include <vector>

namespace {

std::vector<long long> read_words(const char* path) {
    std::vector<long long> out;
    FILE* f = std::fopen(path, "rb");
    if (!f) {
        std::perror(path);
        std::exit(2);
    }
    long long buf[4096];
    size_t k;
    while ((k = std::fread(buf, sizeof(long long), 4096, f)) > 0) out.insert(out.end(), buf, buf + k);
    std::fclose(f);
    return out;
}

size_t dynamic_bytes(int kind, const long long* params) {
    const size_t queues = (size_t)BFS4K_LQ * sizeof(int);
    if (kind == MODE_SINGLE)
        return 2 * (size_t)params[P_FT] * sizeof(int) + queues * BFS4K_SINGLE_BLOCK +
               (size_t)params[P_HASH_SINGLE] * 8;
    return queues * BFS4K_K6 + (size_t)params[P_HASH_MULTI] * 8;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: bfs4k_driver IN OUT\n");
        return 2;
    }
    std::vector<long long> in = read_words(argv[1]);
    size_t at = 0;
    auto next = [&]() { return in.at(at++); };
    const int n = (int)next(), m = (int)next(), nsrc = (int)next(), pred = (int)next();
    const long long seed = next();
    const double yp = next() / 1000.0;
    const int coop_blocks = (int)next(), level_blocks = (int)next(), init_blocks = (int)next();
    const bool skip_idle = next() != 0;
    const int program_len = (int)next();
    std::vector<int> program;
    for (int k = 0; k < program_len; ++k) program.push_back((int)next());
    std::vector<long long> params(P_WORDS);
    for (int k = 0; k < P_WORDS; ++k) params[k] = next();
    std::vector<long long> row(n + 1);
    for (int k = 0; k <= n; ++k) row[k] = next();
    std::vector<int> col(m > 0 ? m : 1);
    for (int k = 0; k < m; ++k) col[k] = (int)next();
    std::vector<int> sources;
    for (int k = 0; k < nsrc; ++k) sources.push_back((int)next());

    FILE* out = std::fopen(argv[2], "wb");
    const size_t header = (sizeof(bfs4k::Shared) + 15) & ~size_t(15);
    bfs4k::Cfg cfg;
    bfs4k::load_cfg(cfg, params.data());
    for (int s = 0; s < nsrc; ++s) {
        // Garbage everywhere the init kernel must reset.
        std::vector<int> dist(n, 0x5A5A5A5A), parent(n, 0x5A5A5A5A);
        std::vector<unsigned int> bitmask((n + 31) / 32, 0xA5A5A5A5u);
        std::vector<int> q0(n > 0 ? n : 1, -7), q1(q0);
        std::vector<int> status(ST_WORDS, 0x5A5A5A5A), counters(CNT_WORDS, 0x5A5A5A5A);
        int* par = pred ? parent.data() : nullptr;
        const int src = sources[s];
        uint64_t launch_seed = (uint64_t)seed * 1000003u + (uint64_t)s * 7919u;
        emu::launch(init_blocks, 64, [&] {
            bfs4k_init(params.data(), row.data(), col.data(), dist.data(), par, bitmask.data(),
                       q0.data(), q1.data(), status.data(), counters.data(), src);
        }, ++launch_seed, 0.0);
        int launches = 1, passes = 0;
        for (;;) {
            for (int kind : program) {
                ++launches;
                if (skip_idle) {
                    const int* sl = &status[ST_SLOTS + (status[ST_LEVEL] % 3) * SLOT_WORDS];
                    if (bfs4k::mode_of(cfg, sl[SLOT_COUNT], sl[SLOT_DP]) != kind) continue;
                }
                const size_t smem = header + dynamic_bytes(kind, params.data());
                auto body = [&, kind] {
                    if (kind == MODE_SINGLE)
                        bfs4k_single(params.data(), row.data(), col.data(), dist.data(), par,
                                     bitmask.data(), q0.data(), q1.data(), status.data(),
                                     counters.data());
                    else if (kind == MODE_COOP)
                        bfs4k_coop(params.data(), row.data(), col.data(), dist.data(), par,
                                   bitmask.data(), q0.data(), q1.data(), status.data(),
                                   counters.data());
                    else
                        bfs4k_level(params.data(), row.data(), col.data(), dist.data(), par,
                                    bitmask.data(), q0.data(), q1.data(), status.data(),
                                    counters.data());
                };
                const int blocks = kind == MODE_SINGLE ? 1 : kind == MODE_COOP ? coop_blocks : level_blocks;
                const int threads = kind == MODE_SINGLE ? BFS4K_SINGLE_BLOCK : BFS4K_K6;
                emu::launch(blocks, threads, body, ++launch_seed, yp, smem);
            }
            ++passes;
            const int L = status[ST_LEVEL];
            if (status[ST_SLOTS + (L % 3) * SLOT_WORDS + SLOT_COUNT] == 0) break;
            if (passes > n + 2) {
                std::fprintf(stderr, "bfs4k_driver: no progress (level %d)\n", L);
                return 3;
            }
        }
        int head[3] = {status[ST_LEVEL], passes, launches};
        std::fwrite(head, sizeof(int), 3, out);
        std::fwrite(dist.data(), sizeof(int), n, out);
        std::fwrite(parent.data(), sizeof(int), n, out);
        std::fwrite(counters.data(), sizeof(int), CNT_WORDS, out);
    }
    std::fclose(out);
    return 0;
}
