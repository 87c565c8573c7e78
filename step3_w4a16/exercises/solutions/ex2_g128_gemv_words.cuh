// Solution of exercise 2 (step 3): group-128 GEMV, a word per lane, the 0x6400 trick
// (exercises/ex2_g128_gemv_words.cuh).
#pragma once

#include "../../../common/launch.h"
#include "../../../common/warp_reduce.cuh"
#include "../../w4a16_formats.h"
#include "../../w4a16_layout.cuh"
#include "../ex2_g128_gemv_words.cuh"

__global__ void __launch_bounds__(kEx2Threads) w4a16_ex2_solution(W4A16Args p) {
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (row >= p.N) return;
    const int words = p.K / kNibblesPerWord, groups = p.K / kGroupSize;
    for (int t = 0; t < p.M; ++t) {
        const __half* a = p.a_f16 + (size_t)t * p.K;
        float sum = 0.f;
        for (int i = lane; i < words; i += 32) {
            const uint32_t word = p.g128_q[(size_t)row * words + i];
            const size_t group = (size_t)row * groups + i * kNibblesPerWord / kGroupSize;
            const __half2 scale = __half2half2(__ushort_as_half(p.g128_s[group]));
            const __half2 bias = __float2half2_rn(1024.0f + (float)p.g128_z[group]);
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const float2 w = __half22float2(__hmul2(nibbles_to_half2(word >> (4 * j), bias), scale));
                const int k = i * kNibblesPerWord + j;  // and k + 4, in the high half
                sum += w.x * __half2float(a[k]) + w.y * __half2float(a[k + 4]);
            }
        }
        sum = warp_reduce_sum(sum);
        if (lane == 0) p.c[(size_t)t * p.N + row] = sum;
    }
}

inline void launch_w4a16_ex2_solution(const W4A16Args& p, cudaStream_t s) {
    w4a16_ex2_solution<<<(unsigned)ceil_div(p.N, kEx2Threads / 32), kEx2Threads, 0, s>>>(p);
}
