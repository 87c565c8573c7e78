// 08 One entry point for group-128 W4A16: the kernel chosen by the number of tokens and by the
// code this GPU runs, as a library would offer it (the caller never names a kernel).
//
// Idea: no single kernel of this step is the fastest at every M. The sweep on the H200 (README.md,
// "The batch sweep") draws the lines: at one token the copy-engine GEMV (09, sm_90) streams the
// weights fastest, by about 5%; up to 4 tokens the decoding GEMV on tensor cores (06), which 09
// does not beat there; up to 16, mma.sync with narrow tiles (04), unless K is long; beyond, Hopper's
// wgmma (07), whose clusters split K while the tiles are too few to fill the GPU. At 5 to 16 tokens
// 07 needs long rows: its split CTAs then each have enough K-tiles to pay for their fixed costs,
// while 04 streams each row tile's whole K in one CTA (H200 sweep, 2026-12-05, µs, 04 / 07: M = 8
// and 16 at K = 4096 6.8 / 7.4 and 7.0 / 7.8, at K = 14336 17.8 / 15.7 and 18.1 / 16.3; timed
// between them on an H100 the same day, the two tie at K = 8192, LAB_NOTES.md). 07 needs
// sm_90a code: built for another target, or on another GPU, the entry point falls back to 04,
// which runs from sm_80 on. The sweep prints the choice at every M beside the fastest kernel it
// measured, so a threshold that is wrong on your GPU shows.
// Limit: the thresholds are the H200's; on another GPU, time the candidates (--sweep) and move them.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "04_mma_g128.cuh"
#include "06_gemv_mma.cuh"
#include "07_wgmma_g128.cuh"
#include "09_gemv_tma.cuh"

namespace auto_g128 {
constexpr int64_t kMaxCopyEngineTokens = 1;  // 09 up to here where it runs ...
constexpr int64_t kMaxGemvTokens = 4;    // ... 06 up to here (when its staged activations fit) ...
constexpr int64_t kMaxMmaSyncTokens = 16;  // ... then 04, then 07 where it runs ...
constexpr int64_t kMinWgmmaK = 8192;       // ... and 07 from 5 tokens when K is at least this
}  // namespace auto_g128

struct G128Kernel {
    const char* name;
    void (*launch)(const W4A16Args&, cudaStream_t);
};

inline G128Kernel choose_g128_kernel(const GemmCase& c, const Gpu& gpu) {
    using namespace auto_g128;
    if (c.M <= kMaxCopyEngineTokens && arch_shortfall(gpu, kBulkCopyArch).empty() && w4a16_gemv_tma_g128_why_not(c, gpu).empty())
        return {"gemv_tma_g128", launch_w4a16_gemv_tma_g128};
    if (c.M <= kMaxGemvTokens && w4a16_gemv_mma_why_not(c, gpu).empty()) return {"gemv_mma_g128", launch_w4a16_gemv_mma};
    const bool wgmma_pays = c.M > kMaxMmaSyncTokens || c.K >= kMinWgmmaK;
    if (wgmma_pays && arch_shortfall(gpu, kWgmmaArch).empty() && w4a16_wgmma_g128_why_not(c, gpu).empty())
        return {"wgmma_g128", launch_w4a16_wgmma<wgmma_g128::G128Stage>};
    return {"mma_g128", launch_w4a16_mma_g128};
}

// 04 takes every shape the others take, so the entry point runs wherever 04 does.
inline std::string w4a16_auto_g128_why_not(const GemmCase& c, const Gpu& gpu) { return w4a16_mma_g128_why_not(c, gpu); }

inline void launch_w4a16_auto_g128(const W4A16Args& p, cudaStream_t s) {
    choose_g128_kernel(GemmCase{"", p.M, p.N, p.K}, opened_gpu()).launch(p, s);
}
