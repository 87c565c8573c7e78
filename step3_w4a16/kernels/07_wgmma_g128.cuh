// 07 Hopper: group-128 INT4 or Q4_0 weights dequantized in registers into wgmma (sm_90a), the
// activations brought by the TMA, a copy warp feeding two math warpgroups through mbarriers.
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
// Roles: warp 8 is the copy warp (from 128 tokens on, the first of a copy warpgroup that lends its
// registers to the math warps: Config::kLendRegisters). Its lane 0 asks the TMA for a stage's
// activation box (tokens x 64 values of K, 128-byte swizzle, tokens past M filled with zeros) and
// bulk-copies the stage's weights and scales, stored for this kernel as one contiguous piece per
// stage and row block of 128 rows (w4a16_formats.h: the copy engine spends a fixed time per
// request). A "full" mbarrier per stage counts the bytes in; each math thread arrives on the
// stage's "empty" mbarrier when its wgmmas have read it, and the copy warp waits for that before
// refilling the stage. Warps 0-7 are two warpgroups of 64 weight rows each; both multiply the same
// activations. A CTA computes 128 weight rows x kBM tokens over its share of K, so each accumulator
// lives across that share and the scales are applied during dequantization, before the product.
// Q4_0 (Q4_0Stage) runs the same code with its own stream and a d per 32 values; its weight is
// fp16((q - 8)·d), rounded once, what llama.cpp's CUDA backend feeds cuBLAS, and its reference is
// Q4_0 rounded so (HOPPER.md).
// Improves: the tensor cores work while the warps dequantize (one warpgroup's products run while
// the other dequantizes); no __syncthreads, no per-thread copy instructions, no ldmatrix.
// Tiles and splits: the CTA's tokens are the N of wgmma, 8 to 128 (token_tile: the smallest that
// holds M, so a decoding step does not multiply 120 tokens of zeros), and 128 weight rows; 256
// tokens (wgmma's widest N) where such tiles nearly fill the GPU by themselves (wide_tiles_fill_gpu);
// and 64 rows x 256 tokens, the two warpgroups splitting K (SplitWarpgroups), where those tiles
// are one wave that fills the GPU (split_tiles_fill_one_wave: M = 512, N = 4096).
// At N = 4096 that is 32 row blocks: with few tokens, 32 CTAs would each walk all of K on a
// GPU of 132 SMs (the first version of this rung did, and took the same 21 µs at M = 1 as at
// M = 256). So the CTAs of a cluster split K: CTA z of S multiplies K-tiles
// [z·T/S, (z+1)·T/S), writes its FP32 accumulators to its own shared memory, and after a cluster
// barrier each CTA adds one S-th of the tile's values over all S CTAs, through distributed shared
// memory (common/cluster.cuh), in rank order (the same sum on every run), and stores it. S (1 to
// 8) is chosen on the host from the GPU's own count of clusters that fit at once (the occupancy
// API) and a model of the time: waves of CTAs x the work of one (choose_splits).
// Variants that did not pay on the H200 (LAB_NOTES.md): Overlap (a warpgroup dequantizes its next
// stage while its own wgmmas run) and Pair (two CTAs of a cluster share their activation box
// through TMA multicast, so each byte leaves L2 once per pair; nor for SplitWarpgroups' pairs).
// SplitWarpgroups halves the dequantization per product and gains 3% where its tiles are one
// wave, losing wherever they are not.
// Limit: at M = 512 the tensor pipe is busy about 70% of the time (0.95-0.98x HGEMM; two thirds before
// the copy warpgroup lent its registers). Each warpgroup waits for its own products
// (wgmma.wait_group) and then dequantizes the next stage before it can issue again, so it has
// products in flight about half the time (a profile by SASS line: LAB_NOTES.md). Not for want of
// L2 bandwidth (Pair), nor because both warpgroups dequantize at once (a ping-pong was slower).
// Without its dequantization (a diagnostic with wrong results) it takes a sixth less time, yet
// halving the dequantization chains per product (two stages per wait) gains 1-2%: what it costs
// is not latency on the chain (HOPPER.md).
// Below M = 32 a CTA multiplies only a few K-tiles, and the pipeline's fixed costs and the
// reduction dominate (04 and 06 are as fast or faster there).
#pragma once

#include "../../common/cluster.cuh"
#include "../../common/errors.cuh"
#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../../common/mma.cuh"
#include "../../common/mma_tiles.cuh"
#include "../../common/pdl.cuh"
#include "../../common/tma.cuh"
#include "../../common/wgmma.cuh"
#include "../w4a16_formats.h"
#include "../w4a16_layout.cuh"

#include <string>

namespace wgmma_g128 {

constexpr int kMathWarpgroups = 2;
constexpr int kMathWarps = 4 * kMathWarpgroups;
constexpr int kWarpgroupThreads = 128;  // four warps
constexpr int kRowTiles = kMathWarps;  // one 16-row tile per math warp: 128 weight rows per CTA
constexpr int kSplitRowTiles = kRowTiles / 2;  // SplitWarpgroups: half a row block per CTA, one tile per warp of a warpgroup
constexpr int kBK = kMmaChunkK;        // K per stage: 64 fp16, one 128-byte swizzled row per token
static_assert(kBK * 2 == 128, "a stage's activation row is exactly one 128-byte swizzle span");
static_assert(kRowTiles == kRowBlockTiles,
              "a CTA's rows are one row block of the stream it copies (half of one: SplitWarpgroups)");
constexpr int kPieceBytes = kWordsPerPiece * 4;            // a 16x64 tile in fragment order (512 bytes)
constexpr int kScalePieceBytes = kScaleWordsPerPiece * 4;  // a tile's scales for 1 or 2 stages (64 bytes; the formats below)
constexpr int kMinTokens = 8, kMaxTokens = 128;            // the token tiles (the N of wgmma): 8, 16, 32, 64, 128
constexpr int kWideTokens = 256;                           // and, for the Wide variant, 256 (wgmma's widest N)
constexpr int kMaxSplits = 8;         // CTAs of a cluster that share K: at most 8 on every sm_90 GPU
constexpr int kMinKTilesPerSplit = 4;  // a split shorter than this is not worth its reduction

// The variants of the rung, one at a time. Overlap: two groups of wgmmas in flight, a warpgroup
// dequantizing stage j + 1 while its wgmmas on stage j run (two sets of A registers), instead of
// waiting for them first (slower on the H200: LAB_NOTES.md). Pair: the CTAs of two neighbouring row
// blocks form a cluster and share their tokens' activations: each asks the TMA for half of the box
// and has it written into both (multicast), so each activation byte leaves L2 once per pair instead
// of once per CTA (from 16 tokens on; an 8-token half box would break the swizzle's 1024-byte
// rhythm). WideAlways: 256-token tiles from M = 129 on, whether or not they fill the GPU (the launch
// rule below says when they pay).
// SplitWarpgroups: a CTA of 64 weight rows x 256 tokens whose two math warpgroups split K (even
// and odd stages), each dequantized weight serving 256 tokens; warpgroup 1 hands its partial tile
// to warpgroup 0 through shared memory at the end.
enum class WgmmaVariant { Plain, Overlap, Pair, WideAlways, SplitWarpgroups };

// FORMAT: the weights' stream and their dequantization (G128Stage, Q4_0Stage below). TOKENS: the
// CTA's tokens, the N of wgmma (8 to 256).
template <class FORMAT, int TOKENS, int STAGES, WgmmaVariant VARIANT>
struct Config {
    using Format = FORMAT;
    static constexpr int kBM = TOKENS, kStages = STAGES;
    static constexpr bool kOverlap = VARIANT == WgmmaVariant::Overlap;
    static constexpr int kPair = VARIANT == WgmmaVariant::Pair && TOKENS >= 16 ? 2 : 1;  // CTAs sharing a box (along x: row blocks)
    static constexpr int kBoxTokens = TOKENS / kPair;         // the tokens one CTA asks the TMA for
    static constexpr int kActBytes = TOKENS * kBK * 2;       // first: the swizzled box needs 1024-byte alignment
    static constexpr bool kSplitWarpgroups = VARIANT == WgmmaVariant::SplitWarpgroups;
    static constexpr int kRowTilesPerCta = kSplitWarpgroups ? kSplitRowTiles : kRowTiles;  // tiles of 16 weight rows
    static constexpr int kStageReaders = kSplitWarpgroups ? kWarpgroupThreads : 32 * kMathWarps;       // arrivals on a stage's empty barrier
    static constexpr int kWeightBytes = kRowTilesPerCta * kPieceBytes;
    static constexpr int kScaleBytes = kRowTilesPerCta * kScalePieceBytes;
    static constexpr int kStageTxBytes = kActBytes + kWeightBytes + kScaleBytes;
    static constexpr int kStageStride = (kStageTxBytes + 1023) / 1024 * 1024;
    static constexpr int kSmemBytes = 1024 + STAGES * kStageStride + 2 * STAGES * 8;  // alignment slack, stages, barriers
    static constexpr int kAccPerThread = TOKENS / 2;         // 64 rows x TOKENS over 128 threads
    // Tiles this narrow leave an SM's tensor cores mostly idle, so two CTAs may share one: the
    // split model counts every CTA that fits as a slot, and launch_smem keeps it to two.
    static constexpr bool kTwoPerSm = TOKENS <= 32;
    // The copy warps: one, or from 128 tokens on a whole warpgroup (one warp of it copies) that
    // lends its registers to the math warpgroups (setmaxnreg: kMathRegisters each, kCopyRegisters
    // left to it). ptxas counts a CTA's registers in whole warpgroups: with one copy warp, 288
    // threads get at most 168 registers each, as 384 do, and a 256-token tile's wgmmas are then
    // serialized (C7512) for want of them; the 128-token tile gains too (H200: LAB_NOTES.md).
    static constexpr bool kLendRegisters = TOKENS >= 128;
    static constexpr int kCopyWarps = kLendRegisters ? 4 : 1;
    static constexpr int kThreads = 32 * (kMathWarps + kCopyWarps);
    static constexpr int kMathRegisters = 232, kCopyRegisters = 40;
    static_assert(!kLendRegisters || kMathRegisters * kMathWarps + kCopyRegisters * kCopyWarps <= 65536 / 32,
                  "what the math warpgroups take, the copy warpgroup gives: one CTA's 64K registers");
    static constexpr int kScratchBytes = 32 * kMathWarps * kAccPerThread * 4;  // the accumulators, for split K
    static_assert(TOKENS == 8 || TOKENS == 16 || TOKENS == 32 || TOKENS == 64 || TOKENS == 128 || TOKENS == 256,
                  "the wgmma shapes common/wgmma.cuh wraps");
    static_assert(kScratchBytes <= STAGES * kStageStride, "split K sums through the stage buffers");
    static_assert(TOKENS <= 256, "a TMA box has at most 256 rows");
    static_assert(kActBytes % 1024 == 0, "the weights and scales follow the box, 16-byte aligned");
    static_assert(kActBytes / kPair % 1024 == 0, "each CTA's half of a shared box keeps the swizzle's 1024-byte alignment");
    static_assert(STAGES >= 2, "a pipeline needs a stage in flight");
    static_assert(kSmemBytes <= 227 * 1024, "an sm_90 CTA has at most 227 KB of shared memory");
};

template <class C>
__device__ __forceinline__ void wgmma_tile(float (&acc)[C::kAccPerThread], const uint32_t (&a)[4], uint64_t desc) {
    if constexpr (C::kBM == 256) wgmma_m64n256k16_f16_rs(acc, a, desc);
    else if constexpr (C::kBM == 128) wgmma_m64n128k16_f16_rs(acc, a, desc);
    else if constexpr (C::kBM == 64) wgmma_m64n64k16_f16_rs(acc, a, desc);
    else if constexpr (C::kBM == 32) wgmma_m64n32k16_f16_rs(acc, a, desc);
    else if constexpr (C::kBM == 16) wgmma_m64n16k16_f16_rs(acc, a, desc);
    else wgmma_m64n8k16_f16_rs(acc, a, desc);
}

// The formats: where a stage's weights and scales come from, how many stages one scale piece
// serves, what a math warp reads of a stage (its tile's piece: a Raw, loaded from shared memory)
// and how it turns that into A fragments (4 K-steps x 4 registers, mma.sync's layout:
// w4a16_formats.h). Both round each weight to fp16 once, in HMUL2.

// Group-128 (04's repacked stream in row blocks): a lane's (s, 1024 + z) pair of rows g and g + 8
// serves a group, two stages; each weight is fp16((q - z)·s), as in 04.
struct G128Stage {
    static constexpr int kStagesPerScalePiece = kGroupSize / kBK;
    static_assert(kStagesPerScalePiece == 2, "a group of 128 is two stages: stage kt uses group kt / 2");
    __device__ static const uint32_t* words(const W4A16Args& p) { return p.block_words; }
    __device__ static const uint32_t* scales(const W4A16Args& p) { return p.block_scales; }
    struct Raw {
        uint4 w;   // the lane's 16 bytes of nibbles: 4 K-steps
        uint2 sz;  // half2(s[g], s[g + 8]), half2(1024 + z[g], 1024 + z[g + 8])
    };
    __device__ static Raw load(const uint8_t* weights, const uint8_t* scales, int tile) {
        const int lane = threadIdx.x % 32;
        return {*reinterpret_cast<const uint4*>(weights + tile * kPieceBytes + lane * 16),
                *reinterpret_cast<const uint2*>(scales + tile * kScalePieceBytes + (lane / 4) * 8)};
    }
    __device__ static void dequantize(uint32_t (&a)[16], const Raw& r) {
        const __half2 s = bits_half2(r.sz.x), z = bits_half2(r.sz.y);
        const __half2 s_lo = __low2half2(s), s_hi = __high2half2(s), z_lo = __low2half2(z);
        const __half2 z16_hi = high_nibble_bias(__high2half2(z));
        const uint32_t words[4] = {r.w.x, r.w.y, r.w.z, r.w.w};
#pragma unroll
        for (int ks = 0; ks < 4; ++ks) {
            uint32_t step[4];
            g128_a_fragment(step, words[ks], s_lo, s_hi, z_lo, z16_hi);  // as 06 does, one shift per word
#pragma unroll
            for (int i = 0; i < 4; ++i) a[4 * ks + i] = step[i];
        }
    }
};

// Q4_0 (06's repacked stream in row blocks): a stage is two 32-value blocks, and a lane's scale
// word of each is half2(d[g], d[g + 8]). Each weight is fp16((q - 8)·d): the zero point is 8 for
// every row, and the value is the one llama.cpp's CUDA backend makes when it dequantizes Q4_0 to
// fp16 before it calls cuBLAS (one rounding of the exact product). Exact Q4_0 would need a scale
// per 32 values applied after the product, which an accumulator that lives across K cannot take:
// so this kernel's reference is Q4_0 rounded to fp16, not Q4_0 (`Weights::Q4_0Rounded`).
struct Q4_0Stage {
    static constexpr int kStagesPerScalePiece = 1;
    static_assert(kBK == 2 * QK4_0, "a stage is two Q4_0 blocks: K-steps 0-1 and 2-3");
    __device__ static const uint32_t* words(const W4A16Args& p) { return p.q4_block_words; }
    __device__ static const uint32_t* scales(const W4A16Args& p) { return p.q4_block_scales; }
    struct Raw {
        uint4 w;        // the lane's 16 bytes of nibbles: 4 K-steps
        uint32_t d[2];  // half2(d[g], d[g + 8]) of the stage's two blocks
    };
    __device__ static Raw load(const uint8_t* weights, const uint8_t* scales, int tile) {
        const int lane = threadIdx.x % 32;
        const uint32_t* d = reinterpret_cast<const uint32_t*>(scales + tile * kScalePieceBytes) + lane / 4;  // block b: d[8 b]
        return {*reinterpret_cast<const uint4*>(weights + tile * kPieceBytes + lane * 16), {d[0], d[8]}};
    }
    __device__ static void dequantize(uint32_t (&a)[16], const Raw& r) {
        const __half2 bias = __float2half2_rn(1032.0f), bias16 = high_nibble_bias(bias);  // 1024 + 8: codes become q - 8
        const uint32_t words[4] = {r.w.x, r.w.y, r.w.z, r.w.w};
#pragma unroll
        for (int ks = 0; ks < 4; ++ks) {
            const __half2 s = bits_half2(r.d[ks / 2]);
            uint32_t step[4];
            g128_a_fragment(step, words[ks], __low2half2(s), __high2half2(s), bias, bias16);
#pragma unroll
            for (int i = 0; i < 4; ++i) a[4 * ks + i] = step[i];
        }
    }
};

// The four wgmmas of one stage (K-steps 0-3), committed as one group. `desc` describes the stage's
// activations at K-step 0; K-step ks starts 32·ks bytes in, which is + 2·ks in the descriptor's
// start-address field (bytes / 16; every address here is below 256 KB, so the field never carries).
template <class C>
__device__ __forceinline__ void multiply_stage(float (&acc)[C::kAccPerThread], const uint32_t (&a)[16], uint64_t desc) {
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
        const uint32_t step[4] = {a[4 * ks], a[4 * ks + 1], a[4 * ks + 2], a[4 * ks + 3]};
        wgmma_tile<C>(acc, step, desc + 2 * ks);
    }
    wgmma_commit();
}

// The K-tiles this CTA multiplies: split blockIdx.z of gridDim.z (the cluster) takes
// [z·T/S, (z+1)·T/S) of the T tiles of K.
struct KTiles {
    int first, count;
    __device__ explicit KTiles(int k_tiles)
        : first(blockIdx.z * k_tiles / gridDim.z), count((blockIdx.z + 1) * k_tiles / gridDim.z - first) {}
};

// The copy warp's lane 0: for every stage, once its buffer is free, three requests counted on the
// stage's full barrier: the activation box (TMA), the row block's weights and its scales (bulk
// copies of the row-block stream, w4a16_formats.h). The j-th K-tile of the split uses stage
// j % kStages; its buffer is free once the math threads released the K-tile kStages before it.
// In a pair, each CTA asks for its half of the box, written into both CTAs and counted on both
// full barriers; the stage is free once the math threads of both have released it. With an odd
// number of row blocks the last pair's second CTA has no rows of its own: it streams the last
// row block again (and stores nothing), so that its neighbour still gets its half of the box.
template <class C>
__device__ void copy_stages(const W4A16Args& p, const CUtensorMap* act_map, uint8_t* smem, uint64_t* full, uint64_t* empty,
                            int m0, KTiles mine) {
    using Format = typename C::Format;
    const int k_tiles = p.K / kBK, scale_pieces = k_tiles / Format::kStagesPerScalePiece;
    constexpr int kBlockRows = kRowTiles * kMmaRows;
    const int row_blocks = (int)((p.N + kBlockRows - 1) / kBlockRows);
    // The CTA's first tile within the stream's row blocks (a pair's spare CTA: the last block again).
    const int first_tile = (int)blockIdx.x * C::kRowTilesPerCta;
    const size_t block = (size_t)min(first_tile / kRowTiles, row_blocks - 1);
    const int tile_in_block = first_tile / kRowTiles < row_blocks ? first_tile % kRowTiles : 0;
    constexpr int kBlockWeightBytes = kRowTiles * kPieceBytes;      // one stage of a row block's weights
    constexpr int kBlockScaleBytes = kRowTiles * kScalePieceBytes;  // and of its scales
    const uint8_t* words =
        reinterpret_cast<const uint8_t*>(Format::words(p)) + block * k_tiles * kBlockWeightBytes + tile_in_block * kPieceBytes;
    const uint8_t* scales = reinterpret_cast<const uint8_t*>(Format::scales(p)) + block * scale_pieces * kBlockScaleBytes +
                            tile_in_block * kScalePieceBytes;
    const uint32_t half = cluster_rank() % C::kPair;                       // which half of the box this CTA asks for
    const uint16_t pair_mask = (uint16_t)(3u << (cluster_rank() - half));  // both CTAs of the pair
    // The launch is a programmatic dependent (ClusterLaunch): the CTA may start while the previous
    // kernel's last CTAs still run, and this thread's copies are the CTA's first reads of global
    // memory, so it waits here until that kernel is done and its writes are visible. Everything
    // the CTA writes comes after (the math warps wait on the stages this thread fills).
    wait_for_prerequisite_grids();
    for (int j = 0; j < mine.count; ++j) {
        const int kt = mine.first + j, s = j % C::kStages;
        uint8_t* stage = smem + s * C::kStageStride;
        if (j >= C::kStages) wait_barrier(&empty[s], (j / C::kStages - 1) & 1);
        arrive_expect_tx(&full[s], C::kStageTxBytes);
        if constexpr (C::kPair > 1)
            tensor_copy_2d_multicast(stage + half * (C::kActBytes / 2), act_map, kt * kBK, m0 + (int)half * C::kBoxTokens, &full[s],
                                     pair_mask);
        else
            tensor_copy_2d(stage, act_map, kt * kBK, m0, &full[s]);
        bulk_copy(stage + C::kActBytes, words + (size_t)kt * kBlockWeightBytes, C::kWeightBytes, &full[s]);
        const uint8_t* scale_piece = scales + (size_t)(kt / Format::kStagesPerScalePiece) * kBlockScaleBytes;
        bulk_copy(stage + C::kActBytes + C::kWeightBytes, scale_piece, C::kScaleBytes, &full[s]);
    }
}

// The main loop of a math warp: for each K-tile of the split, dequantize the warp's piece of its
// stage, multiply (4 wgmmas), and while they run wait for the next stage and read its piece; then
// release the stage. Every address is worked out before the loop: stage s is stage 0 plus s
// strides, for the weights, the scales and the activations' descriptor alike (H200, 2026-12-03:
// the loop that computed them from j, and read a stage only after the previous stage's products
// were done, kept each warpgroup's wgmmas in flight only 40% of the time; LAB_NOTES.md).
template <class C>
__device__ void multiply_k_tiles(float (&acc)[C::kAccPerThread], uint8_t* smem, uint64_t* full, uint64_t* empty, KTiles mine) {
    using Format = typename C::Format;
    using Position = RingPosition;  // common/tma.cuh: the next K-tile's is one step on
    const int warp = threadIdx.x / 32;
    const uint8_t* weights0 = smem + C::kActBytes;
    const uint8_t* scales0 = weights0 + C::kWeightBytes;
    const uint64_t desc0 = smem_desc_sw128(smem, 0);
    auto read_piece = [&](Position at) {
        wait_barrier(&full[at.stage], at.parity);
        return Format::load(weights0 + at.stage * C::kStageStride, scales0 + at.stage * C::kStageStride, warp % C::kRowTilesPerCta);
    };
    auto multiply = [&](const uint32_t(&a)[16], Position at) {
        multiply_stage<C>(acc, a, desc0 + (uint64_t)(at.stage * C::kStageStride >> 4));
    };
    // Every thread, after its own reads; in a pair, each warp also tells the neighbour, whose copy
    // thread writes half of this stage's activations (they were read by the warp's wgmmas, done).
    auto release = [&](Position at) {
        arrive(&empty[at.stage]);
        if constexpr (C::kPair > 1) {
            __syncwarp();
            if (threadIdx.x % 32 == 0) arrive_in_cluster_rank(&empty[at.stage], cluster_rank() ^ 1u);
        }
    };
    // Split warpgroups: warpgroup w multiplies the CTA's K-tiles w, w + 2, ..., ring positions two apart.
    constexpr int kStride = C::kSplitWarpgroups ? 2 : 1;
    const int first = C::kSplitWarpgroups ? warp / 4 : 0, count = (mine.count - first + kStride - 1) / kStride;
    auto next = [](Position at) { return kStride == 2 ? at.next(C::kStages).next(C::kStages) : at.next(C::kStages); };
    Position at;
    if (first > 0) at = at.next(C::kStages);
    if (count == 0) return;
    typename Format::Raw raw = read_piece(at);
    uint32_t a[16];
    if constexpr (!C::kOverlap) {
        for (int j = 0; j < count; ++j) {
            Format::dequantize(a, raw);
            multiply(a, at);
            const Position after = next(at);
            if (j + 1 < count) raw = read_piece(after);  // while the products run
            wgmma_wait<0>();
            keep_registers(acc);
            release(at);
            at = after;
        }
    } else {
        // Two wgmma groups in flight: stage j's products are issued, then the warp waits only for
        // stage j - 1's (wgmma.wait_group 1), releases that stage and dequantizes stage j + 1 into
        // the registers stage j - 1 read, while stage j's products run. The two register sets
        // alternate, so the loop is unrolled by two.
        uint32_t other[16];
        Position before;
        auto step = [&](uint32_t(&cur)[16], uint32_t(&next)[16], int j) {
            multiply(cur, at);
            wgmma_wait<1>();
            keep_registers(next);  // stage j - 1's wgmmas read them until here
            if (j > 0) release(before);
            before = at, at = at.next(C::kStages);
            if (j + 1 < mine.count) Format::dequantize(next, read_piece(at));
        };
        Format::dequantize(a, raw);
        for (int j = 0; j < mine.count; j += 2) {
            step(a, other, j);
            if (j + 1 < mine.count) step(other, a, j + 1);
        }
        wgmma_wait<0>();
        keep_registers(acc);
        release(before);
    }
}

// A barrier of the math warps alone (named barrier 1; 0 is __syncthreads).
__device__ __forceinline__ void math_warps_sync() { asm volatile("bar.sync 1, %0;" ::"n"(32 * kMathWarps) : "memory"); }

// Split warpgroups, the end: both warpgroups hold a partial 64 x kBM tile of the same rows (their
// halves of K). Warpgroup 1 writes its accumulators to the stage buffers (all read by now),
// warpgroup 0 adds them to its own and stores the tile.
template <class C>
__device__ void add_warpgroups_and_store(float (&acc)[C::kAccPerThread], uint8_t* smem, const W4A16Args& p, int row0, int m0) {
    constexpr int kGroups = C::kAccPerThread / 4;  // Config's kScratchBytes assert: the tile fits the stage buffers
    float4* scratch = reinterpret_cast<float4*>(smem);  // group i of warpgroup 1's thread t at i * 128 + t
    const int t = threadIdx.x % kWarpgroupThreads;
    const bool second = threadIdx.x >= kWarpgroupThreads;
    math_warps_sync();  // both warpgroups' wgmmas are done with the stages
    if (second)
#pragma unroll
        for (int i = 0; i < kGroups; ++i)
            scratch[i * kWarpgroupThreads + t] = make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]);
    math_warps_sync();
    if (second) return;
    float tiles[1][C::kBM / 8][4];  // as mma.sync C fragments: warp w's 16 rows, one 8-token tile per 4 floats
#pragma unroll
    for (int i = 0; i < kGroups; ++i) {
        const float4 other = scratch[i * kWarpgroupThreads + t];
        tiles[0][i][0] = acc[4 * i] + other.x, tiles[0][i][1] = acc[4 * i + 1] + other.y;
        tiles[0][i][2] = acc[4 * i + 2] + other.z, tiles[0][i][3] = acc[4 * i + 3] + other.w;
    }
    store_mma_tiles(tiles, p.c, p.M, p.N, row0, m0);
}

// Split K, the end: every CTA of the cluster has its partial 128 x kBM tile in registers. Each
// math thread writes its accumulators to its own CTA's shared memory (the stage buffers, all read
// by now), and after a cluster barrier CTA z adds groups [z·G/S, (z+1)·G/S) of every math
// thread's G groups of 4 accumulators over the S CTAs, in rank order (all S loads first, so that
// they travel together), and stores them (in a pair, the cluster holds both row blocks' S CTAs:
// rank z·2 + x % 2). The second barrier keeps every CTA (and its shared memory) alive until the
// others have read it. The copy warps take part in the two cluster barriers only
// (copy_warps_in_cluster_sum); they wrote nothing that a math warp has not already waited for.
template <class C>
__device__ void sum_over_cluster_and_store(const float (&acc)[C::kAccPerThread], uint8_t* smem, const W4A16Args& p, int row0,
                                           int m0) {
    constexpr int kMathThreads = 32 * kMathWarps, kGroups = C::kAccPerThread / 4;
    float4* scratch = reinterpret_cast<float4*>(smem);  // group i of math thread t at i * 256 + t
    // Every wgmma of this CTA is done: the stages may be overwritten. The math warps only: a
    // __syncthreads here and another in the copy warps' code would be two different barriers
    // that the CUDA model requires every thread to reach (synccheck rejects it).
    math_warps_sync();
#pragma unroll
    for (int i = 0; i < kGroups; ++i)
        scratch[i * kMathThreads + threadIdx.x] = make_float4(acc[4 * i], acc[4 * i + 1], acc[4 * i + 2], acc[4 * i + 3]);
    cluster_sync();
    const int splits = gridDim.z;
    float4 part[kMaxSplits];
    for (int i = blockIdx.z * kGroups / splits; i < (blockIdx.z + 1) * kGroups / splits; ++i) {
#pragma unroll
        for (int rank = 0; rank < kMaxSplits; ++rank)
            if (rank < splits)
                part[rank] = *in_cluster_rank(&scratch[i * kMathThreads + threadIdx.x], rank * C::kPair + cluster_rank() % C::kPair);
        float4 sum = part[0];
#pragma unroll
        for (int rank = 1; rank < kMaxSplits; ++rank)
            if (rank < splits) sum.x += part[rank].x, sum.y += part[rank].y, sum.z += part[rank].z, sum.w += part[rank].w;
        // group i of the C fragments: the mma tile of the warp's 16 rows and 8-token tile i
        const float tile[1][1][4] = {{{sum.x, sum.y, sum.z, sum.w}}};
        store_mma_tiles(tile, p.c, p.M, p.N, row0, m0 + 8 * i);
    }
    cluster_sync();
}
// The copy warps' part in it: the cluster's two barriers, in the same order (barrier.cluster
// counts arrivals, wherever in the code they come from).
__device__ __forceinline__ void copy_warps_in_cluster_sum() {
    cluster_sync();
    cluster_sync();
}

template <class C>
__global__ void __launch_bounds__(C::kThreads, 1) w4a16_wgmma(W4A16Args p, const __grid_constant__ CUtensorMap act_map) {
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    uint8_t* smem = smem_raw + (1024 - shared_address(smem_raw) % 1024) % 1024;  // the swizzled boxes need 1024-byte alignment
    uint64_t* full = reinterpret_cast<uint64_t*>(smem + C::kStages * C::kStageStride);
    uint64_t* empty = full + C::kStages;
    const int warp = threadIdx.x / 32;
    const int row0 = (blockIdx.x * C::kRowTilesPerCta + warp % C::kRowTilesPerCta) * kMmaRows, m0 = blockIdx.y * C::kBM;
    const KTiles mine(p.K / kBK);
    const bool math = warp < kMathWarps, split = gridDim.z > 1;

    if (threadIdx.x == 0) {  // in a pair, the neighbour's math warps arrive on the empty barriers too
        for (int s = 0; s < C::kStages; ++s)
            init_barrier(&full[s], 1), init_barrier(&empty[s], C::kStageReaders + (C::kPair > 1 ? kMathWarps : 0));
        fence_barrier_init();
    }
    if constexpr (C::kPair > 1) cluster_sync();  // the neighbour's barriers are ready before its box lands here
    else __syncthreads();
    if (math) {  // the accumulators live inside the region where the math warps hold their registers
        if constexpr (C::kLendRegisters) registers_up<C::kMathRegisters>();
        float acc[C::kAccPerThread] = {};
        multiply_k_tiles<C>(acc, smem, full, empty, mine);
        if constexpr (C::kSplitWarpgroups) return add_warpgroups_and_store<C>(acc, smem, p, row0, m0);
        if (split) return sum_over_cluster_and_store<C>(acc, smem, p, row0, m0);
        float tiles[1][C::kBM / 8][4];  // acc as mma.sync C fragments: warp w's 16 rows, one 8-token tile per 4 floats
#pragma unroll
        for (int i = 0; i < C::kAccPerThread; ++i) tiles[0][i / 4][i % 4] = acc[i];
        store_mma_tiles(tiles, p.c, p.M, p.N, row0, m0);
    } else {
        if constexpr (C::kLendRegisters) registers_down<C::kCopyRegisters>();
        if (threadIdx.x == 32 * kMathWarps) copy_stages<C>(p, &act_map, smem, full, empty, m0, mine);
        __syncwarp();
        if (split) return copy_warps_in_cluster_sum();
        if (C::kPair == 1) return;
    }
    if constexpr (C::kPair > 1) cluster_sync();  // the neighbour's last arrivals on this CTA's barriers have landed
}

}  // namespace wgmma_g128

// What this kernel needs to run: sm_90a code (wgmma), which only an sm_90 GPU runs.
constexpr ArchNeed kWgmmaArch{90, true};

inline std::string w4a16_wgmma_g128_why_not(const GemmCase& c, const Gpu&) {
    if (c.K % kGroupSize != 0) return "group-128: K must be a multiple of 128";
    return grid_limit_reason('y', ceil_div(c.M, (int64_t)wgmma_g128::kMaxTokens));
}
inline std::string w4a16_wgmma_q4_0_why_not(const GemmCase& c, const Gpu&) {
    if (c.K % wgmma_g128::kBK != 0) return "Hopper rung: K must be a multiple of " + std::to_string(wgmma_g128::kBK) + " (a stage)";
    return grid_limit_reason('y', ceil_div(c.M, (int64_t)wgmma_g128::kMaxTokens));
}

namespace wgmma_g128 {
// One configuration per token tile (stages: as many as fit a 227 KB SM with room to spare for
// 128 tokens, 8 for the rest; the narrow ones leave room for two or more CTAs per SM).
template <class FORMAT, int TOKENS, WgmmaVariant VARIANT>
using TokensConfig = Config<FORMAT, TOKENS, TOKENS == kWideTokens ? 5 : TOKENS == kMaxTokens ? 6 : 8, VARIANT>;

// The token tile: the smallest of 8, 16, 32 and 64 that holds M; 128 from M = 129 on. At
// M = 65..128 two 64-token tiles give twice the CTAs of one 128-token tile for the same work; from
// M = 256 on, the wide tile's reuse of each dequantized weight pays more (H200, 2026-12-02: 19.1
// against 22.4 µs at M = 256, N = K = 4096).
inline int token_tile(int64_t M) {
    if (M > kMaxTokens) return kMaxTokens;
    int tokens = kMinTokens;
    while (tokens < kMaxTokens / 2 && tokens < M) tokens *= 2;
    return tokens;
}

// CTAs along N, each of `row_tiles` tiles of 16 weight rows (the grid's x, before pairs), and the
// row blocks of 128 rows, the CTAs of every variant but SplitWarpgroups (half a block each).
inline int64_t ctas_along_n(int64_t N, int row_tiles) { return ceil_div(ceil_div(N, (int64_t)kMmaRows), (int64_t)row_tiles); }
inline int64_t row_blocks_of(int64_t N) { return ctas_along_n(N, kRowTiles); }

// The shared memory a launch of C asks for: its own, or, for tiles of 32 tokens or fewer (whose
// CTAs the split model counts as slots however many share an SM), more than a third of an SM's, so
// that no SM holds three of them while others hold one or none (a probe of %smid at M = 16,
// S = 8, H200, 2026-12-04: 256 CTAs on 124 SMs, 16 SMs with three). H200, 2026-12-05, µs:
// M = 16 9.0 -> 7.8 at K = 4096 and 20.0 -> 16.5 at K = 14336, M = 32 10.1 -> 9.0 (LAB_NOTES.md,
// "Where M = 64 waits").
template <class C>
inline int launch_smem() {
    static const int bytes = C::kTwoPerSm ? std::max<int>(C::kSmemBytes, current_smem_per_sm() / 3 + 1) : C::kSmemBytes;
    return bytes;
}

// A launch of C's kernel on `grid`, whose z extent (the splits of K) and, for a pair, two
// neighbouring x (row blocks) are one cluster when that is more than one CTA; always a
// programmatic dependent of the previous kernel in the stream (common/pdl.cuh), so that its CTAs
// start as that kernel's last ones finish (it triggers nothing early: no work of the two overlaps;
// H200: 0.4 to 0.7 µs per launch in a chain, LAB_NOTES.md).
// Not copyable: the configuration points at its own attributes.
template <class C>
struct ClusterLaunch {
    cudaLaunchAttribute attrs[2] = {};  // the programmatic launch, then the cluster (when there is one)
    cudaLaunchConfig_t config = {};
    ClusterLaunch(dim3 grid, cudaStream_t s) {
        attrs[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attrs[0].val.programmaticStreamSerializationAllowed = 1;
        attrs[1].id = cudaLaunchAttributeClusterDimension;
        attrs[1].val.clusterDim.x = C::kPair, attrs[1].val.clusterDim.y = 1, attrs[1].val.clusterDim.z = grid.z;
        config.gridDim = grid, config.blockDim = dim3(C::kThreads), config.dynamicSmemBytes = launch_smem<C>(), config.stream = s;
        config.attrs = attrs, config.numAttrs = C::kPair * grid.z > 1 ? 2 : 1;
    }
    ClusterLaunch(const ClusterLaunch&) = delete;
    ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// CTAs of clusters of `splits` CTAs that the GPU runs at once when each CTA asks for `smem` bytes
// of shared memory (the occupancy API; the kernel's shared-memory size must allow `smem`).
template <class C>
inline int64_t cluster_ctas_at_once(int splits, int smem) {
    ClusterLaunch<C> launch(dim3(C::kPair, 1, splits), nullptr);
    launch.config.dynamicSmemBytes = smem;
    int clusters = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, w4a16_wgmma<C>, &launch.config));
    return (int64_t)std::max(1, clusters) * C::kPair * splits;
}

// CTAs of clusters of `splits` CTAs that the GPU runs at once (asked once per configuration;
// the kernel's shared-memory size must be set first).
template <class C>
inline int64_t resident_ctas(int splits) {
    static int64_t known[kMaxSplits + 1] = {};
    int64_t& ctas = known[splits];
    if (ctas == 0) {
        if (C::kPair * splits == 1) return ctas = ctas_in_one_wave(w4a16_wgmma<C>, C::kThreads, launch_smem<C>());
        ctas = cluster_ctas_at_once<C>(splits, launch_smem<C>());
    }
    return ctas;
}

// CTAs of clusters of `splits` CTAs that the GPU runs at once with no two on one SM: the occupancy
// API asked about a launch whose shared memory leaves no room for a second CTA beside each. A
// cluster's CTAs share a GPC, and not every GPC holds a multiple of the cluster's size: the H200
// runs 66 clusters of 2 this way (132 CTAs), 39 of 3 (117), 30 of 4 (120), 15 of 8. The clusters
// beyond those go to SMs that already hold one, where they take about 1.4 times as long, and the
// launch waits for them (a probe of %smid, H200, 2026-12-04: LAB_NOTES.md, "Where M = 64 waits").
template <class C>
inline int64_t one_per_sm_ctas(int splits) {
    static int64_t known[kMaxSplits + 1] = {};
    int64_t& ctas = known[splits];
    if (ctas == 0) {
        if (C::kPair * splits == 1) return ctas = current_sm_count();
        const int alone = std::max<int>(launch_smem<C>(), current_smem_per_sm() / 2 + 1);  // more than half of an SM's
        auto kernel = w4a16_wgmma<C>;
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, alone));
        ctas = cluster_ctas_at_once<C>(splits, alone);
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, launch_smem<C>()));
    }
    return ctas;
}

// How many CTAs share each tile's K: the S of least estimated time, the smallest on a tie. A CTA
// costs its K-tiles plus about kFixedKTiles (launch, filling the pipeline) plus, when split, its
// reduction (about kBM / 16 K-tiles: the accumulators it writes and reads); the launch takes as many
// such CTA times as waves, tiles·S / the CTAs that run at once. For a tile of 32 tokens or fewer
// the tensor cores of an SM are mostly idle, and a second CTA on an SM (at most two: launch_smem)
// runs nearly for free; a 64- or 128-token CTA keeps them busy, so only the CTAs that run one per SM count
// (one_per_sm_ctas). Any S from 1 to 8: at M = 64, N = 4096, 32 tiles in clusters of 3 (96 CTAs)
// run at once, one per SM, where clusters of 4 (128 CTAs) do not. (This model was fitted to the
// H200 sweep of 2026-12-02; the sweep prints what it chose beside what was fastest.)
constexpr int64_t kFixedKTiles = 8;
template <class C>
inline int64_t split_time(int64_t tiles, int k_tiles, int splits) {
    const int64_t slots = C::kTwoPerSm ? resident_ctas<C>(splits) : one_per_sm_ctas<C>(splits);
    const int64_t per_cta = ceil_div((int64_t)k_tiles, (int64_t)splits) + kFixedKTiles + (splits > 1 ? C::kBM / 16 : 0);
    return ceil_div(tiles * splits, slots) * per_cta;
}
template <class C>
inline int choose_splits(int64_t tiles, int k_tiles) {
    int best = 1;
    for (int s = 2; s * C::kPair <= kMaxSplits && k_tiles / s >= kMinKTilesPerSplit; ++s)
        if (split_time<C>(tiles, k_tiles, s) < split_time<C>(tiles, k_tiles, best)) best = s;
    return best;
}

template <class C>
inline void launch_config(const W4A16Args& p, cudaStream_t s) {
    const CUtensorMap act_map =
        tensor_map_2d(p.a_f16, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, p.M, p.K, C::kBoxTokens, kBK, CU_TENSOR_MAP_SWIZZLE_128B);
    auto kernel = w4a16_wgmma<C>;
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, launch_smem<C>()));
    const int64_t row_blocks = row_blocks_of(p.N), token_tiles = ceil_div(p.M, C::kBM);
    const int splits = C::kSplitWarpgroups ? 1 : choose_splits<C>(row_blocks * token_tiles, (int)(p.K / kBK));
    const int64_t ctas = ctas_along_n(p.N, C::kRowTilesPerCta);
    const int64_t ctas_x = ceil_div(ctas, (int64_t)C::kPair) * C::kPair;  // a pair's CTAs: both or neither
    const ClusterLaunch<C> launch(dim3((unsigned)ctas_x, (unsigned)token_tiles, (unsigned)splits), s);
    CUDA_CHECK(cudaLaunchKernelEx(&launch.config, kernel, p, act_map));
}
}  // namespace wgmma_g128

namespace wgmma_g128 {
// Tiles of 256 tokens (a 64 x 256 x 16 wgmma per warpgroup: each dequantized weight serves twice
// the tokens, a stage issues half the wgmmas per product) pay when they nearly fill the GPU by
// themselves (at least 70% of the SMs); with fewer, the CTAs must split K, and the reduction of
// 128 accumulators per thread costs more than the halved dequantization saves (H200, 2026-12-02,
// µs, 128 / 256-token tiles, N = K = 4096 unless said: M = 768 (96 wide tiles): 57.5 / 53.2;
// M = 1024: 58.1 / 54.8; M = 2048: 113.9 / 107.7; M = 512, N = 14336: 116.0 / 106.5; but M = 512
// (64 wide tiles): 29.8 / 32.4, and M = 256: 18.6 / 31.5).
inline bool wide_tiles_fill_gpu(const W4A16Args& p) {
    const int64_t wide_tiles = row_blocks_of(p.N) * ceil_div(p.M, (int64_t)kWideTokens);
    return 10 * wide_tiles >= 7 * (int64_t)current_sm_count();
}

// Split warpgroups' tiles (64 rows x 256 tokens) pay where they are one wave that nearly fills the
// GPU (85% of the SMs or more) and the last token tile is nearly full; anywhere else, a partial
// wave or half-empty SMs cost more than the halved dequantization saves (H200, 2026-12-03, µs,
// 07's choice before / split: M = 512, N = K = 4096 (128 tiles): 27.2 / 26.4; M = 512,
// K = 14336: 88.1 / 85.9; but M = 256 (64 tiles): 17.2 / 25.4, M = 1024 (256 tiles): 49.7 / 52.2).
inline bool split_tiles_fill_one_wave(const W4A16Args& p) {
    const int64_t token_tiles = ceil_div(p.M, (int64_t)kWideTokens);
    const int64_t tiles = ctas_along_n(p.N, kSplitRowTiles) * token_tiles;
    const int64_t sms = current_sm_count(), padded_tokens = kWideTokens * token_tiles - p.M;
    return tiles <= sms && 100 * tiles >= 85 * sms && 8 * padded_tokens <= kWideTokens * token_tiles;
}
}  // namespace wgmma_g128

// Format: wgmma_g128::G128Stage or Q4_0Stage. The variants (WgmmaVariant) are group-128's rows of
// the lesson; WideAlways is the plain kernel with its own choice of tile.
template <class Format, wgmma_g128::WgmmaVariant VARIANT = wgmma_g128::WgmmaVariant::Plain>
inline void launch_w4a16_wgmma(const W4A16Args& p, cudaStream_t s) {
    using namespace wgmma_g128;
    constexpr bool kPairs = VARIANT == WgmmaVariant::Pair, kWideAlways = VARIANT == WgmmaVariant::WideAlways;
    constexpr WgmmaVariant V = kWideAlways ? WgmmaVariant::Plain : VARIANT;  // the kernel WideAlways runs
    using SplitConfig = Config<Format, kWideTokens, 6, WgmmaVariant::SplitWarpgroups>;  // 64 rows x 256 tokens, 6 stages of 35 KB
    if constexpr (VARIANT == WgmmaVariant::SplitWarpgroups) {
        launch_config<SplitConfig>(p, s);
    } else {
        if constexpr (VARIANT == WgmmaVariant::Plain)
            if (split_tiles_fill_one_wave(p)) return launch_config<SplitConfig>(p, s);
        if constexpr (!kPairs)  // a pair's half box of 128 tokens is not a configuration it was timed in
            if (p.M > kMaxTokens && (kWideAlways || wide_tiles_fill_gpu(p)))
                return launch_config<TokensConfig<Format, kWideTokens, V>>(p, s);
        switch (token_tile(p.M)) {
            case 8: return launch_config<TokensConfig<Format, 8, V>>(p, s);
            case 16: return launch_config<TokensConfig<Format, 16, V>>(p, s);
            case 32: return launch_config<TokensConfig<Format, 32, V>>(p, s);
            case 64: return launch_config<TokensConfig<Format, 64, V>>(p, s);
            default: return launch_config<TokensConfig<Format, 128, V>>(p, s);
        }
    }
}
