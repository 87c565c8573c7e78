// 06 GEMV for decoding (M = 1..8): a warp per weight row (or two), streaming 16-byte blocks.
//
// Idea: with a handful of tokens every weight is used M times at most, so the kernel is as fast
// as it reads the 4.5-bit weights from HBM: the lesson of step 1's GEMV, now with 7x fewer bytes.
// A warp owns one weight row (two when M > 1); its lanes walk the K-blocks 32 apart, so one warp
// load covers 32 consecutive blocks: 512 contiguous bytes of nibbles (repacked stream), one
// 16-byte load per lane. A Q4_0 row is short (7 KB at K = 14336: 14 blocks per lane), so the loop
// is software-pipelined: the loads of the next kBlocksInFlight blocks are issued before the math
// on the current ones, and the memory system never waits for a warp to finish computing. Weights
// are read with a streaming hint (used once). The activations come in the split Q8_1 layout: a
// block's 32 codes are two 16-byte loads (in ggml's 36-byte blocks they would be nine 4-byte
// loads touching 32 sectors per warp instruction), served by L1 since every warp reads the same
// few kilobytes; with two rows per warp each activation block serves both. One warp reduction
// per output at the end.
// PDL: launched as a programmatic dependent of the activation quantizer (07), the kernel issues
// its first weight loads, which do not depend on the quantizer, before waiting for it.
// Limit: at M = 1 this is a memory roofline; as M grows, each block costs M x rows x (8 DP4A +
// 3 FP32) plus M activation loads per 16 bytes of weights, and instructions start to compete with
// the memory stream (compare M = 1 and M = 4 in the output).
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../../common/pdl.cuh"
#include "../../common/q4_0_q8_1.h"
#include "../../common/warp_reduce.cuh"
#include "../w4a8_layout.cuh"

namespace gemv_dp4a {
constexpr int kWarps = 8;           // warps per CTA
constexpr int kBlocksInFlight = 4;  // 16-byte weight loads per lane per pipeline stage (all rows)
constexpr int kMaxTokens = 8;
// One weight row per warp for a single token (twice the warps, for more loads in flight); two
// for several tokens, so that each activation block a lane loads serves two rows.
template <int TOKENS> constexpr int kRowsPerWarp = TOKENS == 1 ? 1 : 2;
// Registers per thread capped so that every CTA of N = 4096 fits on the GPU at once (one wave).
template <int TOKENS> constexpr int kMinCtasPerSm = TOKENS == 1 ? 4 : 2;
}  // namespace gemv_dp4a

// One pipeline stage: UNROLL blocks (base, base + 32, ...) of each of the warp's ROWS rows.
template <int ROWS, int UNROLL>
struct GemvWeights {
    uint4 q[UNROLL][ROWS];
    float d[UNROLL][ROWS];

    __device__ __forceinline__ void load(const uint4* const* wq, const ggml_half* const* wd, int base, int nblocks) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const int b = base + 32 * u;
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                q[u][r] = b < nblocks ? __ldcs(wq[r] + b) : make_uint4(0, 0, 0, 0);
                d[u][r] = b < nblocks ? half_bits_to_float(wd[r][b]) : 0.f;
            }
        }
    }
};

template <int TOKENS, bool PDL>
__global__ void __launch_bounds__(gemv_dp4a::kWarps * 32, gemv_dp4a::kMinCtasPerSm<TOKENS>)
    w4a8_gemv_dp4a(W4A8Args p) {
    using namespace gemv_dp4a;
    constexpr int ROWS = kRowsPerWarp<TOKENS>, UNROLL = kBlocksInFlight / ROWS;
    static_assert(kBlocksInFlight % ROWS == 0, "a stage holds whole blocks of every row");
    const int lane = threadIdx.x % 32;
    const int row0 = (blockIdx.x * kWarps + threadIdx.x / 32) * ROWS;
    const int nblocks = p.K / QK4_0;
    const uint4* wq[ROWS];
    const ggml_half* wd[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {  // rows past N repeat the last row; they are never stored
        const size_t row = (size_t)min(row0 + r, p.N - 1);
        wq[r] = reinterpret_cast<const uint4*>(p.w_qs) + row * nblocks;
        wd[r] = p.w_d + row * nblocks;
    }
    GemvWeights<ROWS, UNROLL> cur, next;
    if (row0 < p.N) cur.load(wq, wd, lane, nblocks);  // independent of the activations
    if (PDL) wait_for_prerequisite_grids();            // the quantizer's output is ready from here on
    if (row0 >= p.N) return;  // the whole warp leaves together

    float acc[ROWS][TOKENS] = {};
    for (int base = lane; base < nblocks; base += 32 * UNROLL) {
        // Software pipeline: the next stage's loads are in flight while this stage's math runs.
        if (base + 32 * UNROLL < nblocks) next.load(wq, wd, base + 32 * UNROLL, nblocks);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const int b = base + 32 * u;
            if (b >= nblocks) break;
#pragma unroll
            for (int t = 0; t < TOKENS; ++t) {
                const uint4* aq = reinterpret_cast<const uint4*>(p.a_qs + ((size_t)t * nblocks + b) * QK8_1);
                const uint4 a_lo = __ldg(aq), a_hi = __ldg(aq + 1);  // codes 0..15 and 16..31
                const uint32_t a_words[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
                const uint32_t ds_bits = __ldg(p.a_ds + (size_t)t * nblocks + b);
                const float2 ds = __half22float2(*reinterpret_cast<const __half2*>(&ds_bits));  // (d_a, s)
#pragma unroll
                for (int r = 0; r < ROWS; ++r) {
                    const uint32_t words[4] = {cur.q[u][r].x, cur.q[u][r].y, cur.q[u][r].z, cur.q[u][r].w};
                    const int sumi = block_sumi_words(words, a_words);
                    acc[r][t] = fmaf(cur.d[u][r], fmaf(ds.x, (float)sumi, -8.0f * ds.y), acc[r][t]);
                }
            }
        }
        cur = next;
    }
#pragma unroll
    for (int r = 0; r < ROWS; ++r)
#pragma unroll
        for (int t = 0; t < TOKENS; ++t) {
            const float sum = warp_reduce_sum(acc[r][t]);
            if (lane == 0 && row0 + r < p.N) p.c[(size_t)t * p.N + row0 + r] = sum;
        }
}

inline std::string w4a8_gemv_why_not(const GemmCase& c, const Gpu&) {
    return c.M <= gemv_dp4a::kMaxTokens ? "" : "GEMV: needs M <= " + std::to_string(gemv_dp4a::kMaxTokens);
}

template <int TOKENS, bool PDL>
inline void launch_gemv_tokens(const W4A8Args& p, cudaStream_t s) {
    using namespace gemv_dp4a;
    const dim3 grid((unsigned)ceil_div(p.N, kWarps * kRowsPerWarp<TOKENS>)), block(kWarps * 32);
    if (PDL)
        launch_with_pdl(w4a8_gemv_dp4a<TOKENS, PDL>, grid, block, 0, s, p);
    else
        w4a8_gemv_dp4a<TOKENS, PDL><<<grid, block, 0, s>>>(p);
}

template <bool PDL>
inline void launch_gemv(const W4A8Args& p, cudaStream_t s) {
    with_count_up_to<gemv_dp4a::kMaxTokens>(p.M, [&](auto tokens) { launch_gemv_tokens<decltype(tokens)::value, PDL>(p, s); });
}
inline void launch_w4a8_gemv_dp4a(const W4A8Args& p, cudaStream_t s) { launch_gemv<false>(p, s); }
