// 11 09's math on a 64 x 128 tile, its stages copied by the TMA (sm_90): one thread asks, mbarriers count.
//
// Idea: in 09 every thread copies its share of each stage with cp.async: on this tile at M=512, about 60 of
// the main loop's ~1090 instructions per warp and stage are address arithmetic and copies, and
// a __syncthreads per stage makes the four warps wait for the slowest. Here one thread issues a
// stage as ten requests to the Tensor Memory Accelerator: the activation codes as one 128 x 128
// box of a tensor map (the TMA swizzles the rows as ldmatrix wants them, and fills tokens past M
// with zeros, so no clamp), their FP32 scales as a second box, and the weights and their scales
// (contiguous per row tile) as bulk copies. A "full" mbarrier per stage counts the bytes in;
// every thread arrives on an "empty" mbarrier when it has read the stage, and the copying thread
// waits on that before it overwrites it. The math, compute_stage, is 09's, unchanged.
// Limit: on the H200 it is slower than 09 (TENSOR_CORES.md, "The copy engine"), though its math warps
// issue fewer instructions per stage: the copying thread lives in a math warp, so each stage
// that warp also waits for the slowest warp to release a buffer and then issues the copies, and
// the whole CTA waits for that warp. A copy warp of its own needs registers this tile does not have.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/tma.cuh"
#include "09_mma_int8.cuh"

namespace mma_int8_tma {

// 64 rows x 128 tokens, 4 warps, 4 stages: the large tile 09 had before it turned to 128 x 64
// (TENSOR_CORES.md, "Turning the tile"), the one this rung was built and measured on.
using C = mma_int8::Config<2, 2, 1, 2, 8, 4, 2>;
static_assert(C::kWarpsK == 1, "one warp per tile of outputs: no split-K reduction");
static_assert(C::kBK == 128, "a stage's activation rows are one 128-byte swizzle span");
static_assert(C::kBM <= 256 && C::kBK <= 256, "a TMA box has at most 256 elements per side");

// A stage is laid out as in 09 (Config's kWeightScalesAt, kActAt, kActScalesAt), so that 09's
// compute_stage reads it unchanged; but the codes' box must start on a 1024-byte boundary
// (the 128-byte swizzle repeats every 8 rows of 128 bytes), so the stages are 1024-byte multiples
// apart and the first one starts where that puts the codes on a boundary.
constexpr int kStageTxBytes = C::kStageBytes;  // what the copies of one stage bring
constexpr int kStageStride = (kStageTxBytes + 1023) / 1024 * 1024;
constexpr int kFirstStageAt = (1024 - C::kActAt % 1024) % 1024;
constexpr int kWeightTileBytes = C::kWeightBytes / C::kRowTiles;      // a row tile's weights in a stage
constexpr int kWeightScaleTileBytes = C::kWeightScaleBytes / C::kRowTiles;
constexpr int kSmemBytes = kFirstStageAt + C::kStages * kStageStride + 2 * C::kStages * 8;  // stages, then the barriers
static_assert((kFirstStageAt + C::kActAt) % 1024 == 0 && kStageStride % 1024 == 0, "swizzled boxes start on 1024-byte boundaries");
static_assert((kFirstStageAt + C::kWeightScalesAt) % 16 == 0 && (kFirstStageAt + C::kActScalesAt) % 128 == 0, "copy destinations aligned");
static_assert(kWeightTileBytes % 16 == 0 && kWeightScaleTileBytes % 16 == 0, "bulk copies move multiples of 16 bytes");
static_assert(C::kActScaleBytes / C::kBM == 16, "a token's scales in a stage: one 16-byte box row");

struct Maps {
    CUtensorMap act;         // codes: M x K int8, boxes kBM x kBK, 128-byte swizzle
    CUtensorMap act_scales;  // FP32 d: M x K/32, boxes kBM x kBlocks
};

// Thread 0's requests for stage kt: the weights (known before the quantizer has run) ...
__device__ __forceinline__ void copy_weights(uint8_t* stage, uint64_t* full, int kt, const W4A8Args& p, int tile0) {
    const int last_tile = last_mma_row_tile(p.N);
#pragma unroll 1  // addresses worked out when needed: registers are what the other 127 threads are short of
    for (int t = 0; t < C::kRowTiles; ++t) {
        const size_t tile = (size_t)min(tile0 + t, last_tile);
        const uint8_t* words = reinterpret_cast<const uint8_t*>(p.mma_words) + (tile * (p.K / kMmaChunk8)) * 512;
        const uint8_t* scales = reinterpret_cast<const uint8_t*>(p.mma_scales) + (tile * (p.K / QK4_0)) * 32;
        bulk_copy(stage + t * kWeightTileBytes, words + (size_t)kt * kWeightTileBytes, kWeightTileBytes, full);
        bulk_copy(stage + C::kWeightScalesAt + t * kWeightScaleTileBytes, scales + (size_t)kt * kWeightScaleTileBytes,
                  kWeightScaleTileBytes, full);
    }
}
// ... and the activations (written by the quantizer).
template <class Tile = C>
__device__ __forceinline__ void copy_activations(uint8_t* stage, uint64_t* full, int kt, const Maps& maps, int m0) {
    tensor_copy_2d(stage + Tile::kActAt, &maps.act, kt * Tile::kBK, m0, full);
    tensor_copy_2d(stage + Tile::kActScalesAt, &maps.act_scales, kt * Tile::kBlocks, m0, full);
}
// The two tensor maps of a tile of kBM tokens and kBK values of K (kBlocks blocks).
template <class Tile = C>
inline Maps activation_maps(const W4A8Args& p) {
    return {tensor_map_2d(p.a_qs, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, p.M, p.K, Tile::kBM, Tile::kBK, CU_TENSOR_MAP_SWIZZLE_128B),
            tensor_map_2d(p.a_d, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, p.M, p.K / QK4_0, Tile::kBM, Tile::kBlocks,
                          CU_TENSOR_MAP_SWIZZLE_NONE)};
}

__global__ void __launch_bounds__(C::kThreads, C::kMinCtasPerSm) w4a8_mma_int8_tma(W4A8Args p, const __grid_constant__ Maps maps) {
    // Dynamic shared memory starts at the CTA's first byte, 1024-aligned; declared so, ptxas can merge
    // neighbouring loads (as in 09). A layout that broke that would trap here, not give wrong sums.
    extern __shared__ __align__(1024) uint8_t smem[];
    if (threadIdx.x == 0 && shared_address(smem) % 1024 != 0) __trap();
    uint64_t* full = reinterpret_cast<uint64_t*>(smem + kFirstStageAt + C::kStages * kStageStride);  // stage landed
    uint64_t* empty = full + C::kStages;                                              // stage read by all
    const int warp = threadIdx.x / 32, wm = warp % C::kWarpsM, wn = warp / C::kWarpsM;
    const int tile0 = blockIdx.x * C::kRowTiles, m0 = blockIdx.y * C::kBM;
    const int k_tiles = p.K / C::kBK;
    const bool copier = threadIdx.x == 0;
    auto stage = [&](int kt) { return smem + kFirstStageAt + (kt % C::kStages) * kStageStride; };

    if (copier) {
        for (int s = 0; s < C::kStages; ++s) init_barrier(&full[s], 1), init_barrier(&empty[s], C::kThreads);
        fence_barrier_init();
    }
    __syncthreads();
    if (copier) {  // launched with PDL: the first stages' weights while the quantizer still runs
        for (int s = 0; s < C::kStages - 1 && s < k_tiles; ++s)
            arrive_expect_tx(&full[s], kStageTxBytes), copy_weights(stage(s), &full[s], s, p, tile0);
        wait_for_prerequisite_grids();
        for (int s = 0; s < C::kStages - 1 && s < k_tiles; ++s) copy_activations(stage(s), &full[s], s, maps, m0);
    }

    float acc[C::kTilesN][C::kTilesM][4] = {};
    for (int kt = 0; kt < k_tiles; ++kt) {
        // The copier refills the stage read in the previous step, once every thread is done with it
        // (before its own step, as in 09: three stages in flight; after it, two, and it was slower).
        if (const int next = kt + C::kStages - 1; copier && next < k_tiles) {
            const int s = next % C::kStages;
            if (next >= C::kStages) wait_barrier(&empty[s], (next / C::kStages - 1) & 1);
            arrive_expect_tx(&full[s], kStageTxBytes);
            copy_weights(stage(next), &full[s], next, p, tile0), copy_activations(stage(next), &full[s], next, maps, m0);
        }
        wait_barrier(&full[kt % C::kStages], (kt / C::kStages) & 1);
        mma_int8::compute_stage<C>(acc, stage(kt), wn, wm, 0);
        arrive(&empty[kt % C::kStages]);
    }
    mma_int8::store_outputs<C>(acc, p, tile0, m0, wn, wm);
}

}  // namespace mma_int8_tma

// Where a rung built for 09's large-tile range (this one) runs: K a multiple of a warp's 128
// values, M > 128 (below M = 129 09 chooses narrower tiles, and so does this rung's row), and
// tiles of `tokens` that the grid's y can hold. `tile` names the rung's tile in its SKIP line.
// (Rung 16 once shared this rule; with its last-wave schedule it runs at every M.)
inline std::string large_tile_why_not(const GemmCase& c, const std::string& tile, int tokens) {
    if (const std::string k = mma_int8_k_reason(c); !k.empty()) return k;
    if (c.M <= 128) return tile + " is for M > 128, 09's large-tile range; at M <= 128 09's narrower tiles run";
    return grid_limit_reason('y', ceil_div(c.M, (int64_t)tokens));
}
inline std::string w4a8_mma_int8_tma_why_not(const GemmCase& c, const Gpu&) {
    return large_tile_why_not(c, "the TMA tile", mma_int8_tma::C::kBM);
}

inline void launch_w4a8_mma_int8_tma(const W4A8Args& p, cudaStream_t s) {
    using namespace mma_int8_tma;
    const Maps maps = activation_maps(p);
    CUDA_CHECK(cudaFuncSetAttribute(w4a8_mma_int8_tma, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    launch_with_pdl(w4a8_mma_int8_tma, mma_int8::tile_grid<C>(p), dim3(C::kThreads), kSmemBytes, s, p, maps);
}
