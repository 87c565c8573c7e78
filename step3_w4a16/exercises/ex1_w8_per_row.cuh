// Exercise 1 (step 3): W8 per row, one thread per output, the scale applied after the sum.
// Practises the W8 format of part 1 and why a per-row scale is cheap (03's gemv_w8 does the same
// at full speed).
//
// Brief: C[m][n] = d[n] · Σ_k q[n][k] · a[m][k], with q the int8 codes (p.w8_q, [N][K]), d the
// row's fp16 scale (p.w8_s[n]) and a the fp16 activations (p.a_f16, [M][K]). Thread n of CTA row
// m computes one output: sum q·a in FP32 (each product is exact), then multiply once by d. Guard
// n < N. Compare: how many multiplies by d would a per-element dequantization cost?
// Run it:   make exercise STEP=3 EX=1     (or build/step3_w4a16 --kernel ex1 --m 4 --n 4096 --k 4096)
// Set kEx1Written to true once your kernel is written: a FAIL is then a bug, not the stub.
#pragma once

#include "../../common/launch.h"
#include "../w4a16_layout.cuh"

constexpr bool kEx1Written = false;
constexpr int kEx1Threads = 128;

__global__ void __launch_bounds__(kEx1Threads) w4a16_ex1(W4A16Args p) {
    // TODO 1: n from blockIdx.x and threadIdx.x, m from blockIdx.y; leave if n >= N.
    // TODO 2: sum (float)q * a over k (a: __half2float of p.a_f16[m * K + k]).
    // TODO 3: C[m][n] = d · sum, d = half_bits_to_float(p.w8_s[n]).
}

inline void launch_w4a16_ex1(const W4A16Args& p, cudaStream_t s) {
    w4a16_ex1<<<dim3((unsigned)ceil_div(p.N, kEx1Threads), (unsigned)p.M), kEx1Threads, 0, s>>>(p);
}
