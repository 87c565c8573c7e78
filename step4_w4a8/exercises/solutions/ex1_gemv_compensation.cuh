// Solution of exercise 1 (step 4): the compensation formula in a DP4A GEMV
// (exercises/ex1_gemv_compensation.cuh).
#pragma once

#include "../../../common/launch.h"
#include "../../../common/q4_0_q8_1.h"
#include "../../../common/warp_reduce.cuh"
#include "../../w4a8_layout.cuh"
#include "../ex1_gemv_compensation.cuh"

// One block's unsigned-nibble integer dot, from ggml's own block layouts.
__device__ __forceinline__ int ex1_block_sumi(const block_q4_0& w, const block_q8_1& a) {
    const int* codes = reinterpret_cast<const int*>(a.qs);
    int sumi = 0;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const uint32_t packed = load_u32_2_aligned(w.qs + 4 * i);  // elements 4i..4i+3 (low), 16+4i.. (high)
        sumi = dp4a_s8(low_nibbles(packed), (uint32_t)codes[i], sumi);
        sumi = dp4a_s8(high_nibbles(packed), (uint32_t)codes[4 + i], sumi);
    }
    return sumi;
}

__global__ void __launch_bounds__(kEx1Threads) w4a8_ex1_solution(W4A8Args p) {
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (row >= p.N) return;
    const int nblocks = p.K / QK4_0;
    const block_q4_0* w = p.w_blocks + (size_t)row * nblocks;
    for (int t = 0; t < p.M; ++t) {
        const block_q8_1* a = p.a + (size_t)t * nblocks;
        float sum = 0.f;
        for (int b = lane; b < nblocks; b += 32) {
            const float2 ds = q8_1_scales(a[b]);  // (d_a, s)
            sum += half_bits_to_float(w[b].d) * (ds.x * (float)ex1_block_sumi(w[b], a[b]) - 8.0f * ds.y);
        }
        sum = warp_reduce_sum(sum);
        if (lane == 0) p.c[(size_t)t * p.N + row] = sum;
    }
}

inline void launch_w4a8_ex1_solution(const W4A8Args& p, cudaStream_t s) {
    w4a8_ex1_solution<<<(unsigned)ceil_div(p.N, kEx1Threads / 32), kEx1Threads, 0, s>>>(p);
}
