// Solution of exercise 2 (step 4): a warp per output, lanes over K-blocks
// (exercises/ex2_warp_per_output.cuh). The block arithmetic is common/q4_0_q8_1.h's block_sumi.
#pragma once

#include "../../../common/launch.h"
#include "../../../common/q4_0_q8_1.h"
#include "../../../common/warp_reduce.cuh"
#include "../../w4a8_layout.cuh"
#include "../ex2_warp_per_output.cuh"

__global__ void __launch_bounds__(kEx2Warps * 32) w4a8_ex2_solution(W4A8Args p) {
    const int n = blockIdx.x * kEx2Warps + threadIdx.x / 32, m = blockIdx.y, lane = threadIdx.x % 32;
    if (n >= p.N) return;
    const int nblocks = p.K / QK4_0;
    const block_q4_0* w = p.w_blocks + (size_t)n * nblocks;
    const block_q8_1* a = p.a + (size_t)m * nblocks;
    float sum = 0.f;
    for (int b = lane; b < nblocks; b += 32) {
        const float2 ds = q8_1_scales(a[b]);
        sum += half_bits_to_float(w[b].d) * (ds.x * (float)block_sumi(w[b], a[b]) - 8.0f * ds.y);
    }
    sum = warp_reduce_sum(sum);
    if (lane == 0) p.c[(size_t)m * p.N + n] = sum;
}

inline void launch_w4a8_ex2_solution(const W4A8Args& p, cudaStream_t s) {
    w4a8_ex2_solution<<<dim3((unsigned)ceil_div(p.N, kEx2Warps), (unsigned)p.M), kEx2Warps * 32, 0, s>>>(p);
}
