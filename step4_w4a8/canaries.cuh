// canaries.cuh - deliberately wrong W4A8 kernels. A test runs each by name and passes only if
// step4_w4a8's check rejects it; they never run unless named with --kernel.
//   canary_forget_minus_8s  multiplies unsigned nibbles and never subtracts 8·s: every weight
//                           is read as n instead of n - 8, the bug the compensation formula fixes
//   canary_skip_last_block  stops one K-block early: a loop bound off by one block
// The body is 01's thread per output, with common/q4_0_q8_1.h's block_sumi.
#pragma once

#include "../common/launch.h"
#include "../common/q4_0_q8_1.h"
#include "w4a8_layout.cuh"

enum class W4A8Canary { ForgetMinus8s, SkipLastBlock };

template <W4A8Canary BUG>
__global__ void w4a8_canary(W4A8Args p) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
    if (n >= p.N) return;
    const int nblocks = p.K / QK4_0;
    const block_q4_0* w = p.w_blocks + (size_t)n * nblocks;
    const block_q8_1* a = p.a + (size_t)m * nblocks;
    float acc = 0.f;
    for (int b = 0; b < nblocks - (BUG == W4A8Canary::SkipLastBlock ? 1 : 0); ++b) {
        const float2 ds = q8_1_scales(a[b]);
        const float correction = BUG == W4A8Canary::ForgetMinus8s ? 0.f : 8.0f * ds.y;
        acc += half_bits_to_float(w[b].d) * (ds.x * (float)block_sumi(w[b], a[b]) - correction);
    }
    p.c[(size_t)m * p.N + n] = acc;
}

template <W4A8Canary BUG>
inline void launch_w4a8_canary(const W4A8Args& p, cudaStream_t s) {
    const dim3 grid((unsigned)ceil_div(p.N, 128), (unsigned)p.M);
    w4a8_canary<BUG><<<grid, 128, 0, s>>>(p);
}
