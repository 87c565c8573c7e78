// 06 GEMV for decoding (M = 1..8): a warp per pair of weight rows, streaming 16-byte blocks.
//
// Idea: with a handful of tokens every weight is used M times at most, so the kernel is as fast
// as it reads the 4.5-bit weights from HBM: the lesson of step 1's GEMV, now with 7x fewer bytes.
// A warp owns kRows weight rows; its lanes walk the K-blocks 32 apart, so a warp load covers 32
// consecutive blocks: 512 contiguous bytes of nibbles per row (repacked stream), one 16-byte load
// per lane, issued for kUnroll blocks and every row before any is used (bytes in flight hide
// HBM's latency). Weights are read with a streaming hint (used once); the quantized activations
// of all M tokens go through L1, and each activation block a lane loads serves all kRows rows:
// that is where several rows per warp pay. Each lane keeps kRows x M partial sums; one warp
// reduction at the end.
// Limit: at M = 1 this is a memory roofline; as M grows, each block costs M x kRows x (8 DP4A +
// 3 FP32) plus M activation loads per 16 bytes of weights, and instructions start to compete with
// the memory stream (compare M = 1 and M = 8 in the output).
#pragma once

#include "../../common/launch.h"
#include "../../common/q4_0_q8_1.h"
#include "../../common/warp_reduce.cuh"
#include "../w4a8_layout.cuh"

namespace gemv_dp4a {
constexpr int kWarps = 8;    // warps per CTA
constexpr int kRows = 2;     // weight rows per warp
constexpr int kUnroll = 2;   // K-blocks per lane loaded ahead of use
constexpr int kMaxTokens = 8;
}  // namespace gemv_dp4a

template <int TOKENS>
__global__ void __launch_bounds__(gemv_dp4a::kWarps * 32) w4a8_gemv_dp4a(W4A8Args p) {
    using namespace gemv_dp4a;
    const int lane = threadIdx.x % 32;
    const int row0 = (blockIdx.x * kWarps + threadIdx.x / 32) * kRows;
    if (row0 >= p.N) return;  // the whole warp leaves together
    const int nblocks = p.K / QK4_0;
    const uint4* wq[kRows];
    const ggml_half* wd[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {  // rows past N repeat the last row; they are never stored
        const size_t row = (size_t)min(row0 + r, p.N - 1);
        wq[r] = reinterpret_cast<const uint4*>(p.w_qs) + row * nblocks;
        wd[r] = p.w_d + row * nblocks;
    }
    float acc[kRows][TOKENS] = {};
    for (int base = lane; base < nblocks; base += 32 * kUnroll) {
        uint4 w[kUnroll][kRows];
        float d_w[kUnroll][kRows];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {  // issue every weight load first ...
            const int b = base + 32 * u;
#pragma unroll
            for (int r = 0; r < kRows; ++r) {
                w[u][r] = b < nblocks ? __ldcs(wq[r] + b) : make_uint4(0, 0, 0, 0);
                d_w[u][r] = b < nblocks ? half_bits_to_float(wd[r][b]) : 0.f;
            }
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {  // ... then use them, one token at a time
            const int b = base + 32 * u;
            if (b >= nblocks) break;
#pragma unroll
            for (int t = 0; t < TOKENS; ++t) {
                const block_q8_1& a = p.a[(size_t)t * nblocks + b];
                const uint32_t* aq = reinterpret_cast<const uint32_t*>(a.qs);
                uint32_t a_words[8];
#pragma unroll
                for (int i = 0; i < 8; ++i) a_words[i] = __ldg(aq + i);
                const float2 ds = q8_1_scales(a);
#pragma unroll
                for (int r = 0; r < kRows; ++r) {
                    const uint32_t words[4] = {w[u][r].x, w[u][r].y, w[u][r].z, w[u][r].w};
                    int sumi = 0;
#pragma unroll
                    for (int i = 0; i < 4; ++i) {
                        sumi = dp4a_s8(low_nibbles(words[i]), a_words[i], sumi);
                        sumi = dp4a_s8(high_nibbles(words[i]), a_words[i + 4], sumi);
                    }
                    acc[r][t] = fmaf(d_w[u][r], fmaf(ds.x, (float)sumi, -8.0f * ds.y), acc[r][t]);
                }
            }
        }
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int t = 0; t < TOKENS; ++t) {
            const float sum = warp_reduce_sum(acc[r][t]);
            if (lane == 0 && row0 + r < p.N) p.c[(size_t)t * p.N + row0 + r] = sum;
        }
}

inline std::string w4a8_gemv_why_not(int64_t M, int64_t) {
    return M <= gemv_dp4a::kMaxTokens ? "" : "GEMV: needs M <= " + std::to_string(gemv_dp4a::kMaxTokens);
}

template <int TOKENS>
inline void launch_gemv_tokens(const W4A8Args& p, cudaStream_t s) {
    using namespace gemv_dp4a;
    w4a8_gemv_dp4a<TOKENS><<<(unsigned)ceil_div(p.N, kWarps * kRows), kWarps * 32, 0, s>>>(p);
}

inline void launch_w4a8_gemv_dp4a(const W4A8Args& p, cudaStream_t s) {
    switch (p.M) {
        case 1: launch_gemv_tokens<1>(p, s); break;
        case 2: launch_gemv_tokens<2>(p, s); break;
        case 3: launch_gemv_tokens<3>(p, s); break;
        case 4: launch_gemv_tokens<4>(p, s); break;
        case 5: launch_gemv_tokens<5>(p, s); break;
        case 6: launch_gemv_tokens<6>(p, s); break;
        case 7: launch_gemv_tokens<7>(p, s); break;
        default: launch_gemv_tokens<8>(p, s); break;
    }
}
