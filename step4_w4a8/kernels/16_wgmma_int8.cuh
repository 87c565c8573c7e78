// 16 Hopper's wgmma for Q4_0 x Q8_1 (sm_90a): a warpgroup issues each block's int8 product
// as one asynchronous instruction; a copy warpgroup feeds the stages and lends its registers.
//
// Idea: in 09 every warp issues its own mma.sync m16n8k32 per block and token tile, loads its
// activations with ldmatrix, and then converts and scales the tile's int32 sums: about 14
// instructions per mma, of which the product itself is one. Here a warpgroup (4 warps, 64 weight
// rows) issues one wgmma m64n128k32 per block for all 128 tokens of the CTA: the weights as A from
// registers (09's fragments and LOP3), the activation codes as B straight from the stage, where
// the TMA wrote them with the 128-byte swizzle wgmma reads. Each block's int32 product must be
// scaled before the next one's (every block has its own d_w and d_a), so a warpgroup reads the
// block's scales while the product runs, waits for it and scales it (I2FP, 09's TF32 outer
// product of d_w and d_a, FFMA); the other warpgroup's warps, on the same schedulers, issue
// meanwhile. A copy warpgroup (one thread asks) brings each
// stage in four requests: the weights and their scales stored in row blocks (one bulk copy each,
// w4a8_mma_layout.h) and the two activation boxes; full and empty mbarriers per stage. It gives
// its registers to the math warpgroups (setmaxnreg), which hold 64 int32 products and 64 FP32 sums.
// One CTA per SM: where the 128 x 128 tiles make a partial last wave (N = 14336: 448 tiles, 3.4
// waves of 132 SMs) or less than one (M = 128, N = 4096: 32 tiles), the schedule splits that
// wave's tiles in K and a second kernel adds their pieces (common/split_tail.cuh).
// Improves: no IMMA, LDSM or swizzle arithmetic in the loop, the unpacking done once per 128
// tokens, no copies; what the math warps issue is mostly the scale epilogue.
// Limit: that epilogue, a conversion and an FMA per output and block, is still the warps' work,
// and a warpgroup idles while it waits for each block's product: two chains per SM.
#pragma once

#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/split_tail.cuh"
#include "../../common/tma.cuh"
#include "../../common/wgmma.cuh"
#include "09_mma_int8.cuh"
#include "11_mma_int8_tma.cuh"

namespace wgmma_int8 {

// 128 weight rows (a row block: math warp w multiplies 16-row tile w, warpgroup w / 4 its half) x 128 tokens;
// a stage is 128 values of K (4 blocks), laid out as 09's stages but for the weights' order.
using C = mma_int8::Config<8, 1, 1, 1, 16, 6>;
constexpr int kStageStride = C::kStageBytes;
constexpr int kSmemBytes = C::kStages * kStageStride + 2 * C::kStages * 8;  // the stages, then the barriers
constexpr int kMathWarps = 8, kCopyWarps = 4;  // a copy warpgroup: setmaxnreg works per warpgroup
constexpr int kThreads = 32 * (kMathWarps + kCopyWarps);
constexpr int kTokenTiles = C::kBM / 8;  // a wgmma's N: 16 tiles of 8 tokens
// Every thread starts with kLaunchRegisters (65536 / kThreads, in multiples of 8); the copy
// warpgroup then lends most of its own to the math warpgroups.
constexpr int kLaunchRegisters = 65536 / kThreads / 8 * 8, kCopyRegisters = 40;
constexpr int kMathRegisters = (kLaunchRegisters + (kLaunchRegisters - kCopyRegisters) * kCopyWarps / kMathWarps) / 8 * 8;
static_assert((kMathRegisters - kLaunchRegisters) * kMathWarps <= (kLaunchRegisters - kCopyRegisters) * kCopyWarps,
              "the math warps take only what the copy warps gave");
static_assert(C::kRowTiles == kMathWarps && C::kRowTiles == kMmaRowBlockTiles, "a CTA is a row block: a 16-row tile per math warp");
static_assert(C::kBK == 128 && C::kBlocks == 4, "a stage's activation rows are one 128-byte swizzle span: 4 blocks");
static_assert(C::kActAt % 1024 == 0 && kStageStride % 1024 == 0, "swizzled boxes start on 1024-byte boundaries");
static_assert(C::kActScaleBytes / C::kBM == 16, "a token's scales in a stage: one 16-byte box row");
static_assert(C::kRowTiles * kMmaRows8 * C::kBM == kRowBlockTileValues, "the problem sizes the split workspace for these tiles");
static_assert(kSmemBytes <= 227 * 1024, "an sm_90 CTA has at most 227 KB of shared memory");

// The weights in row blocks of 8 tiles (W4A8Inputs' mma_block_words and mma_block_scales), the
// kernel's own argument (W4A8Args stays as small as 09 needs it: w4a8_layout.cuh).
struct RowBlockWeights {
    const uint32_t* words;
    const uint32_t* scales;
};
// A stage's weights: the row block's 8 tiles x 2 chunks of words (8 KB) and 8 tiles x 4 blocks of
// scales (1 KB), one bulk copy each, landing as [chunk][tile][512 bytes] and [block][tile][32 bytes].
__device__ __forceinline__ void copy_weights(uint8_t* stage, uint64_t* full, int kt, const RowBlockWeights& w, int K, int row_block) {
    const size_t at = (size_t)row_block * (K / C::kBK) + kt;
    bulk_copy(stage, reinterpret_cast<const uint8_t*>(w.words) + at * C::kWeightBytes, C::kWeightBytes, full);
    bulk_copy(stage + C::kWeightScalesAt, reinterpret_cast<const uint8_t*>(w.scales) + at * C::kWeightScaleBytes, C::kWeightScaleBytes,
              full);
}

// The copy thread: stages k_begin .. k_end - 1 of K, the first ones' weights before the PDL wait,
// their activations after it, then each stage once the math threads have released its buffer:
// four requests a stage.
__device__ void copy_stages(const W4A8Args& p, const RowBlockWeights& w, const mma_int8_tma::Maps& maps, uint8_t* smem, uint64_t* full,
                            uint64_t* empty, int row_block, int m0, int k_begin, int k_end) {
    using mma_int8_tma::copy_activations;
    const int first = min(C::kStages, k_end - k_begin);
    auto stage = [&](int s) { return smem + s * kStageStride; };
    for (int s = 0; s < first; ++s)
        arrive_expect_tx(&full[s], C::kStageBytes), copy_weights(stage(s), &full[s], k_begin + s, w, p.K, row_block);
    wait_for_prerequisite_grids();
    for (int s = 0; s < first; ++s) copy_activations<C>(stage(s), &full[s], k_begin + s, maps, m0);
    for (int i = first; i < k_end - k_begin; ++i) {
        const int s = i % C::kStages, kt = k_begin + i;
        wait_barrier(&empty[s], (i / C::kStages - 1) & 1);
        arrive_expect_tx(&full[s], C::kStageBytes);
        copy_weights(stage(s), &full[s], kt, w, p.K, row_block), copy_activations<C>(stage(s), &full[s], kt, maps, m0);
    }
}

// acc += the block's int32 products c, times 4·d_w·d_a: 09's epilogue on each of the 16 token
// tiles (c holds them in mma.sync's C layout, 4 per tile).
__device__ __forceinline__ void scale_block(float (&acc)[1][kTokenTiles][4], const int (&c)[4 * kTokenTiles], float2 dw,
                                            const float (&da)[kTokenTiles]) {
#pragma unroll
    for (int j = 0; j < kTokenTiles; ++j) mma_int8::add_scaled_products(acc[0][j], &c[4 * j], dw, da[j]);
}

// A math warp's loop: per block, its warpgroup's wgmma, then (while it runs) the block's d_w and
// the 16 d_a its lane needs; the wait, and the scaling. A stage is released once its last block
// has been scaled. (Two blocks per wait, into two sets of products, was slower: LAB_NOTES.md.)
__device__ void multiply_k_tiles(float (&acc)[1][kTokenTiles][4], uint8_t* smem, uint64_t* full, uint64_t* empty, int k_tiles) {
    const int tile = threadIdx.x / 32, lane = threadIdx.x % 32;
    const uint32_t sign = 0x80808080u;
    const uint64_t desc0 = smem_desc_sw128(smem + C::kActAt, 0);  // stage 0, block 0
    int c[4 * kTokenTiles];  // a block's int32 products
    uint32_t a[4];
    RingPosition at;
    for (int kt = 0; kt < k_tiles; ++kt, at = at.next(C::kStages)) {
        wait_barrier(&full[at.stage], at.parity);
        const uint8_t* stage = smem + at.stage * kStageStride;
        const uint4 piece[2] = {*reinterpret_cast<const uint4*>(stage + (0 * C::kRowTiles + tile) * 512 + lane * 16),
                                *reinterpret_cast<const uint4*>(stage + (1 * C::kRowTiles + tile) * 512 + lane * 16)};
        const uint32_t* w_scales = reinterpret_cast<const uint32_t*>(stage + C::kWeightScalesAt) + tile * 8 + lane / 4;
        const float* a_scales = reinterpret_cast<const float*>(stage + C::kActScalesAt);
        const uint64_t desc = desc0 + (uint64_t)((at.stage * kStageStride) >> 4);
#pragma unroll
        for (int kb = 0; kb < C::kBlocks; ++kb) {
            mma_int8::block_a_fragment(a, piece[kb / 2], kb % 2, sign);
            wgmma_fence();
            wgmma_m64n128k32_s8_rs(c, a, desc + 2 * kb);  // block kb's 32 bytes: + 2 in the address field
            wgmma_commit();
            const float2 dw = __half22float2(bits_half2(w_scales[kb * C::kRowTiles * 8]));  // rows g, g + 8
            float da[kTokenTiles];  // token g of each token tile's d_a, read while the product runs
#pragma unroll
            for (int j = 0; j < kTokenTiles; ++j) da[j] = a_scales[(8 * j + lane / 4) * C::kBlocks + kb];
            wgmma_wait<0>();
            keep_registers(c);
            keep_registers(a);
            scale_block(acc, c, dw, da);
        }
        arrive(&empty[at.stage]);
    }
}

// Tile t of the schedule: the tiles in the order of a grid of (row blocks, token tiles), so that
// neighbouring CTAs share a token tile's activations in L2.
struct TileOrigin {
    int row_block, m0;
};
__device__ __forceinline__ TileOrigin tile_origin(int N, int tile) {
    const int row_blocks = (N + kMmaRows8 * C::kRowTiles - 1) / (kMmaRows8 * C::kRowTiles);
    return {tile % row_blocks, tile / row_blocks * C::kBM};
}

// A split tail tile's summed float4 q of math thread t (common/split_tail.cuh's sum_split_tiles):
// its token tile q's C fragment, stored where store_mma_tiles would store it.
struct StoreSummedTile {
    float* c;
    int M, N;
    __device__ void operator()(int tile, int q, int t, float4 v) const {
        const TileOrigin at = tile_origin(N, tile);
        const float fragment[4] = {v.x, v.y, v.z, v.w};
        store_mma_fragment(fragment, c, M, N, (at.row_block * C::kRowTiles + t / 32) * kMmaRows8, at.m0 + 8 * q, t % 32);
    }
};

// TAIL_PIECES: the schedule splits tail tiles (an instance of its own: the few lines that store a
// piece's sums, compiled into the math warps, cost the loop about 2% where nothing is split).
template <bool TAIL_PIECES>
__global__ void __launch_bounds__(kThreads, 1) w4a8_wgmma_int8(W4A8Args p, RowBlockWeights w,
                                                                const __grid_constant__ mma_int8_tma::Maps maps, SplitTail split) {
    extern __shared__ __align__(1024) uint8_t smem[];
    if (threadIdx.x == 0 && shared_address(smem) % 1024 != 0) __trap();
    uint64_t* full = reinterpret_cast<uint64_t*>(smem + C::kStages * kStageStride);  // stage landed
    uint64_t* empty = full + C::kStages;                                              // stage read by every math thread
    const int warp = threadIdx.x / 32;
    const SplitWork work = split_work(split, blockIdx.x);
    const TileOrigin at = tile_origin(p.N, work.tile);
    if (threadIdx.x == 0) {
        for (int s = 0; s < C::kStages; ++s) init_barrier(&full[s], 1), init_barrier(&empty[s], 32 * kMathWarps);
        fence_barrier_init();
    }
    __syncthreads();
    if (warp >= kMathWarps) {
        registers_down<kCopyRegisters>();
        if (threadIdx.x == 32 * kMathWarps) copy_stages(p, w, maps, smem, full, empty, at.row_block, at.m0, work.k_begin, work.k_end);
        return;
    }
    registers_up<kMathRegisters>();
    float acc[1][kTokenTiles][4] = {};
    multiply_k_tiles(acc, smem, full, empty, work.k_steps());
    // The codes were 16·(n - 8) and the scale products 4·d_w·d_a: the sums are 64 times the outputs.
    scale_mma_tiles(acc, 1.f / 64);
    if constexpr (TAIL_PIECES) {
        // The loop needed every register: which piece this is, is derived again rather than held.
        const SplitWork piece = split_work(split, cta_index_again());
        if (piece.piece >= 0) {  // a piece of a tail tile: sum_split_tiles adds the pieces (common/split_tail.cuh)
            store_split_piece<4 * kTokenTiles, 32 * kMathWarps>(&acc[0][0][0], split, piece, thread_index_again());
            return;
        }
    }
    store_mma_tiles(acc, p.c, p.M, p.N, (at.row_block * C::kRowTiles + warp) * kMmaRows8, at.m0);
}

}  // namespace wgmma_int8

// What this kernel needs to run: sm_90a code (wgmma), which only an sm_90 GPU runs.
constexpr ArchNeed kWgmmaInt8Arch{90, true};

inline std::string w4a8_wgmma_int8_why_not(const GemmCase& c, const Gpu&) {
    static_assert(kMmaInt8KMultiple % wgmma_int8::C::kBK == 0, "09's rule on K makes whole stages of this rung");
    return mma_int8_k_reason(c);
}

// The schedule of a case's tiles (common/split_tail.cuh): one CTA per SM, the tail split in K.
inline SplitTail wgmma_int8_schedule(const W4A8Args& p, int sms) {
    using namespace wgmma_int8;
    const dim3 grid = mma_int8::tile_grid<C>(p);
    return plan_split_tail((int)(grid.x * grid.y), sms, p.K / C::kBK);
}

inline void launch_w4a8_wgmma_int8(const W4A8Args& p, cudaStream_t s) {
    using namespace wgmma_int8;
    const W4A8Inputs& in = static_cast<const W4A8Inputs&>(p);  // every row's launcher is handed one
    const mma_int8_tma::Maps maps = mma_int8_tma::activation_maps<C>(p);
    SplitTail split = wgmma_int8_schedule(p, in.sms);
    split.partials = in.split_partials;
    auto kernel = split.tail > 0 ? w4a8_wgmma_int8<true> : w4a8_wgmma_int8<false>;
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    launch_with_pdl(kernel, dim3(split.ctas()), dim3(kThreads), kSmemBytes, s, p, RowBlockWeights{in.mma_block_words, in.mma_block_scales}, maps,
                    split);
    if (split.tail > 0)
        launch_with_pdl(sum_split_tiles<4 * kTokenTiles, 32 * kMathWarps, StoreSummedTile>, sum_split_grid<4 * kTokenTiles>(split),
                        dim3(32 * kMathWarps), 0, s, split, StoreSummedTile{p.c, p.M, p.N});
}
