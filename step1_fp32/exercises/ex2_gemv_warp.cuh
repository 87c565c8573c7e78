// Exercise 2 (step 1): a GEMV with one warp per output and a shuffle reduction. Practises 02
// (lanes along K: coalesced loads) and 09 (the warp reduction that ends every GEMV).
//
// Brief: c[n] = sum_k a[k] * W[n][k] for M = 1. Warp w of the grid owns row n = w: its 32 lanes
// read W[n][lane], W[n][lane + 32], ... (one 128-byte line per warp load), each keeps a partial
// sum, and the warp adds the 32 partial sums with __shfl_xor_sync (common/warp_reduce.cuh has
// one: write your own first). Lane 0 stores. Rows past N do nothing. K need not be a multiple
// of 32.
// Run it:   make exercise STEP=1 EX=2     (or build/step1_fp32 --kernel ex2 --m 1 --n 4096 --k 4096)
// Done when it prints PASS; then compare its GB/s with gemv_warp_rows (float4 loads, 2 rows per warp).
// Set kEx2Written to true once your kernel is written: a FAIL is then a bug, not the stub.
#pragma once

#include "../../common/launch.h"

constexpr bool kEx2Written = false;
constexpr int kEx2Threads = 256;  // 8 warps, 8 rows per CTA

__global__ void __launch_bounds__(kEx2Threads) gemv_ex2(const float* a, const float* W, float* c, int N, int K) {
    // TODO 1: which row does this warp own, and which lane is this thread? Return if the row is past N.
    // TODO 2: each lane sums a[k] * W[row][k] for k = lane, lane + 32, ...
    // TODO 3: add the 32 partial sums across the warp; lane 0 writes c[row].
}

inline void launch_gemv_ex2(const float* A, const float* W, float* C, int, int N, int K, cudaStream_t s) {
    gemv_ex2<<<(unsigned)ceil_div(N, kEx2Threads / 32), kEx2Threads, 0, s>>>(A, W, C, N, K);
}
