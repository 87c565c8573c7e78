// 07 warp tiling: give each warp its own compact sub-tile of the block tile.
//
// Idea: the block tile (BM x BN) is split among warps (WARPS_M x WARPS_N), and inside a warp the
// 32 lanes form a 4 x 8 grid. A lane owns GM x GN groups of 4 x 4 outputs spaced one "warp step"
// (16 rows, 32 columns) apart. Per k, a warp then reads only 4 x 16 bytes of A (shared by 8 lanes
// each: a broadcast) and 8 x 16 contiguous bytes of W: one shared-memory wavefront per float4
// read instead of two in 06. Warp, lane and thread levels now mirror the hierarchy that
// tensor-core kernels (steps 3-4) use.
// Limit: between tiles every warp still waits for its global loads; 08 overlaps them.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "tile_helpers.cuh"

namespace warptiling {

using namespace tile_helpers;

template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_>
struct WarpTileConfig {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WARPS_M = WARPS_M_, WARPS_N = WARPS_N_;
    static constexpr int kThreads = 32 * WARPS_M * WARPS_N;
    static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // one warp's tile
    static constexpr int LANES_M = 4, LANES_N = 8;              // lanes in a warp, as a grid
    static constexpr int STEP_M = LANES_M * 4, STEP_N = LANES_N * 4;  // rows/cols a warp covers per 4x4 group
    static constexpr int GM = WM / STEP_M, GN = WN / STEP_N;    // 4x4 groups per lane
    static constexpr int TM = GM * 4, TN = GN * 4;              // outputs per lane
    static constexpr int LDA = BM + 4, LDW = BN + 4;            // shared-memory row lengths
    static_assert(BM % WARPS_M == 0 && BN % WARPS_N == 0, "warps must tile the block tile");
    static_assert(WM % STEP_M == 0 && WN % STEP_N == 0, "lane groups must tile the warp tile");
    static_assert(LANES_M * LANES_N == 32, "a warp has 32 lanes");
};

// The inner product of one BK-deep slice, shared by 07 and 08: per k, load the lane's fragments
// (float4 each) and accumulate their outer product.
template <class Cfg>
__device__ __forceinline__ void warp_tile_mma(const float* As, const float* Ws, int warp_m0, int warp_n0,
                                              int lane_m, int lane_n, float (&acc)[Cfg::TM][Cfg::TN]) {
#pragma unroll
    for (int kk = 0; kk < Cfg::BK; ++kk) {
        float a[Cfg::TM], w[Cfg::TN];
#pragma unroll
        for (int g = 0; g < Cfg::GM; ++g)
            *reinterpret_cast<float4*>(&a[g * 4]) =
                *reinterpret_cast<const float4*>(&As[kk * Cfg::LDA + warp_m0 + g * Cfg::STEP_M + lane_m * 4]);
#pragma unroll
        for (int g = 0; g < Cfg::GN; ++g)
            *reinterpret_cast<float4*>(&w[g * 4]) =
                *reinterpret_cast<const float4*>(&Ws[kk * Cfg::LDW + warp_n0 + g * Cfg::STEP_N + lane_n * 4]);
        // W column outer, A row inner: the same 64 FMAs; this order measured faster on the H200
        // than i outer when it was written (swap the two loops and time --kernel warptiling).
#pragma unroll
        for (int j = 0; j < Cfg::TN; ++j)
#pragma unroll
            for (int i = 0; i < Cfg::TM; ++i) acc[i][j] += a[i] * w[j];
    }
}

// Where this thread's tile sits, and the epilogue that writes it (shared by 07 and 08).
template <class Cfg>
struct WarpTilePosition {
    int warp_m0, warp_n0, lane_m, lane_n;
    __device__ __forceinline__ WarpTilePosition() {
        const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
        warp_m0 = (warp / Cfg::WARPS_N) * Cfg::WM;
        warp_n0 = (warp % Cfg::WARPS_N) * Cfg::WN;
        lane_m = lane / Cfg::LANES_N;
        lane_n = lane % Cfg::LANES_N;
    }
    __device__ __forceinline__ void store(float* C, int M, int N, int m0, int n0,
                                          const float (&acc)[Cfg::TM][Cfg::TN]) const {
#pragma unroll
        for (int i = 0; i < Cfg::TM; ++i) {
            const int m = m0 + warp_m0 + (i / 4) * Cfg::STEP_M + lane_m * 4 + i % 4;
#pragma unroll
            for (int g = 0; g < Cfg::GN; ++g) {
                const int n = n0 + warp_n0 + g * Cfg::STEP_N + lane_n * 4;
                store_c_quad(C, M, N, m, n, make_float4(acc[i][g * 4], acc[i][g * 4 + 1], acc[i][g * 4 + 2], acc[i][g * 4 + 3]));
            }
        }
    }
};

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads) gemm_warptiling(const float* A, const float* W, float* C, int M,
                                                                   int N, int K) {
    __shared__ __align__(16) float As[Cfg::BK * Cfg::LDA];
    __shared__ __align__(16) float Ws[Cfg::BK * Cfg::LDW];
    TileLoaderVec4<Cfg::BM, Cfg::BK, Cfg::kThreads, Cfg::LDA> load_a;
    TileLoaderVec4<Cfg::BN, Cfg::BK, Cfg::kThreads, Cfg::LDW> load_w;
    const WarpTilePosition<Cfg> pos;
    const int m0 = blockIdx.y * Cfg::BM, n0 = blockIdx.x * Cfg::BN;
    float acc[Cfg::TM][Cfg::TN] = {};
    for (int k0 = 0; k0 < K; k0 += Cfg::BK) {
        load_a.fetch(A, M, K, m0, k0);
        load_w.fetch(W, N, K, n0, k0);
        load_a.store(As);
        load_w.store(Ws);
        __syncthreads();
        warp_tile_mma<Cfg>(As, Ws, pos.warp_m0, pos.warp_n0, pos.lane_m, pos.lane_n, acc);
        __syncthreads();
    }
    pos.store(C, M, N, m0, n0, acc);
}

}  // namespace warptiling

template <class Cfg>
inline std::string gemm_warptiling_why_not(const GemmCase& c, const Gpu&) { return float4_tile_reason(c, Cfg::BM); }

template <class Cfg>
inline void launch_gemm_warptiling(const float* A, const float* W, float* C, int M, int N, int K, cudaStream_t s) {
    using namespace warptiling;
    dim3 grid((unsigned)ceil_div(N, Cfg::BN), (unsigned)ceil_div(M, Cfg::BM));
    gemm_warptiling<Cfg><<<grid, Cfg::kThreads, 0, s>>>(A, W, C, M, N, K);
}
