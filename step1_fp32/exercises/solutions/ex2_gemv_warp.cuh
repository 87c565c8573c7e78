// Solution of exercise 2 (step 1): one warp per output row, lanes along K, a shuffle
// reduction (exercises/ex2_gemv_warp.cuh).
#pragma once

#include "../../../common/launch.h"
#include "../../../common/warp_reduce.cuh"
#include "../ex2_gemv_warp.cuh"

__global__ void __launch_bounds__(kEx2Threads) gemv_ex2_solution(const float* a, const float* W, float* c, int N, int K) {
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (row >= N) return;  // the whole warp leaves together
    const float* w = W + (size_t)row * K;
    float sum = 0.f;
    for (int k = lane; k < K; k += 32) sum += a[k] * w[k];
    sum = warp_reduce_sum(sum);
    if (lane == 0) c[row] = sum;
}

inline void launch_gemv_ex2_solution(const float* A, const float* W, float* C, int, int N, int K, cudaStream_t s) {
    gemv_ex2_solution<<<(unsigned)ceil_div(N, kEx2Threads / 32), kEx2Threads, 0, s>>>(A, W, C, N, K);
}
