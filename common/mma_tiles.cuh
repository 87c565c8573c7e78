// mma_tiles.cuh - the end of a tensor-core GEMM whose warps each hold TILES_N x TILES_M m16n8
// accumulator tiles in FP32 (steps 3 and 4): the sum over warps that split K, and the store.
#pragma once

#include "async_copy.cuh"

#include <cuda_runtime.h>

// Warps that split K add their VALUES partial sums (acc) through shared memory (`scratch`, at least
// (WARPS_K - 1) * warps / WARPS_K * VALUES * 32 floats, free to overwrite: call after the last
// stage was read). Warp wk = 0 of each group keeps the total; returns false for the others,
// which have nothing left to do. `owner` numbers the groups of WARPS_K warps.
template <int WARPS_K, int VALUES>
__device__ __forceinline__ bool sum_split_k(float* acc, float* scratch, int owner, int wk) {
    const int lane = threadIdx.x % 32;
    if (wk > 0)
#pragma unroll
        for (int i = 0; i < VALUES; ++i) scratch[((owner * (WARPS_K - 1) + wk - 1) * VALUES + i) * 32 + lane] = acc[i];
    __syncthreads();
    if (wk > 0) return false;
    for (int other = 0; other < WARPS_K - 1; ++other)
#pragma unroll
        for (int i = 0; i < VALUES; ++i) acc[i] += scratch[((owner * (WARPS_K - 1) + other) * VALUES + i) * 32 + lane];
    return true;
}

// The end of a cp.async pipeline (async_copy.cuh) whose warps split K WARPS_K ways: drain this
// thread's copies, wait until every warp has read its last stage (the pipeline's buffers become
// sum_split_k's scratch), and sum. Returns whether this warp stores (always, without a split).
template <int WARPS_K, int VALUES>
__device__ __forceinline__ bool finish_split_k(float* acc, void* smem, int owner, int wk) {
    if constexpr (WARPS_K == 1) {
        return true;
    } else {
        wait_copies<0>();
        __syncthreads();
        return sum_split_k<WARPS_K, VALUES>(acc, reinterpret_cast<float*>(smem), owner, wk);
    }
}

// Multiplies a warp's tiles by `factor`: for kernels whose accumulators hold a power of two times
// their outputs (step 4's rungs 09 and 15), before the store.
template <int TILES_N, int TILES_M>
__device__ __forceinline__ void scale_mma_tiles(float (&acc)[TILES_N][TILES_M][4], float factor) {
#pragma unroll
    for (int tn = 0; tn < TILES_N; ++tn)
#pragma unroll
        for (int tm = 0; tm < TILES_M; ++tm)
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[tn][tm][v] *= factor;
}

// Stores one m16n8 C fragment into row-major c[M][N] (a token per row of c, a weight row per
// column): lane l (g = l / 4, t = l % 4) holds values 0 and 1 at weight row row0 + g and tokens
// token0 + 2t, + 2t + 1, values 2 and 3 at row row0 + g + 8. Outputs past M or N are not written.
__device__ __forceinline__ void store_mma_fragment(const float (&v)[4], float* c, int M, int N, int row0, int token0, int lane) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int n = row0 + lane / 4 + 8 * (i / 2);
        const int m = token0 + 2 * (lane % 4) + i % 2;
        if (n < N && m < M) c[(size_t)m * N + n] = v[i];
    }
}

// Stores a warp's tiles, tile (tn, tm) starting at weight row row0 + 16·tn and token
// token0 + 8·tm.
template <int TILES_N, int TILES_M>
__device__ __forceinline__ void store_mma_tiles(const float (&acc)[TILES_N][TILES_M][4], float* c, int M, int N, int row0,
                                                int token0) {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int tn = 0; tn < TILES_N; ++tn)
#pragma unroll
        for (int tm = 0; tm < TILES_M; ++tm) store_mma_fragment(acc[tn][tm], c, M, N, row0 + 16 * tn, token0 + 8 * tm, lane);
}
