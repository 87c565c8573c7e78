// 15 Q4_K on int8 tensor cores for prompts: rung 09's tiles and pipeline, rung 14's weight layout.
//
// Idea: rung 09 multiplies a Q4_0 block by a Q8_1 block with one m16n8k32 mma per 16 rows x 8
// tokens; a Q4_K sub-block is 32 values too, so the tiles, the stages, the swizzled activation
// rows and the mma are 09's, and the weights are rung 14's offline layout
// (q4_k_mma_layout.h): codes in the same fragment order (as unsigned q, 0..15), one word of
// sub-block scales and minimums per (tile, sub-block, g), the shape of 09's Q4_0 scale word,
// (d, dmin) per (tile, super-block, g), and one stream of its own: d·sc_j of rows g and g + 8 per
// (tile, sub-block, g) as FP32. Per sub-block j the outputs gain rung 14's
//   C[row][token] += d·sc_j·d_a·c − dmin·m_j·s,   c = Σ q·q_a from the int8 mma.
// The first term is 09's epilogue with d·sc_j for d_w, read as 09 reads d_w (made from the byte
// sc_j in the kernel it cost a PRMT and an FFMA per row and sub-block: 2% of the time at M = 512),
// its products with d_a made by the tensor cores as in 09, but with d·sc_j (17 significant bits,
// TF32 keeps 11) split into two TF32 numbers (outer_product_split_times2): twice the outputs
// accumulate, halved at the store.
// The second would be one more FFMA per output and
// sub-block, a third more FP32 work where 09 is already issue-bound on it (the first version of
// this rung: 1.6x 09's time at M = 512); instead the warp's 4 sub-blocks of a stage go through
// one TF32 m16n8k4 mma, Σ_j m_j·s_j for every (row, token) of a tile (exact: m and s are TF32
// numbers, their products FP32 numbers), then one FFMA per output and stage (on the large tile,
// whose stage is half a super-block, once per super-block with a k = 8 mma). A stage holds three
// streams 09 has not: the d·sc_j, the (d, dmin) pairs of its super-block (a stage of 128 values
// copies them, the next one copies them again), and the tokens' s as FP32 beside 09's FP32 d_a
// (the quantizer widens Q8_1's fp16 s, the same s llama.cpp reads).
// Improves: Q4_K prompts within 15% of 09's Q4_0 time (M = 512), instead of the GEMV's cost per token.
// Limit: 09's (issue-bound on the FP32 epilogue, TENSOR_CORES.md) with a few more instructions
// per int8 mma (the minimum, the sub-block words and s; KQUANTS.md counts them); 25% more weight
// bytes than ggml's Q4_K (5.625 bits per weight: the unpacked scales and d·sc_j); K a multiple of 256.
#pragma once

#include "../../common/ggml_kquants.h"
#include "09_mma_int8.cuh"
#include "14_gemv_mma_q4_k.cuh"

namespace mma_q4_k {

using mma_int8::kWarpK;
static_assert(kWarpK <= QK_K && QK_K % kWarpK == 0, "a warp's values of a stage lie in one super-block");

// The kernel's argument, made from the W4A8Inputs every row is handed.
struct Args {
    const uint32_t* words;       // [N/16][K/64][32][4] codes, rung 10's fragment order (q4_k_mma_layout.h)
    const uint32_t* sub_scales;  // [N/16][K/32][8] {sc[g], m[g], sc[g+8], m[g+8]}
    const uint2* d_dmin;         // [N/16][K/256][8] (d, dmin) of rows g and g + 8, fp16 bits
    const float2* d_sc;          // [N/16][K/32][8] d·sc_j of rows g and g + 8, FP32 (exact)
    const int8_t* a_qs;          // the activation codes [M][K] ...
    const float* a_d;            // ... their d as FP32 [M][K/32] ...
    const float* a_s;            // ... and their s as FP32 [M][K/32]
    float* c;                    // [M][N]
    int M, N, K;
};

// A stage of rung 09's tile G, laid out for Q4_K: 09's weights, the sub-block words where 09 has
// its scale words, the (d, dmin) pairs, the d·sc_j, 09's activation codes and d_a, and s beside them.
template <class G>
struct Tile : G {
    static constexpr int kSupers = G::kBK >= QK_K ? G::kBK / QK_K : 1;          // super-blocks a stage touches
    static constexpr int kStagesPerSuper = G::kBK >= QK_K ? 1 : QK_K / G::kBK;  // stages that share one
    // A stage of half a super-block, all of it one warp's (the large tile): the odd stage applies
    // the minimum of all 8 sub-blocks at once, so both stages copy the sub-block words and s of
    // the whole super-block (subtract_super_block_minimums). Else each stage its own.
    static constexpr bool kMinimumPerSuper = kStagesPerSuper == 2 && G::kWarpsK == 1;
    static constexpr int kScaleBlocks = kMinimumPerSuper ? QK_K / QK4_0 : G::kBlocks;  // sub-blocks of words and s a stage holds
    static constexpr int kStagesPerScales = kMinimumPerSuper ? 2 : 1;                  // stages that copy the same ones
    static constexpr int kSubScaleBytes = G::kRowTiles * kScaleBlocks * 32;            // 8 words per (tile, sub-block)
    static constexpr int kDDminBytes = G::kRowTiles * kSupers * 64;                     // 8 (d, dmin) pairs of two rows
    static constexpr int kWeightScalesAt = G::kWeightBytes;
    static constexpr int kDDminAt = kWeightScalesAt + kSubScaleBytes;
    static constexpr int kDScBytes = G::kRowTiles * G::kBlocks * 64;                   // 8 FP32 pairs per (tile, sub-block)
    static constexpr int kDScAt = kDDminAt + kDDminBytes;
    static constexpr int kActAt = kDScAt + kDScBytes;
    static constexpr int kActScalesAt = kActAt + G::kActBytes;                   // d_a per (token, block) ...
    static constexpr int kActSAt = kActScalesAt + G::kBM * G::kBlocks * 4;      // ... then s per (token, sub-block)
    static constexpr int kStageBytes = kActSAt + G::kBM * kScaleBlocks * 4;
    static constexpr int kSmemBytes = G::kStages * kStageBytes > G::kReduceBytes ? G::kStages * kStageBytes : G::kReduceBytes;
    static_assert(G::kBK % QK_K == 0 || QK_K % G::kBK == 0, "a stage is whole super-blocks or a whole fraction of one");
    static_assert(kScaleBlocks % 4 == 0, "a token's s are whole 16-byte pieces");
};
// Rung 09's four tile shapes and its rule for choosing among them: the same trade-offs (how many
// CTAs stream the weights at each M) hold for Q4_K, whose weights are 3% larger.
struct Decode : Tile<mma_int8::Decode> {};
struct Tokens16 : Tile<mma_int8::Tokens16> {};
struct Tokens64 : Tile<mma_int8::Tokens64> {};
struct Large : Tile<mma_int8::Large> {};

// A 64-byte group (four pieces) per (tile, unit of UNIT values of K), UNITS of them per tile and
// stage from stage offset `at`: the (d, dmin) pairs per super-block, the d·sc_j per sub-block.
template <class C, int UNITS, int UNIT>
__device__ __forceinline__ void place_group_piece(int i, int at, int tile0, int N, int K, size_t& src, int& dst, int& k0) {
    const int part = i % 4, u = (i / 4) % UNITS, t = i / (4 * UNITS);
    const int tile = min(tile0 + t, last_mma_row_tile(N));
    src = ((size_t)tile * (K / UNIT) + u) * 4 + part;
    dst = at + (t * UNITS + u) * 64 + part * 16, k0 = u * UNIT;
}

// The seven streams of a stage: 09's weights and its word stream (here the sub-block words), the
// (d, dmin) pairs, the d·sc_j, 09's activation codes and d_a, and s.
template <class C>
struct Loader {
    static constexpr int kChunks = C::kBK / kMmaChunk8;
    mma_int8::CopyStream<C, C::kRowTiles * kChunks * 32, kChunks * 32> codes;
    mma_int8::CopyStream<C, C::kRowTiles * C::kScaleBlocks * 2, C::kScaleBlocks * 2, C::kStagesPerScales> sub_scales;
    mma_int8::CopyStream<C, C::kRowTiles * C::kSupers * 4, C::kSupers * 4, C::kStagesPerSuper> d_dmin;
    mma_int8::CopyStream<C, C::kRowTiles * C::kBlocks * 4, C::kBlocks * 4> d_sc;
    mma_int8::ActStreamOf<C> act;
    mma_int8::CopyStream<C, C::kBM * (C::kBlocks / 4), C::kBlocks / 4> act_d;
    mma_int8::CopyStream<C, C::kBM * (C::kScaleBlocks / 4), C::kScaleBlocks / 4, C::kStagesPerScales> act_s;

    __device__ Loader(const Args& p, int tile0, int m0)
        : codes([&](int i, size_t& src, int& dst, int& k0) { mma_int8::place_weight_piece<C>(i, tile0, p.N, p.K, src, dst, k0); }),
          sub_scales([&](int i, size_t& src, int& dst, int& k0) {
              mma_int8::place_block_word_piece<C, C::kScaleBlocks>(i, tile0, p.N, p.K, src, dst, k0);
          }),
          d_dmin([&](int i, size_t& src, int& dst, int& k0) {
              place_group_piece<C, C::kSupers, QK_K>(i, C::kDDminAt, tile0, p.N, p.K, src, dst, k0);
          }),
          d_sc([&](int i, size_t& src, int& dst, int& k0) {
              place_group_piece<C, C::kBlocks, QK4_0>(i, C::kDScAt, tile0, p.N, p.K, src, dst, k0);
          }),
          act(mma_int8::make_act_stream<C>(p, m0)),
          act_d([&](int i, size_t& src, int& dst, int& k0) { mma_int8::place_act_scale_piece<C>(i, C::kActScalesAt, m0, p.M, p.K, src, dst, k0); }),
          act_s([&](int i, size_t& src, int& dst, int& k0) {
              mma_int8::place_act_scale_piece<C, C::kScaleBlocks>(i, C::kActSAt, m0, p.M, p.K, src, dst, k0);
          }) {}

    __device__ __forceinline__ void load_weights(uint8_t* stage, int kt, const Args& p) const {
        codes.load(stage, kt, p.K, p.words), sub_scales.load(stage, kt, p.K, p.sub_scales), d_dmin.load(stage, kt, p.K, p.d_dmin);
        d_sc.load(stage, kt, p.K, p.d_sc);
    }
    __device__ __forceinline__ void load_activations(uint8_t* stage, int kt, const Args& p) const {
        act.load(stage, kt, p.K, p.a_qs), act_d.load(stage, kt, p.K, p.a_d), act_s.load(stage, kt, p.K, p.a_s);
    }
};

// The accumulators hold twice the outputs: the scale products come doubled from the tensor cores
// (outer_product_split_times2), so the minimums are doubled too, and the store halves both.
constexpr float kAccumulatorScale = 2.0f;

// kAccumulatorScale·m_j of rows g and g + 8 from a lane's sub-block word {sc[g], m[g], sc[g + 8],
// m[g + 8]}, as TF32 operands (exact: even integers 0..126).
__device__ __forceinline__ void minimums_of_word(uint32_t sm, uint32_t& m_row_g, uint32_t& m_row_g8) {
    const float minus_magic = minus_magic_times(kAccumulatorScale);
    m_row_g = __float_as_uint(byte_times<1>(sm, kAccumulatorScale, minus_magic));
    m_row_g8 = __float_as_uint(byte_times<3>(sm, kAccumulatorScale, minus_magic));
}

// The minimum's part of a warp's stage, −dmin·Σ_j m_j·s_j over its 4 sub-blocks j, for every
// (row, token) of its tiles: one TF32 m16n8k4 mma per tile pair, k running over the sub-blocks,
// instead of one FFMA per output and sub-block. Exact where it matters: m (0..63) and s (an fp16
// value) are TF32 numbers and their products FP32 numbers, so the mma only adds (in FP32) what
// the FFMAs would have. Lane (g, t) brings m of rows g and g + 8 and s of token g, of sub-block t.
template <class C>
__device__ __forceinline__ void subtract_minimums(float (&acc)[C::kTilesN][C::kTilesM][4], const uint8_t* stage, int wn, int wm, int wk,
                                                  const float2 (&d_dmin)[C::kTilesN][2]) {
    static_assert(kWarpK / QK4_0 == 4, "a warp's sub-blocks of a stage are the 4 of k in m16n8k4");
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int block = wk * (kWarpK / QK4_0) + t;  // this lane's sub-block within the stage
    const float* a_s = reinterpret_cast<const float*>(stage + C::kActSAt);
    uint32_t s[C::kTilesM];  // B: s of token g of each token tile
#pragma unroll
    for (int tm = 0; tm < C::kTilesM; ++tm) s[tm] = __float_as_uint(a_s[((wm * C::kTilesM + tm) * 8 + g) * C::kScaleBlocks + block]);
#pragma unroll
    for (int tn = 0; tn < C::kTilesN; ++tn) {
        const int tile = wn * C::kTilesN + tn;
        const uint32_t sm = *reinterpret_cast<const uint32_t*>(stage + C::kWeightScalesAt + (tile * C::kScaleBlocks + block) * 32 + g * 4);
        uint32_t m[2];
        minimums_of_word(sm, m[0], m[1]);
#pragma unroll
        for (int tm = 0; tm < C::kTilesM; ++tm) {
            float ms[4] = {0.f, 0.f, 0.f, 0.f};  // Σ_j m_j·s_j: rows g, g + 8 x tokens 2t, 2t + 1
            mma_m16n8k4_tf32_f32(ms, m, s[tm]);
#pragma unroll
            for (int i = 0; i < 4; ++i) acc[tn][tm][i] = fmaf(-d_dmin[tn][i / 2].y, ms[i], acc[tn][tm][i]);
        }
    }
}

// The same for a whole super-block at once, in the second of its two stages (kMinimumPerSuper):
// one TF32 m16n8k8 mma per tile pair, k running over its 8 sub-blocks, and one FFMA per output,
// half of what two stages of subtract_minimums issue. Lane (g, t) brings m of rows g and g + 8 and
// s of token g, of sub-blocks t and t + 4.
template <class C>
__device__ __forceinline__ void subtract_super_block_minimums(float (&acc)[C::kTilesN][C::kTilesM][4], const uint8_t* stage, int wn,
                                                              int wm, const float2 (&d_dmin)[C::kTilesN][2]) {
    static_assert(C::kScaleBlocks == 8, "k of m16n8k8 runs over the super-block's 8 sub-blocks");
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    uint32_t m[C::kTilesN][4];  // A: m of rows g, g + 8 of each tile, sub-blocks t and t + 4
#pragma unroll
    for (int tn = 0; tn < C::kTilesN; ++tn) {
        const uint8_t* words = stage + C::kWeightScalesAt + (wn * C::kTilesN + tn) * C::kScaleBlocks * 32 + g * 4;
#pragma unroll
        for (int h = 0; h < 2; ++h)
            minimums_of_word(*reinterpret_cast<const uint32_t*>(words + (t + 4 * h) * 32), m[tn][2 * h], m[tn][2 * h + 1]);
    }
    const float* a_s = reinterpret_cast<const float*>(stage + C::kActSAt);
#pragma unroll
    for (int tm = 0; tm < C::kTilesM; ++tm) {
        const float* s_of_token = a_s + ((wm * C::kTilesM + tm) * 8 + g) * C::kScaleBlocks;
        const uint32_t s[2] = {__float_as_uint(s_of_token[t]), __float_as_uint(s_of_token[t + 4])};  // B: token g
#pragma unroll
        for (int tn = 0; tn < C::kTilesN; ++tn) {
            float ms[4] = {0.f, 0.f, 0.f, 0.f};  // Σ_j m_j·s_j over the super-block: rows g, g + 8 x tokens 2t, 2t + 1
            mma_m16n8k8_tf32_f32(ms, m[tn], s);
#pragma unroll
            for (int i = 0; i < 4; ++i) acc[tn][tm][i] = fmaf(-d_dmin[tn][i / 2].y, ms[i], acc[tn][tm][i]);
        }
    }
}

// One warp, one stage: its 4 sub-blocks of K (in one super-block), all its tiles.
template <class C>
__device__ __forceinline__ void compute_stage(float (&acc)[C::kTilesN][C::kTilesM][4], const uint8_t* stage, int wn, int wm, int wk, int kt) {
    const int lane = threadIdx.x % 32, g = lane / 4;
    const float* a_d = reinterpret_cast<const float*>(stage + C::kActScalesAt);
    const int super = C::kBK >= QK_K ? wk * kWarpK / QK_K : 0;  // the warp's super-block within the stage
    uint4 w[C::kTilesN][2];                                     // 09's two 16-byte loads per tile
    float2 d_dmin[C::kTilesN][2];                               // (d, dmin) of rows g and g + 8 per tile: only
                                                                // dmin is used (d·sc_j has its own stream)
#pragma unroll
    for (int tn = 0; tn < C::kTilesN; ++tn) {
        const int t = wn * C::kTilesN + tn;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int chunk = wk * (kWarpK / kMmaChunk8) + h;
            w[tn][h] = *reinterpret_cast<const uint4*>(stage + (t * (C::kBK / kMmaChunk8) + chunk) * 512 + lane * 16);
        }
        const uint2 pair = *reinterpret_cast<const uint2*>(stage + C::kDDminAt + ((t * C::kSupers + super) * 8 + g) * 8);
        d_dmin[tn][0] = __half22float2(bits_half2(pair.x)), d_dmin[tn][1] = __half22float2(bits_half2(pair.y));
    }
    if constexpr (!C::kMinimumPerSuper) subtract_minimums<C>(acc, stage, wn, wm, wk, d_dmin);
#pragma unroll
    for (int kb = 0; kb < kWarpK / QK4_0; ++kb) {
        const int block = wk * (kWarpK / QK4_0) + kb;  // sub-block within the stage
        uint32_t b[C::kTilesM][2];
        mma_int8::load_token_fragments<C>(b, stage + C::kActAt, wm, block);
        float da[C::kTilesM];  // d_a of token g of each token tile: the row of the scale products
#pragma unroll
        for (int tm = 0; tm < C::kTilesM; ++tm) da[tm] = a_d[((wm * C::kTilesM + tm) * 8 + g) * C::kBlocks + block];
#pragma unroll
        for (int tn = 0; tn < C::kTilesN; ++tn) {
            const uint32_t word_a = (kb % 2 == 0) ? w[tn][kb / 2].x : w[tn][kb / 2].z;
            const uint32_t word_b = (kb % 2 == 0) ? w[tn][kb / 2].y : w[tn][kb / 2].w;
            using gemv_mma_q4_k::high_codes, gemv_mma_q4_k::low_codes;
            const uint32_t q[4] = {high_codes(word_a), high_codes(word_b), low_codes(word_a), low_codes(word_b)};
            const int t = wn * C::kTilesN + tn;
            const float2 dsc = *reinterpret_cast<const float2*>(stage + C::kDScAt + ((t * C::kBlocks + block) * 8 + g) * 8);
#pragma unroll
            for (int tm = 0; tm < C::kTilesM; ++tm) {
                int c[4] = {0, 0, 0, 0};
                mma_m16n8k32_s8_s32(c, q, b[tm]);
                float scale[4];  // 2·d·sc_j·d_a of the lane's four outputs (rows g and g + 8: dsc.x, dsc.y)
                outer_product_split_times2(scale, dsc.x, dsc.y, da[tm]);
#pragma unroll
                for (int i = 0; i < 4; ++i) acc[tn][tm][i] = fmaf((float)c[i], scale[i], acc[tn][tm][i]);
            }
        }
    }
    if constexpr (C::kMinimumPerSuper)  // after the stage's products, when its weight registers are free
        if (kt % 2 == 1) subtract_super_block_minimums<C>(acc, stage, wn, wm, d_dmin);
}

// The kernel is rung 09's line for line but for its loader, stage and store. One main loop shared
// by both (a function taking the loader and compute_stage, every piece inlined) was timed on the
// H200 and made rung 09 slower, 61.4 -> 62.5 µs at M = 512 and 23.9 -> 25.3 at M = 128 (its PTX
// moved two instructions; ptxas, at 255 registers, scheduled differently), so each keeps its own.
template <class C>
__global__ void __launch_bounds__(C::kThreads, C::kMinCtasPerSm) w4a8_mma_q4_k(Args p) {
    extern __shared__ __align__(128) uint8_t smem[];
    const int warp = threadIdx.x / 32;
    const int wk = warp % C::kWarpsK, wm = (warp / C::kWarpsK) % C::kWarpsM, wn = warp / (C::kWarpsK * C::kWarpsM);
    const int tile0 = blockIdx.x * C::kRowTiles, m0 = blockIdx.y * C::kBM;
    const int k_tiles = (p.K + C::kBK - 1) / C::kBK;
    auto stage = [&](int kt) { return smem + (kt % C::kStages) * C::kStageBytes; };

    float acc[C::kTilesN][C::kTilesM][4] = {};
    const Loader<C> loader(p, tile0, m0);
    // As 09: the first stages' weights while the quantizer may still run (PDL), then the activations.
    for (int s = 0; s < C::kStages - 1 && s < k_tiles; ++s) loader.load_weights(stage(s), s, p);
    wait_for_prerequisite_grids();
    for (int s = 0; s < C::kStages - 1; ++s) {
        if (s < k_tiles) loader.load_activations(stage(s), s, p);
        commit_copies();
    }
    cp_async_pipeline<C::kStages>(
        k_tiles, [&](int kt) { loader.load_weights(stage(kt), kt, p), loader.load_activations(stage(kt), kt, p); },
        [&](int kt) {
            if (kt * C::kBK + wk * kWarpK < p.K) compute_stage<C>(acc, stage(kt), wn, wm, wk, kt);
        });
    if (!finish_split_k<C::kWarpsK, C::kTilesN * C::kTilesM * 4>(&acc[0][0][0], smem, warp / C::kWarpsK, wk)) return;
    scale_mma_tiles(acc, 1.f / kAccumulatorScale);
    store_mma_tiles(acc, p.c, p.M, p.N, (tile0 + wn * C::kTilesN) * kMmaRows8, m0 + wm * C::kTilesM * 8);
}

template <class C>
inline void launch_config(const Args& p, cudaStream_t s) {
    auto kernel = w4a8_mma_q4_k<C>;
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes));
    launch_with_pdl(kernel, mma_int8::tile_grid<C>(p), dim3(C::kThreads), C::kSmemBytes, s, p);
}

}  // namespace mma_q4_k

inline std::string w4a8_mma_q4_k_why_not(const GemmCase& c, const Gpu&) {
    if (c.K % QK_K != 0) return "Q4_K: K must be a multiple of 256 (whole super-blocks)";
    return grid_limit_reason('y', ceil_div(c.M, mma_q4_k::Decode::kBM));
}
inline void launch_w4a8_mma_q4_k(const W4A8Args& args, cudaStream_t s) {
    const W4A8Inputs& in = static_cast<const W4A8Inputs&>(args);
    const mma_q4_k::Args p{in.q4k_mma_words, in.q4k_mma_sub_scales, in.q4k_mma_d_dmin, in.q4k_mma_d_sc, in.a_qs, in.a_d, in.a_s, in.c, in.M, in.N, in.K};
    using namespace mma_q4_k;
    switch (mma_int8::tile_index(p.M)) {  // 09's rule: its tile shapes, in its order
        case 0: launch_config<Decode>(p, s); break;
        case 1: launch_config<Tokens16>(p, s); break;
        case 2: launch_config<Tokens64>(p, s); break;
        default: launch_config<Large>(p, s); break;
    }
}
