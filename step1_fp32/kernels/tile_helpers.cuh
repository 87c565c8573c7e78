// tile_helpers.cuh - the pieces kernels 04-10 share, so each kernel file shows only its own idea.
//
// Both operands of C = A * W^T are K-contiguous, so both tiles are loaded the same way: lanes
// along k (coalesced), stored transposed into shared memory as S[k][row]. The compute loop then
// reads a row of S (one k, many rows) with consecutive threads on consecutive addresses.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/launch.h"
#include "../../common/tile_store.cuh"  // store_c_quad, used by 06-08

#include <string>

// What 16-byte float4 loads need of a shape (06-10): rows of K floats that start 16-byte aligned.
inline std::string float4_k_reason(int64_t K) { return K % 4 == 0 ? "" : "float4 loads: needs K % 4 == 0"; }
// ... for a block tile of BM rows of C (06-08): that, and the grid's y over M.
inline std::string float4_tile_reason(const GemmCase& c, int bm) {
    return first_reason({float4_k_reason(c.K), grid_limit_reason('y', ceil_div(c.M, bm))});
}
// ... for a GEMV (09, 10): one token, and that.
inline std::string gemv_float4_reason(const GemmCase& c) {
    return first_reason({c.M == 1 ? "" : "GEMV: needs M = 1", float4_k_reason(c.K)});
}

namespace tile_helpers {

// Scalar tile load (04, 05): rows [row0, row0+ROWS) x k [k0, k0+BK) of X[nrows][K] into
// S[BK][LD]; zeros where the tile sticks out of the matrix.
template <int ROWS, int BK, int THREADS, int LD>
__device__ __forceinline__ void load_tile_transposed(const float* X, int nrows, int K, int row0, int k0, float* S) {
    static_assert(LD >= ROWS, "shared-memory row too short for the tile");
    static_assert((ROWS * BK) % THREADS == 0, "every thread must load the same number of elements");
#pragma unroll
    for (int i = 0; i < ROWS * BK / THREADS; ++i) {
        const int idx = i * THREADS + threadIdx.x;
        const int r = idx / BK, kk = idx % BK;
        const int row = row0 + r, k = k0 + kk;
        S[kk * LD + r] = (row < nrows && k < K) ? X[(size_t)row * K + k] : 0.f;
    }
}

// Vectorized tile load (06-08): the same tile, read as 16-byte float4 (needs K % 4 == 0, so a
// float4 is either wholly inside the row or wholly past its end). fetch() issues the global
// loads into registers, store() writes them transposed; a double-buffered kernel (08) puts its
// compute between the two so the loads' latency is hidden.
template <int ROWS, int BK, int THREADS, int LD>
struct TileLoaderVec4 {
    static_assert(BK % 4 == 0, "BK must be a multiple of 4 for float4 loads");
    static_assert(LD >= ROWS && LD % 4 == 0, "shared-memory row must hold the tile and keep 16-byte alignment");
    static_assert((ROWS * BK / 4) % THREADS == 0, "every thread must load the same number of float4");
    static constexpr int kPerThread = ROWS * BK / 4 / THREADS;
    float4 regs[kPerThread];

    __device__ __forceinline__ void fetch(const float* X, int nrows, int K, int row0, int k0) {
#pragma unroll
        for (int i = 0; i < kPerThread; ++i) {
            const int idx = i * THREADS + threadIdx.x;
            const int r = idx / (BK / 4), k = k0 + (idx % (BK / 4)) * 4;
            const int row = row0 + r;
            regs[i] = (row < nrows && k < K) ? *reinterpret_cast<const float4*>(X + (size_t)row * K + k)
                                             : make_float4(0.f, 0.f, 0.f, 0.f);
        }
    }
    __device__ __forceinline__ void store(float* S) const {
#pragma unroll
        for (int i = 0; i < kPerThread; ++i) {
            const int idx = i * THREADS + threadIdx.x;
            const int r = idx / (BK / 4), kk = (idx % (BK / 4)) * 4;
            S[(kk + 0) * LD + r] = regs[i].x;
            S[(kk + 1) * LD + r] = regs[i].y;
            S[(kk + 2) * LD + r] = regs[i].z;
            S[(kk + 3) * LD + r] = regs[i].w;
        }
    }
};

}  // namespace tile_helpers
