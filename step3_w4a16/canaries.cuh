// canaries.cuh - deliberately wrong group-128 kernels. A test runs each by name and passes only
// if step3_w4a16's check rejects it; they never run unless named with --kernel.
//   canary_ignore_zero       reads w = q·s: forgets the zero point, as if the format were symmetric
//   canary_skip_last_group   stops one group of 128 early: a loop bound off by one group
//   canary_fp32_weights      w = (q - z)·s in FP32, not rounded to fp16 as the format defines:
//                            shows that the check can tell the two definitions apart
// The body is a thread per output over the plain group-128 layout, fp16 activations.
#pragma once

#include "../common/launch.h"
#include "w4a16_formats.h"
#include "w4a16_layout.cuh"

enum class G128Canary { IgnoreZero, SkipLastGroup, Fp32Weights };

template <G128Canary BUG>
__global__ void w4a16_canary(W4A16Args p) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
    if (n >= p.N) return;
    const int groups = p.K / kGroupSize;
    float acc = 0.f;
    for (int j = 0; j < groups - (BUG == G128Canary::SkipLastGroup ? 1 : 0); ++j) {
        const float s = half_bits_to_float(p.g128_s[(size_t)n * groups + j]);
        const int z = BUG == G128Canary::IgnoreZero ? 0 : p.g128_z[(size_t)n * groups + j];
        for (int k = j * kGroupSize; k < (j + 1) * kGroupSize; ++k) {
            const int q = (p.g128_q[((size_t)n * p.K + k) / kNibblesPerWord] >> (4 * (k % kNibblesPerWord))) & 0xF;
            const float exact = (float)(q - z) * s;
            const float w = BUG == G128Canary::Fp32Weights ? exact : __half2float(__float2half_rn(exact));
            acc += w * __half2float(p.a_f16[(size_t)m * p.K + k]);
        }
    }
    p.c[(size_t)m * p.N + n] = acc;
}

template <G128Canary BUG>
inline void launch_w4a16_canary(const W4A16Args& p, cudaStream_t s) {
    const dim3 grid((unsigned)ceil_div(p.N, 128), (unsigned)p.M);
    w4a16_canary<BUG><<<grid, 128, 0, s>>>(p);
}
