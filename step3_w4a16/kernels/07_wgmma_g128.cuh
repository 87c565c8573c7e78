// 07 Hopper: group-128 INT4 weights dequantized in registers into wgmma (sm_90a), the activations
// brought by the TMA, a copy warp feeding two math warpgroups through mbarriers.
//
// Idea: 04 issues mma.sync, a warp's synchronous 16x8x16 product, from the same warps that copy
// and dequantize; on the H200 that instruction tops out near 600 TFLOPS and each warp waits for
// its own products. wgmma is Hopper's asynchronous warpgroup product: four warps issue one
// 64 x N x 16 product (here N = the CTA's tokens, up to 128), then go on dequantizing while the
// tensor cores work. The weights are the product's A operand, taken from registers in mma.sync's
// fragment layout: 04's repacked stream (w4a16_formats.h) fits it unchanged, warp w of a
// warpgroup holding rows 16w..16w+15, so the 0x6400 dequantization (LOP3, HSUB2, HMUL2, exactly
// fp16((q - z)·s)) feeds the tensor cores with no shuffle. The activations are B, read by the
// tensor cores straight from shared memory through a descriptor (common/wgmma.cuh): no ldmatrix.
// Roles: warp 8 is the copy warp. Its lane 0 asks the TMA for a stage's activation box (tokens x
// 64 values of K, 128-byte swizzle, tokens past M filled with zeros) and bulk-copies the stage's
// weights and scales, stored for this kernel as one contiguous piece per stage and row block of
// 128 rows (w4a16_formats.h: the copy engine spends a fixed time per request). A "full" mbarrier
// per stage counts the bytes in; each math thread arrives on the stage's "empty" mbarrier when its
// wgmmas have read it, and the copy warp waits for that before refilling the stage. Warps 0-7 are
// two warpgroups of 64 weight rows each; both multiply the same activations. A CTA computes
// 128 weight rows x kBM tokens over all of K, so each accumulator lives across K and the scales
// are applied during dequantization, before the product.
// Improves: the tensor cores work while the warps dequantize (the two warpgroups interleave, and
// in the Overlap variant a warpgroup dequantizes its next stage while its own products run); no
// __syncthreads, no per-thread copy instructions, no ldmatrix.
// Limit: the two warpgroups wait for the same stage, dequantize, multiply and wait in step, so
// the tensor pipe idles while both dequantize (about two thirds busy at M = 512). One CTA per SM
// and a 128 x 128 tile: at N = 4096 and M = 512 that is 128 CTAs, one wave; at M <= 256 only 64 or
// 128 CTAs each walk all of K (split-K or a persistent stream-K schedule would share it), and
// larger N or M leave a partial last wave. Every CTA reads its tokens' activations from L2 for
// each 128 weight rows (a cluster sharing them through TMA multicast would halve that).
#pragma once

#include "../../common/errors.cuh"
#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../../common/mma.cuh"
#include "../../common/mma_tiles.cuh"
#include "../../common/tma.cuh"
#include "../../common/wgmma.cuh"
#include "../w4a16_formats.h"
#include "../w4a16_layout.cuh"

#include <string>

namespace wgmma_g128 {

constexpr int kMathWarpgroups = 2;
constexpr int kMathWarps = 4 * kMathWarpgroups;
constexpr int kRowTiles = kMathWarps;  // one 16-row tile per math warp: 128 weight rows per CTA
constexpr int kBK = kMmaChunkK;        // K per stage: 64 fp16, one 128-byte swizzled row per token
constexpr int kThreads = 32 * (kMathWarps + 1);
static_assert(kBK * 2 == 128, "a stage's activation row is exactly one 128-byte swizzle span");
static_assert(kGroupSize == 2 * kBK, "a group of 128 is two stages: stage kt uses group kt / 2");
static_assert(kRowTiles == kRowBlockTiles, "a CTA's rows are one row block of the stream it copies");
constexpr int kPieceBytes = kWordsPerPiece * 4;            // a 16x64 tile in fragment order (512 bytes)
constexpr int kScalePieceBytes = kScaleWordsPerPiece * 4;  // a tile's group: 8 lanes' (s, 1024 + z) pairs (64 bytes)
constexpr int kNarrowTokens = 64, kWideTokens = 128;       // the two token tiles (the N of wgmma)

// TOKENS: the CTA's tokens, the N of wgmma (64 or 128). OVERLAP: a warpgroup dequantizes stage
// kt + 1 while its wgmmas on stage kt run (two sets of A registers), instead of waiting first.
template <int TOKENS, int STAGES, bool OVERLAP>
struct Config {
    static constexpr int kBM = TOKENS, kStages = STAGES;
    static constexpr bool kOverlap = OVERLAP;
    static constexpr int kActBytes = TOKENS * kBK * 2;       // first: the swizzled box needs 1024-byte alignment
    static constexpr int kWeightBytes = kRowTiles * kPieceBytes;
    static constexpr int kScaleBytes = kRowTiles * kScalePieceBytes;
    static constexpr int kStageTxBytes = kActBytes + kWeightBytes + kScaleBytes;
    static constexpr int kStageStride = (kStageTxBytes + 1023) / 1024 * 1024;
    static constexpr int kSmemBytes = 1024 + STAGES * kStageStride + 2 * STAGES * 8;  // alignment slack, stages, barriers
    static constexpr int kAccPerThread = TOKENS / 2;         // 64 rows x TOKENS over 128 threads
    static_assert(TOKENS == kNarrowTokens || TOKENS == kWideTokens, "the wgmma shapes common/wgmma.cuh wraps");
    static_assert(TOKENS <= 256, "a TMA box has at most 256 rows");
    static_assert(kActBytes % 1024 == 0, "the weights and scales follow the box, 16-byte aligned");
    static_assert(STAGES >= 2, "a pipeline needs a stage in flight");
    static_assert(kSmemBytes <= 227 * 1024, "an sm_90 CTA has at most 227 KB of shared memory");
};

template <class C>
__device__ __forceinline__ void wgmma_tile(float (&acc)[C::kAccPerThread], const uint32_t (&a)[4], uint64_t desc) {
    if constexpr (C::kBM == kWideTokens) wgmma_m64n128k16_f16_rs(acc, a, desc);
    else wgmma_m64n64k16_f16_rs(acc, a, desc);
}

// A math warp's A fragments for one stage: 4 K-steps x 4 registers, dequantized from its tile's
// 16-byte piece of the stage with the (s, 1024 + z) pair of its rows g and g + 8 (as in 04).
__device__ __forceinline__ void dequantize_stage(uint32_t (&a)[16], const uint8_t* weights, const uint8_t* scales, int tile) {
    const int lane = threadIdx.x % 32;
    const uint4 w = *reinterpret_cast<const uint4*>(weights + tile * kPieceBytes + lane * 16);
    const uint2 sz = *reinterpret_cast<const uint2*>(scales + tile * kScalePieceBytes + (lane / 4) * 8);
    const __half2 s = bits_half2(sz.x), z = bits_half2(sz.y);
    const __half2 s_lo = __low2half2(s), s_hi = __high2half2(s), z_lo = __low2half2(z), z_hi = __high2half2(z);
    const uint32_t words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {  // registers 0 and 2 hold row g, 1 and 3 row g + 8
        a[4 * ks + 0] = half2_bits(__hmul2(nibbles_to_half2(words[ks], z_lo), s_lo));
        a[4 * ks + 1] = half2_bits(__hmul2(nibbles_to_half2(words[ks] >> 4, z_hi), s_hi));
        a[4 * ks + 2] = half2_bits(__hmul2(nibbles_to_half2(words[ks] >> 8, z_lo), s_lo));
        a[4 * ks + 3] = half2_bits(__hmul2(nibbles_to_half2(words[ks] >> 12, z_hi), s_hi));
    }
}

// The four wgmmas of one stage (K-steps 0-3), committed as one group.
template <class C>
__device__ __forceinline__ void multiply_stage(float (&acc)[C::kAccPerThread], const uint32_t (&a)[16], const uint8_t* acts) {
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
        const uint32_t step[4] = {a[4 * ks], a[4 * ks + 1], a[4 * ks + 2], a[4 * ks + 3]};
        wgmma_tile<C>(acc, step, smem_desc_sw128(acts, ks));
    }
    wgmma_commit();
}

// The copy warp's lane 0: for every stage, once its buffer is free, three requests counted on the
// stage's full barrier: the activation box (TMA), the row block's weights and its scales (bulk
// copies of the row-block stream, w4a16_formats.h).
template <class C>
__device__ void copy_stages(const W4A16Args& p, const CUtensorMap* act_map, uint8_t* smem, uint64_t* full, uint64_t* empty,
                            int m0) {
    const int k_tiles = p.K / kBK, groups = p.K / kGroupSize;
    const uint8_t* words = reinterpret_cast<const uint8_t*>(p.block_words) + (size_t)blockIdx.x * k_tiles * C::kWeightBytes;
    const uint8_t* scales = reinterpret_cast<const uint8_t*>(p.block_scales) + (size_t)blockIdx.x * groups * C::kScaleBytes;
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % C::kStages;
        uint8_t* stage = smem + s * C::kStageStride;
        if (kt >= C::kStages) wait_barrier(&empty[s], (kt / C::kStages - 1) & 1);
        arrive_expect_tx(&full[s], C::kStageTxBytes);
        tensor_copy_2d(stage, act_map, kt * kBK, m0, &full[s]);
        bulk_copy(stage + C::kActBytes, words + (size_t)kt * C::kWeightBytes, C::kWeightBytes, &full[s]);
        bulk_copy(stage + C::kActBytes + C::kWeightBytes, scales + (size_t)(kt / 2) * C::kScaleBytes, C::kScaleBytes, &full[s]);
    }
}

template <class C>
__global__ void __launch_bounds__(kThreads, 1) w4a16_wgmma_g128(W4A16Args p, const __grid_constant__ CUtensorMap act_map) {
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    uint8_t* smem = smem_raw + (1024 - shared_address(smem_raw) % 1024) % 1024;  // the swizzled boxes need 1024-byte alignment
    uint64_t* full = reinterpret_cast<uint64_t*>(smem + C::kStages * C::kStageStride);
    uint64_t* empty = full + C::kStages;
    const int warp = threadIdx.x / 32;
    const int tile0 = blockIdx.x * kRowTiles, m0 = blockIdx.y * C::kBM;
    const int k_tiles = p.K / kBK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < C::kStages; ++s) init_barrier(&full[s], 1), init_barrier(&empty[s], 32 * kMathWarps);
        fence_barrier_init();
    }
    __syncthreads();
    if (warp == kMathWarps) {
        if (threadIdx.x % 32 == 0) copy_stages<C>(p, &act_map, smem, full, empty, m0);
        return;
    }

    auto stage = [&](int kt) { return smem + (kt % C::kStages) * C::kStageStride; };
    auto wait_full = [&](int kt) { wait_barrier(&full[kt % C::kStages], (kt / C::kStages) & 1); };
    auto release = [&](int kt) { arrive(&empty[kt % C::kStages]); };  // every thread, after its own reads
    auto dequantize = [&](uint32_t(&regs)[16], int kt) {
        dequantize_stage(regs, stage(kt) + C::kActBytes, stage(kt) + C::kActBytes + C::kWeightBytes, warp);
    };
    float acc[C::kAccPerThread] = {};
    uint32_t a[16];
    if constexpr (!C::kOverlap) {
        for (int kt = 0; kt < k_tiles; ++kt) {
            wait_full(kt);
            dequantize(a, kt);
            multiply_stage<C>(acc, a, stage(kt));
            wgmma_wait<0>();
            keep_registers(acc);
            release(kt);
        }
    } else {
        // Stage kt + 1 is dequantized into the other set of registers while stage kt's wgmmas run.
        uint32_t next[16];
        wait_full(0);
        dequantize(a, 0);
        for (int kt = 0; kt < k_tiles; ++kt) {
            multiply_stage<C>(acc, a, stage(kt));
            if (kt + 1 < k_tiles) {
                wait_full(kt + 1);
                dequantize(next, kt + 1);
            }
            wgmma_wait<0>();
            keep_registers(acc);
            keep_registers(a);  // the wgmmas read them until here: `next` may not share their registers
            release(kt);
#pragma unroll
            for (int i = 0; i < 16; ++i) a[i] = next[i];
        }
    }

    // acc as mma.sync C fragments: warp w's 16 rows, one 8-token tile per 4 floats.
    float tiles[1][C::kBM / 8][4];
#pragma unroll
    for (int i = 0; i < C::kAccPerThread; ++i) tiles[0][i / 4][i % 4] = acc[i];
    store_mma_tiles(tiles, p.c, p.M, p.N, (tile0 + warp) * kMmaRows, m0);
}

}  // namespace wgmma_g128

// What this kernel needs to run: sm_90a code (wgmma), which only an sm_90 GPU runs.
constexpr ArchNeed kWgmmaArch{90, true};

inline std::string w4a16_wgmma_g128_why_not(const GemmCase& c, const Gpu&) {
    if (c.K % kGroupSize != 0) return "group-128: K must be a multiple of 128";
    return grid_limit_reason('y', ceil_div(c.M, (int64_t)wgmma_g128::kNarrowTokens));
}

namespace wgmma_g128 {
// 128 tokens per CTA when that still gives nearly every SM a CTA, else 64 (stages: as many as
// fit a 227 KB SM with room to spare).
template <bool OVERLAP>
using Tokens128 = Config<kWideTokens, 6, OVERLAP>;
template <bool OVERLAP>
using Tokens64 = Config<kNarrowTokens, 8, OVERLAP>;
inline bool wide_tile(int64_t M, int64_t N, int sms) {
    return ceil_div(N, (int64_t)kRowTiles * kMmaRows) * ceil_div(M, (int64_t)kWideTokens) >= sms * 9 / 10;
}

template <class C>
inline void launch_config(const W4A16Args& p, cudaStream_t s) {
    const CUtensorMap act_map =
        tensor_map_2d(p.a_f16, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, p.M, p.K, C::kBM, kBK, CU_TENSOR_MAP_SWIZZLE_128B);
    auto kernel = w4a16_wgmma_g128<C>;
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes));
    const dim3 grid((unsigned)ceil_div(ceil_div(p.N, kMmaRows), kRowTiles), (unsigned)ceil_div(p.M, C::kBM));
    kernel<<<grid, kThreads, C::kSmemBytes, s>>>(p, act_map);
}
}  // namespace wgmma_g128

template <bool OVERLAP>
inline void launch_w4a16_wgmma_g128(const W4A16Args& p, cudaStream_t s) {
    using namespace wgmma_g128;
    if (wide_tile(p.M, p.N, current_sm_count())) launch_config<Tokens128<OVERLAP>>(p, s);
    else launch_config<Tokens64<OVERLAP>>(p, s);
}
