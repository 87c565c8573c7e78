// 08 double buffering: load the next tile while computing this one.
//
// Idea: two shared-memory buffers. At the top of each step the global loads of tile k+1 are
// issued into registers; the warps compute on tile k from the other buffer while those loads are
// in flight; then the registers are stored into the free buffer. One __syncthreads per step
// instead of two, and the load latency hides behind 64 x BK FMAs per thread. With the loads off
// the critical path, a deeper BK = 16 (07 uses 8) halves the barriers (exercise 2 of the README
// times BK = 8 against 16).
// Improves: the FMA pipes no longer idle at every tile boundary.
// Limit: at M = 512 the grid is 128 tiles for 132 SMs, one block of 8 warps each, and every FMA
// still needs a share of a shared-memory load: about two-thirds of the FP32 peak. And FP32 on the
// CUDA cores tops out near 67 TFLOPS, against ~990 for FP16 on the tensor cores: steps 3-4 go there.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "07_warptiling.cuh"  // the warp tile (WarpTileConfig, warp_tile_mma) this kernel double-buffers

namespace double_buffered {

using namespace warptiling;  // the warp tile this kernel double-buffers

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads) gemm_double_buffered(const float* A, const float* W, float* C,
                                                                        int M, int N, int K) {
    __shared__ __align__(16) float As[2][Cfg::BK * Cfg::LDA];
    __shared__ __align__(16) float Ws[2][Cfg::BK * Cfg::LDW];
    TileLoaderVec4<Cfg::BM, Cfg::BK, Cfg::kThreads, Cfg::LDA> load_a;
    TileLoaderVec4<Cfg::BN, Cfg::BK, Cfg::kThreads, Cfg::LDW> load_w;
    const WarpTilePosition<Cfg> pos;
    const int m0 = blockIdx.y * Cfg::BM, n0 = blockIdx.x * Cfg::BN;
    float acc[Cfg::TM][Cfg::TN] = {};

    load_a.fetch(A, M, K, m0, 0);
    load_w.fetch(W, N, K, n0, 0);
    load_a.store(As[0]);
    load_w.store(Ws[0]);
    __syncthreads();
    int cur = 0;
    for (int k0 = 0; k0 < K; k0 += Cfg::BK) {
        const bool has_next = k0 + Cfg::BK < K;
        if (has_next) {  // issue the next tile's global loads; they complete during the math below
            load_a.fetch(A, M, K, m0, k0 + Cfg::BK);
            load_w.fetch(W, N, K, n0, k0 + Cfg::BK);
        }
        warp_tile_mma<Cfg>(As[cur], Ws[cur], pos.warp_m0, pos.warp_n0, pos.lane_m, pos.lane_n, acc);
        if (has_next) {  // the other buffer was last read before the previous barrier: free to fill
            load_a.store(As[cur ^ 1]);
            load_w.store(Ws[cur ^ 1]);
        }
        __syncthreads();
        cur ^= 1;
    }
    pos.store(C, M, N, m0, n0, acc);
}

}  // namespace double_buffered

template <class Cfg>
inline std::string gemm_double_buffered_why_not(const GemmCase& c, const Gpu&) { return float4_tile_reason(c, Cfg::BM); }

template <class Cfg>
inline void launch_gemm_double_buffered(const float* A, const float* W, float* C, int M, int N, int K, cudaStream_t s) {
    using namespace double_buffered;
    dim3 grid((unsigned)ceil_div(N, Cfg::BN), (unsigned)ceil_div(M, Cfg::BM));
    gemm_double_buffered<Cfg><<<grid, Cfg::kThreads, 0, s>>>(A, W, C, M, N, K);
}
