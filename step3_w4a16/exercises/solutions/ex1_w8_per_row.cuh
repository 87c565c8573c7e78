// Solution of exercise 1 (step 3): W8 per row, the scale after the sum (exercises/ex1_w8_per_row.cuh).
#pragma once

#include "../../../common/launch.h"
#include "../../w4a16_layout.cuh"
#include "../ex1_w8_per_row.cuh"

__global__ void __launch_bounds__(kEx1Threads) w4a16_ex1_solution(W4A16Args p) {
    const int n = blockIdx.x * kEx1Threads + threadIdx.x, m = blockIdx.y;
    if (n >= p.N) return;
    const int8_t* w = p.w8_q + (size_t)n * p.K;
    const __half* a = p.a_f16 + (size_t)m * p.K;
    float sum = 0.f;
    for (int k = 0; k < p.K; ++k) sum += (float)w[k] * __half2float(a[k]);
    p.c[(size_t)m * p.N + n] = half_bits_to_float(p.w8_s[n]) * sum;  // one multiply per output, not per weight
}

inline void launch_w4a16_ex1_solution(const W4A16Args& p, cudaStream_t s) {
    w4a16_ex1_solution<<<dim3((unsigned)ceil_div(p.N, kEx1Threads), (unsigned)p.M), kEx1Threads, 0, s>>>(p);
}
