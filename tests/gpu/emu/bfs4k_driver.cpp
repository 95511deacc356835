// Runs algorithms/bfs/gpu/bfs4k/bfs4k.cu under the CPU emulator (cuda_emu.hpp) with the
// host protocol of bfs4k/bfs4k.py: the init kernel, then the kernel sequence (program)
// again and again, reading status[] after each pass, until the frontier is empty.
// Built with BFS4K_DP=0: the emulator cannot launch kernels from kernels.
//
// usage: bfs4k_driver IN OUT
// IN  (int64 words): n m nsrc pred seed yield_permille coop_blocks level_blocks
//     init_blocks skip_idle program_len, program[program_len] (MODE_* codes),
//     config[16] (Bfs4kCfg's fields in order), row[n+1], col[m], sources[nsrc]
// skip_idle: do not start the kernels that would return at once (the host reads the
// status before each launch; emulated launches are slow). The kernels' own entry test
// is the same function (bfs4k::mode_of), run on the host here.
// OUT (int32 words) per source: levels passes launches dist[n] parent[n]
//     counters[CNT_WORDS]
// usage: bfs4k_driver layout OUT
// OUT (text): Bfs4kParams's fields as compiled (config's in line), one "name offset" a
//     line, then "sizeof size" (the tests compare bfs4k.py's PARAMS with it)
#include "cuda_emu.hpp"
#include "bfs4k.cu"

#include <cstddef>
#include <cstdio>
#include <string>
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

size_t dynamic_bytes(int kind, const Bfs4kCfg& cfg) {
    const size_t queues = (size_t)BFS4K_LQ * sizeof(int);
    if (kind == MODE_SINGLE)
        return 2 * (size_t)cfg.ft * sizeof(int) + queues * BFS4K_SINGLE_BLOCK + (size_t)cfg.hash_single * 8;
    return queues * BFS4K_K6 + (size_t)cfg.hash_multi * 8;
}

#define BFS4K_POINTERS(X) X(dist) X(parent) X(bitmask) X(q0) X(q1) X(status) X(counters)
#define BFS4K_CONFIG(X)                                                                                \
    X(dp_degree) X(n) X(K1) X(dynamic) X(K4) X(ext) X(K7) X(dedup) X(binary) X(K3) X(ft) X(ft_low)     \
        X(coop_limit) X(hash_multi) X(hash_single) X(hash_child)

int write_layout(const char* path) {
    FILE* out = std::fopen(path, "w");
    if (!out) return 2;
#define BFS4K_POINTER(f) std::fprintf(out, "%s %zu\n", #f, offsetof(Bfs4kParams, f));
#define BFS4K_FIELD(f) std::fprintf(out, "%s %zu\n", #f, offsetof(Bfs4kParams, config) + offsetof(Bfs4kCfg, f));
    BFS4K_POINTERS(BFS4K_POINTER)
    BFS4K_CONFIG(BFS4K_FIELD)
#undef BFS4K_POINTER
#undef BFS4K_FIELD
    std::fprintf(out, "sizeof %zu\n", sizeof(Bfs4kParams));
    std::fclose(out);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: bfs4k_driver IN OUT | bfs4k_driver layout OUT\n");
        return 2;
    }
    if (std::string(argv[1]) == "layout") return write_layout(argv[2]);
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
    Bfs4kCfg cfg{};
#define BFS4K_READ(f) cfg.f = (decltype(cfg.f))next();
    BFS4K_CONFIG(BFS4K_READ)
#undef BFS4K_READ
    std::vector<long long> row(n + 1);
    for (int k = 0; k <= n; ++k) row[k] = next();
    std::vector<int> col(m > 0 ? m : 1);
    for (int k = 0; k < m; ++k) col[k] = (int)next();
    std::vector<int> sources;
    for (int k = 0; k < nsrc; ++k) sources.push_back((int)next());

    FILE* out = std::fopen(argv[2], "wb");
    const size_t header = (sizeof(bfs4k::Shared) + 15) & ~size_t(15);
    for (int s = 0; s < nsrc; ++s) {
        // Garbage everywhere the init kernel must reset.
        std::vector<int> dist(n, 0x5A5A5A5A), parent(n, 0x5A5A5A5A);
        std::vector<unsigned int> bitmask((n + 31) / 32, 0xA5A5A5A5u);
        std::vector<int> q0(n > 0 ? n : 1, -7), q1(q0);
        std::vector<int> status(ST_WORDS, 0x5A5A5A5A), counters(CNT_WORDS, 0x5A5A5A5A);
        const Bfs4kParams p{dist.data(), pred ? parent.data() : nullptr, bitmask.data(), q0.data(), q1.data(),
                            status.data(), counters.data(), cfg};
        const long long* r = row.data();
        const int* c = col.data();
        const int src = sources[s];
        uint64_t launch_seed = (uint64_t)seed * 1000003u + (uint64_t)s * 7919u;
        emu::launch(init_blocks, 64, [&] { bfs4k_init(r, c, p, src); }, ++launch_seed, 0.0);
        int launches = 1, passes = 0;
        for (;;) {
            for (int kind : program) {
                ++launches;
                if (skip_idle) {
                    const int* sl = &status[ST_SLOTS + (status[ST_LEVEL] % 3) * SLOT_WORDS];
                    if (bfs4k::mode_of(cfg, sl[SLOT_COUNT], sl[SLOT_DP]) != kind) continue;
                }
                const size_t smem = header + dynamic_bytes(kind, cfg);
                auto body = [&, kind] {
                    if (kind == MODE_SINGLE) bfs4k_single(r, c, p);
                    else if (kind == MODE_COOP) bfs4k_coop(r, c, p);
                    else bfs4k_level(r, c, p);
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
