// 10 GEMV, split K: a whole block per few rows, its warps sharing the K dimension.
//
// Idea: 09 had N / ROWS warps; when N is small (4096 output features) that leaves most of the
// GPU's warp slots empty and too few loads in flight to reach HBM bandwidth. Here a block of
// kThreads threads owns ROWS rows and spreads along K: thread t reads float4 number t, t + kThreads,
// ... of each row, UNROLL at a time. Every warp still reads 512 contiguous bytes per load, but the
// number of warps no longer depends on N. Partial sums are added per warp with shuffles and
// across warps through shared memory.
// Improves: N / ROWS blocks of 8 warps instead of N / ROWS warps: the whole GPU is busy.
// Limit: this is the bandwidth roofline; FP32 weights are 4 bytes each. Step 2 stores them in
// 4.5 bits, which is the point of quantization.
#pragma once

namespace gemv_split {
constexpr int kRows = 4, kUnroll = 2, kThreads = 256, kWarps = kThreads / 32;
}

template <int ROWS, int UNROLL, int THREADS>
__global__ void __launch_bounds__(THREADS) gemv_split_k(const float* __restrict__ a, const float* __restrict__ W,
                                                         float* __restrict__ c, int N, int K) {
    constexpr int kWarps = THREADS / 32;
    __shared__ float partial[kWarps][ROWS];
    const int row0 = blockIdx.x * ROWS;
    const int K4 = K / 4;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    float acc[ROWS] = {};
    for (int base = threadIdx.x; base < K4; base += THREADS * UNROLL) {
        float4 x[UNROLL], w[ROWS][UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const int k4 = base + u * THREADS;
            const bool in = k4 < K4;
            x[u] = in ? __ldg(a4 + k4) : make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                const int row = min(row0 + r, N - 1);
                w[r][u] = in ? __ldcs(reinterpret_cast<const float4*>(W + (size_t)row * K) + k4)
                             : make_float4(0.f, 0.f, 0.f, 0.f);
            }
        }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
#pragma unroll
            for (int r = 0; r < ROWS; ++r)
                acc[r] += x[u].x * w[r][u].x + x[u].y * w[r][u].y + x[u].z * w[r][u].z + x[u].w * w[r][u].w;
    }
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
        const float sum = warp_reduce_sum(acc[r]);
        if (lane == 0) partial[warp][r] = sum;
    }
    __syncthreads();
    if (threadIdx.x < ROWS && row0 + threadIdx.x < N) {
        float sum = 0.f;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) sum += partial[w][threadIdx.x];
        c[row0 + threadIdx.x] = sum;
    }
}

inline void launch_gemv_split_k(const float* a, const float* W, float* c, int N, int K, cudaStream_t s) {
    using namespace gemv_split;
    gemv_split_k<kRows, kUnroll, kThreads><<<(unsigned)ceil_div(N, kRows), kThreads, 0, s>>>(a, W, c, N, K);
}
