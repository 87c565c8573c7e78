// 09 int8 tensor cores: Q4_0 x Q8_1 with mma.sync m16n8k32, one 32-value block per mma.
//
// Idea: a Q4_0 block times a Q8_1 block is, per output, d_w·d_a·Σ (n - 8)·q: an int8 dot product
// of 32 values, exactly what one m16n8k32 s8 mma computes for a 16-row x 8-token tile. The
// weights were repacked offline (w4a8_mma_layout.h) so that a lane's 16-byte shared-memory load
// holds its fragments for two blocks; one LOP3 per register, (w & 0xF0F0F0F0) ^ 0x80808080,
// makes four int8 values 16·(n - 8) with no unpacking loop. The activations are the Q8_1 codes
// as they are (the split layout of step 2's quantizer), read with ldmatrix from swizzled rows;
// their scales d_a come as FP32 (the quantizer widens each fp16 d once), so no warp converts them.
// After each block's mma, its int32 tile is scaled into FP32 accumulators: per output one
// conversion and one FMA by d_w · d_a, the epilogue that the anchors' roofline calls the real
// ceiling of W4A8. The scale products d_w · d_a come from the tensor cores too: one TF32 mma per
// 16 x 8 tile makes the tile's outer product of d_w and d_a, times 4, exactly
// (outer_product_times4), where an FMUL per output cost a lane four instructions. The codes'
// factor 16 and the products' 4 come off once per output, at the end: powers of two, so the
// result is bit for bit that of scaling every block by d_w · d_a. Stages
// (weights, weight scales, activation codes, activation scales) are copied with cp.async
// kStages - 1 stages ahead, as in step 3's mma_g128. Launched with PDL, a CTA fetches its first
// weights while the quantizer is still writing A.
// This form never uses s: it multiplies signed codes, so it is checked against the signed
// reference (the exact dequantized dot), not the compensated one.
// Limit: about 14 instructions per int8 mma, 8 of them the conversions and FMAs; at M=512 the
// schedulers issue in only about half the cycles, two warps each (255 registers a thread) waiting
// on their mmas' results (TENSOR_CORES.md, "Where the time goes").
#pragma once

#include "../../common/async_copy.cuh"
#include "../../common/errors.cuh"
#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../../common/mma.cuh"
#include "../../common/mma_tiles.cuh"
#include "../../common/pdl.cuh"
#include "../w4a8_layout.cuh"
#include "../w4a8_mma_layout.h"

#include <tuple>

#include <string>
#include <type_traits>

namespace mma_int8 {

constexpr int kWarpK = 128;  // values of K per warp per stage: 4 blocks, two 16-byte weight loads per tile

template <int WARPS_N, int WARPS_M, int WARPS_K, int TILES_N, int TILES_M, int STAGES, int MIN_CTAS_PER_SM = 1>
struct Config {
    static constexpr int kMinCtasPerSm = MIN_CTAS_PER_SM;
    static constexpr int kWarpsN = WARPS_N, kWarpsM = WARPS_M, kWarpsK = WARPS_K;
    static constexpr int kTilesN = TILES_N, kTilesM = TILES_M, kStages = STAGES;
    static constexpr int kWarps = WARPS_N * WARPS_M * WARPS_K, kThreads = 32 * kWarps;
    static constexpr int kRowTiles = WARPS_N * TILES_N;
    static constexpr int kBM = WARPS_M * TILES_M * 8;
    static constexpr int kBK = WARPS_K * kWarpK;             // K per stage (bytes of an activation row)
    static constexpr int kBlocks = kBK / QK4_0;              // Q4_0 blocks per stage
    static constexpr int kWeightBytes = kRowTiles * (kBK / kMmaChunk8) * 512;
    static constexpr int kWeightScaleBytes = kRowTiles * kBlocks * 32;  // 8 half2 per (tile, block)
    static constexpr int kActBytes = kBM * kBK;
    static constexpr int kActScaleBytes = kBM * kBlocks * 4;         // one FP32 d per (token, block)
    static constexpr int kStageBytes = kWeightBytes + kWeightScaleBytes + kActBytes + kActScaleBytes;
    // A stage, in this order from its start: weights, their scales, activation codes, their scales.
    static constexpr int kWeightScalesAt = kWeightBytes;
    static constexpr int kActAt = kWeightScalesAt + kWeightScaleBytes;
    static constexpr int kActScalesAt = kActAt + kActBytes;
    static constexpr int kReduceBytes = (WARPS_K - 1) * WARPS_N * WARPS_M * TILES_N * TILES_M * 4 * 32 * 4;
    static constexpr int kSmemBytes = STAGES * kStageBytes > kReduceBytes ? STAGES * kStageBytes : kReduceBytes;
    static_assert(kBK / 16 >= 8, "the swizzle permutes 8 16-byte pieces of an activation row");
    static_assert(TILES_M == 1 || TILES_M % 2 == 0, "token tiles are read in pairs");
    static_assert((kActScaleBytes / kBM) % 16 == 0, "a token's activation scales are whole 16-byte pieces");
    static_assert(STAGES >= 2, "a pipeline needs a stage in flight");
};

// The tile shapes, chosen by timing candidates on the H200 (TENSOR_CORES.md, "Choosing the tiles"): the
// fewer the tokens, the narrower the tile and the more warps split K, so that enough CTAs stream
// the weights.
// Each is a type of its own, not an alias of its Config, so that its kernel is named after it
// (w4a8_mma_int8<mma_int8::Large>) whatever its numbers: scripts/sass_mix.txt finds it so.
struct Decode : Config<1, 1, 8, 1, 1, 4> {};       // M <= 8:   16 rows x   8 tokens, K split 8 ways
struct Tokens16 : Config<1, 1, 8, 1, 2, 3, 2> {};  // M <= 16:  16 rows x  16 tokens, K split 8 ways
struct Tokens64 : Config<1, 2, 2, 2, 4, 4, 3> {};  // M <= 128: 32 rows x  64 tokens, K split 2 ways
struct Large : Config<4, 1, 1, 2, 8, 3, 2> {};     // larger:  128 rows x  64 tokens, 3 stages (TENSOR_CORES.md, "Turning the tile")

template <class C>
__device__ __forceinline__ int act_offset(int row, int piece) {
    return row * C::kBK + ((piece ^ (row % 8)) * 16);
}

// One of a stage's four copy streams, as one thread sees it: for each 16-byte piece it copies, the
// shared-memory offset within a stage and the global source in stage 0 (counted in 16-byte pieces
// from the stream's start: 32 bits, not a 64-bit pointer, per piece; 2^32 pieces are 64 GB, more
// than the memory check of any run lets an operand be), worked out once; stage kt
// reads kt * STRIDE pieces further on (or (kt / STAGES_PER_STEP) * STRIDE: rung 15's pieces per
// 256 values, which a stage of 128 copies twice). A piece of a row or token past the matrix reads
// the last real one instead (finite data whose outputs are never stored), so no piece needs a flag.
template <class C, int PIECES, int STRIDE, int STAGES_PER_STEP = 1>
struct CopyStream {
    static constexpr int kPerThread = (PIECES + C::kThreads - 1) / C::kThreads;
    static constexpr bool kRagged = PIECES % C::kThreads != 0;
    static constexpr bool kCheckK = C::kWarpsK > 1;  // only then can a stage reach past K (K % kWarpK == 0)
    uint32_t src[kPerThread];
    int dst[kPerThread];
    int k0[kCheckK ? kPerThread : 1];  // the piece's first K within its stage

    template <class Where>  // where(i, src, dst, k0) places piece i of stage 0
    __device__ explicit CopyStream(Where where) {
#pragma unroll
        for (int j = 0; j < kPerThread; ++j) {
            const int i = min((int)threadIdx.x + j * C::kThreads, PIECES - 1);
            size_t piece = 0;
            int k = 0;
            where(i, piece, dst[j], k);
            src[j] = (uint32_t)piece;
            if constexpr (kCheckK) k0[j] = k;
        }
    }
    __device__ __forceinline__ void load(uint8_t* stage, int kt, int K, const void* start) const {
#pragma unroll
        for (int j = 0; j < kPerThread; ++j) {
            if (kRagged && (int)threadIdx.x + j * C::kThreads >= PIECES) continue;
            if constexpr (kCheckK)
                if (kt * C::kBK + k0[j] >= K) continue;
            copy_16_async(stage + dst[j], static_cast<const uint4*>(start) + (src[j] + (uint32_t)kt / STAGES_PER_STEP * STRIDE));
        }
    }
};

// The activation codes of a stage, for a tile whose threads' pieces lie whole rows apart with the
// same swizzle key (the large tile: 8 pieces per row, a thread's 4 pieces 16 rows apart): one offset
// and one row stride per thread instead of an offset per piece (CopyStream), registers the large
// tile needs. A token past M reads row M - 1, as in CopyStream; only a tile that reaches past M
// pays for that clamp.
template <class C>
struct ActRowStream {
    static constexpr int kPiecesPerRow = C::kBK / 16;
    static constexpr int kRowStep = C::kThreads / kPiecesPerRow;  // rows between a thread's pieces
    static constexpr int kPerThread = C::kBM / kRowStep;
    static constexpr bool kApplies =  // a tile that splits K keeps CopyStream (its registers are not short)
        C::kWarpsK == 1 && C::kThreads % kPiecesPerRow == 0 && kRowStep % 8 == 0 && C::kBM % kRowStep == 0;
    uint32_t src;  // this thread's first piece at stage 0, in 16-byte pieces from the codes' start
    int dst;       // ... and where it lands in a stage
    int last;      // its last piece on a real token (pieces past it read that one again)

    // Thread t's pieces lie on rows first_row(t) + j·kRowStep of the tile (j < kPerThread); of
    // those, 0..last_piece are real tokens (row < M), or none, and then it reads row M - 1.
    // Host code too: test_w4a8_cpu checks every ragged last tile against them.
    __host__ __device__ static int first_row(int thread) { return thread / kPiecesPerRow; }
    __host__ __device__ static int last_piece(int M, int m0, int r0) {
        const int real = (M - m0 - r0 + kRowStep - 1) / kRowStep;  // pieces on rows < M (<= 0: none)
        const int at_least_one = real > 1 ? real : 1;
        return (at_least_one < kPerThread ? at_least_one : kPerThread) - 1;
    }

    template <class Args>  // W4A8Args, or a rung's own argument with the same M and K
    __device__ ActRowStream(const Args& p, int m0) {
        const int r0 = first_row((int)threadIdx.x), piece = (int)threadIdx.x % kPiecesPerRow;
        src = (uint32_t)((size_t)min(m0 + r0, p.M - 1) * (p.K / 16) + piece);
        dst = C::kActAt + act_offset<C>(r0, piece);  // + j·kRowStep rows, same key
        last = last_piece(p.M, m0, r0);
    }
    __device__ __forceinline__ void load(uint8_t* stage, int kt, int K, const void* codes) const {  // CopyStream's signature
        const uint4* first = static_cast<const uint4*>(codes) + (src + (uint32_t)kt * kPiecesPerRow);
        const size_t row_step = (size_t)kRowStep * (K / 16);
        if (last == kPerThread - 1) {  // the whole tile is real tokens: no clamp
#pragma unroll
            for (int j = 0; j < kPerThread; ++j) copy_16_async(stage + dst + j * kRowStep * C::kBK, first + j * row_step);
        } else {
#pragma unroll
            for (int j = 0; j < kPerThread; ++j) copy_16_async(stage + dst + j * kRowStep * C::kBK, first + min(j, last) * row_step);
        }
    }
};

// Where a stage's pieces come from and go, for the streams that rung 15 (Q4_K) shares: the
// weights' 512-byte pieces per tile (and 16-byte lane parts), and a 32-byte word group per (tile,
// block) (Q4_0's scales here, Q4_K's sub-block words there). A tile past N reads the last one.
template <class C>
__device__ __forceinline__ void place_weight_piece(int i, int tile0, int N, int K, size_t& src, int& dst, int& k0) {
    constexpr int kChunks = C::kBK / kMmaChunk8;
    const int part = i % 32, chunk = (i / 32) % kChunks, t = i / (32 * kChunks);
    const int tile = min(tile0 + t, last_mma_row_tile(N));
    src = ((size_t)tile * (K / kMmaChunk8) + chunk) * 32 + part;
    dst = (t * kChunks + chunk) * 512 + part * 16, k0 = chunk * kMmaChunk8;
}
// BLOCKS: the blocks of words a stage holds per tile (rung 15's large tile: a whole super-block's).
template <class C, int BLOCKS = C::kBlocks>
__device__ __forceinline__ void place_block_word_piece(int i, int tile0, int N, int K, size_t& src, int& dst, int& k0) {
    const int part = i % 2, b = (i / 2) % BLOCKS, t = i / (2 * BLOCKS);
    const int tile = min(tile0 + t, last_mma_row_tile(N));
    src = ((size_t)tile * (K / QK4_0) + b) * 2 + part;
    dst = C::kWeightScalesAt + (t * BLOCKS + b) * 32 + part * 16, k0 = b * QK4_0;
}
// A token's activation codes: rows of kBK codes, swizzled (a token past M reads M - 1) ...
template <class C>
__device__ __forceinline__ void place_act_piece(int i, int m0, int M, int K, size_t& src, int& dst, int& k0) {
    const int r = i / (C::kBK / 16), piece = i % (C::kBK / 16);
    src = (size_t)min(m0 + r, M - 1) * (K / 16) + piece;
    dst = C::kActAt + act_offset<C>(r, piece), k0 = piece * 16;
}
// ... and its FP32 scales per block, BLOCKS per token from stage offset `at` (d here; d and s
// in rung 15, whose large tile holds a whole super-block's s).
template <class C, int BLOCKS = C::kBlocks>
__device__ __forceinline__ void place_act_scale_piece(int i, int at, int m0, int M, int K, size_t& src, int& dst, int& k0) {
    const int r = i / (BLOCKS / 4), piece = i % (BLOCKS / 4);
    src = (size_t)min(m0 + r, M - 1) * (K / QK4_0 / 4) + piece;
    dst = at + r * BLOCKS * 4 + piece * 16;
    k0 = piece * 4 * QK4_0;
}

// The activation codes' stream of a tile: ActRowStream where it applies, else a CopyStream.
template <class C>
using ActStreamOf = std::conditional_t<ActRowStream<C>::kApplies, ActRowStream<C>, CopyStream<C, C::kBM * (C::kBK / 16), C::kBK / 16>>;
template <class C, class Args>
__device__ ActStreamOf<C> make_act_stream(const Args& p, int m0) {
    if constexpr (ActRowStream<C>::kApplies) {
        return ActStreamOf<C>(p, m0);
    } else {
        return ActStreamOf<C>([&](int i, size_t& src, int& dst, int& k0) { place_act_piece<C>(i, m0, p.M, p.K, src, dst, k0); });
    }
}

// The four streams of a stage: weights and their scales (known before the quantizer has run) and
// the activation codes and scales (written by it).
template <class C>
struct Loader {
    static constexpr int kChunks = C::kBK / kMmaChunk8;  // 512-byte weight pieces per tile and stage
    CopyStream<C, C::kRowTiles * kChunks * 32, kChunks * 32> weights;
    CopyStream<C, C::kRowTiles * C::kBlocks * 2, C::kBlocks * 2> weight_scales;
    ActStreamOf<C> act;
    CopyStream<C, C::kBM * (C::kBlocks / 4), C::kBlocks / 4> act_scales;

    __device__ Loader(const W4A8Args& p, int tile0, int m0)
        : weights([&](int i, size_t& src, int& dst, int& k0) { place_weight_piece<C>(i, tile0, p.N, p.K, src, dst, k0); }),
          weight_scales([&](int i, size_t& src, int& dst, int& k0) { place_block_word_piece<C>(i, tile0, p.N, p.K, src, dst, k0); }),
          act(make_act_stream<C>(p, m0)),
          act_scales([&](int i, size_t& src, int& dst, int& k0) { place_act_scale_piece<C>(i, C::kActScalesAt, m0, p.M, p.K, src, dst, k0); }) {}

    __device__ __forceinline__ void load_weights(uint8_t* stage, int kt, const W4A8Args& p) const {
        weights.load(stage, kt, p.K, p.mma_words), weight_scales.load(stage, kt, p.K, p.mma_scales);
    }
    __device__ __forceinline__ void load_activations(uint8_t* stage, int kt, const W4A8Args& p) const {
        act.load(stage, kt, p.K, p.a_qs);
        act_scales.load(stage, kt, p.K, p.a_d);
    }
};

// B fragments: the warp's tokens x the 32 codes of one block of the stage (act: its codes);
// ldmatrix.x4 reads two token tiles at once.
template <class C>
__device__ __forceinline__ void load_token_fragments(uint32_t (&b)[C::kTilesM][2], const uint8_t* act, int wm, int block) {
    const int lane = threadIdx.x % 32, matrix = lane / 8;
    const int piece0 = block * QK4_0 / 16;
    if constexpr (C::kTilesM == 1) {
        uint32_t r[2];
        ldmatrix_x2(r, act + act_offset<C>(wm * 8 + lane % 8, piece0 + matrix % 2));
        b[0][0] = r[0], b[0][1] = r[1];
    } else {
#pragma unroll
        for (int pair = 0; pair < C::kTilesM / 2; ++pair) {
            uint32_t r[4];
            const int row = (wm * C::kTilesM + 2 * pair + matrix / 2) * 8 + lane % 8;
            ldmatrix_x4(r, act + act_offset<C>(row, piece0 + matrix % 2));
            b[2 * pair][0] = r[0], b[2 * pair][1] = r[1], b[2 * pair + 1][0] = r[2], b[2 * pair + 1][1] = r[3];
        }
    }
}

// The A fragment of one block from a lane's 16-byte piece of a tile (two blocks: words x, y the
// first, z, w the second): four registers of int8 16·(n - 8), one LOP3 each (and a shift for two).
__device__ __forceinline__ void block_a_fragment(uint32_t (&a)[4], const uint4& piece, int second, uint32_t sign) {
    const uint32_t word_a = second ? piece.z : piece.x, word_b = second ? piece.w : piece.y;
    a[0] = high_nibbles_to_int8(word_a, sign), a[1] = high_nibbles_to_int8(word_b, sign);
    a[2] = high_nibbles_to_int8(word_a << 4, sign), a[3] = high_nibbles_to_int8(word_b << 4, sign);
}

// The scale epilogue of one 16 x 8 tile and block: acc += c, the block's int32 products, times
// 4·d_w·d_a of the lane's four outputs (exact, from the tensor cores: outer_product_times4 of
// the d_w of rows g and g + 8 and the d_a of token g). Rung 16 runs it on its wgmma's tiles.
__device__ __forceinline__ void add_scaled_products(float (&acc)[4], const int* c, float2 dw, float da) {
    float scale[4];
    outer_product_times4(scale, dw.x, dw.y, da);
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[i] = fmaf((float)c[i], scale[i], acc[i]);
}

// One warp, one stage: its 4 blocks of K, all its tiles.
template <class C>
__device__ __forceinline__ void compute_stage(float (&acc)[C::kTilesN][C::kTilesM][4], const uint8_t* stage, int wn, int wm,
                                              int wk) {
    const int lane = threadIdx.x % 32;
    const uint32_t sign = 0x80808080u;  // in a register: one LOP3 per unpacked register
    const uint8_t* w_scales = stage + C::kWeightScalesAt;
    const uint8_t* act = stage + C::kActAt;
    const float* a_scales = reinterpret_cast<const float*>(stage + C::kActScalesAt);
    uint4 w[C::kTilesN][2];  // two 16-byte loads per tile: blocks 0-1 and 2-3 of the warp's 4
#pragma unroll
    for (int tn = 0; tn < C::kTilesN; ++tn)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int t = wn * C::kTilesN + tn, chunk = wk * (kWarpK / kMmaChunk8) + h;
            w[tn][h] = *reinterpret_cast<const uint4*>(stage + (t * (C::kBK / kMmaChunk8) + chunk) * 512 + lane * 16);
        }
#pragma unroll
    for (int kb = 0; kb < kWarpK / QK4_0; ++kb) {
        const int block = wk * (kWarpK / QK4_0) + kb;  // within the stage
        uint32_t b[C::kTilesM][2];
        load_token_fragments<C>(b, act, wm, block);
        // d_a of token g of each token tile: the row of the scale products' outer product.
        float da[C::kTilesM];
#pragma unroll
        for (int tm = 0; tm < C::kTilesM; ++tm) da[tm] = a_scales[((wm * C::kTilesM + tm) * 8 + lane / 4) * C::kBlocks + block];
#pragma unroll
        for (int tn = 0; tn < C::kTilesN; ++tn) {
            uint32_t a[4];
            block_a_fragment(a, w[tn][kb / 2], kb % 2, sign);
            const int t = wn * C::kTilesN + tn;
            const float2 dw = __half22float2(bits_half2(
                *reinterpret_cast<const uint32_t*>(w_scales + (t * C::kBlocks + block) * 32 + (lane / 4) * 4)));  // rows g, g + 8
#pragma unroll
            for (int tm = 0; tm < C::kTilesM; ++tm) {
                int c[4] = {0, 0, 0, 0};
                mma_m16n8k32_s8_s32(c, a, b[tm]);
                add_scaled_products(acc[tn][tm], c, dw, da[tm]);
            }
        }
    }
}

// A warp's finished tiles to C. The weights' codes were 16·(n - 8) and the scale products 4·d_w·d_a:
// the sums are 64 times the outputs.
template <class C>
__device__ __forceinline__ void store_outputs(float (&acc)[C::kTilesN][C::kTilesM][4], const W4A8Args& p, int tile0, int m0,
                                              int wn, int wm) {
    scale_mma_tiles(acc, 1.f / 64);
    store_mma_tiles(acc, p.c, p.M, p.N, (tile0 + wn * C::kTilesN) * kMmaRows8, m0 + wm * C::kTilesM * 8);
}

template <class C>
__global__ void __launch_bounds__(C::kThreads, C::kMinCtasPerSm) w4a8_mma_int8(W4A8Args p) {
    extern __shared__ __align__(128) uint8_t smem[];
    const int warp = threadIdx.x / 32;
    const int wk = warp % C::kWarpsK, wm = (warp / C::kWarpsK) % C::kWarpsM, wn = warp / (C::kWarpsK * C::kWarpsM);
    const int tile0 = blockIdx.x * C::kRowTiles, m0 = blockIdx.y * C::kBM;
    const int k_tiles = (p.K + C::kBK - 1) / C::kBK;
    auto stage = [&](int kt) { return smem + (kt % C::kStages) * C::kStageBytes; };

    float acc[C::kTilesN][C::kTilesM][4] = {};
    const Loader<C> loader(p, tile0, m0);
    // Launched with PDL, this CTA may start while the quantizer still writes A: it fetches the
    // weights of the first stages, and only then waits for the activations.
    for (int s = 0; s < C::kStages - 1 && s < k_tiles; ++s) loader.load_weights(stage(s), s, p);
    wait_for_prerequisite_grids();
    for (int s = 0; s < C::kStages - 1; ++s) {
        if (s < k_tiles) loader.load_activations(stage(s), s, p);
        commit_copies();
    }
    cp_async_pipeline<C::kStages>(
        k_tiles, [&](int kt) { loader.load_weights(stage(kt), kt, p), loader.load_activations(stage(kt), kt, p); },
        [&](int kt) {
            if (kt * C::kBK + wk * kWarpK < p.K) compute_stage<C>(acc, stage(kt), wn, wm, wk);
        });
    if (!finish_split_k<C::kWarpsK, C::kTilesN * C::kTilesM * 4>(&acc[0][0][0], smem, warp / C::kWarpsK, wk)) return;
    store_outputs<C>(acc, p, tile0, m0, wn, wm);
}

// The grid of a tile shape: CTA (x, y) takes row tiles kRowTiles·x.. and tokens kBM·y.. (tile0, m0 above).
template <class C, class Args>
inline dim3 tile_grid(const Args& p) {
    return dim3((unsigned)ceil_div(ceil_div(p.N, kMmaRows8), C::kRowTiles), (unsigned)ceil_div(p.M, C::kBM));
}

}  // namespace mma_int8

// K must be a multiple of a warp's 128 values (4 blocks) per stage: "" when it is, else the
// reason (09's rule, and that of the rungs built on its math, 11 and 16).
constexpr int kMmaInt8KMultiple = mma_int8::kWarpK;
inline std::string mma_int8_k_reason(const GemmCase& c) {
    return c.K % kMmaInt8KMultiple == 0 ? "" : "needs K to be a multiple of " + std::to_string(kMmaInt8KMultiple);
}
inline std::string w4a8_mma_int8_why_not(const GemmCase& c, const Gpu&) {
    return first_reason({mma_int8_k_reason(c), grid_limit_reason('y', ceil_div(c.M, mma_int8::Decode::kBM))});
}

template <class C>
inline void launch_mma_int8_config(const W4A8Args& p, cudaStream_t s) {
    auto kernel = mma_int8::w4a8_mma_int8<C>;
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes));
    launch_with_pdl(kernel, mma_int8::tile_grid<C>(p), dim3(C::kThreads), C::kSmemBytes, s, p);
}

namespace mma_int8 {
// The tile shapes in the launcher's order, and its rule: which of them M tokens take (host code,
// also for tests/ragged_tile_shapes.cu, which picks the ragged last tiles the tests run).
using Tiles = std::tuple<Decode, Tokens16, Tokens64, Large>;
inline int tile_index(int64_t M) { return M <= Decode::kBM ? 0 : M <= Tokens16::kBM ? 1 : M <= 128 ? 2 : 3; }
}  // namespace mma_int8

inline void launch_w4a8_mma_int8(const W4A8Args& p, cudaStream_t s) {
    using namespace mma_int8;
    switch (tile_index(p.M)) {
        case 0: launch_mma_int8_config<Decode>(p, s); break;
        case 1: launch_mma_int8_config<Tokens16>(p, s); break;
        case 2: launch_mma_int8_config<Tokens64>(p, s); break;
        default: launch_mma_int8_config<Large>(p, s); break;
    }
}
