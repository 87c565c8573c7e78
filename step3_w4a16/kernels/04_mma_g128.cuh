// 04 tensor cores: group-128 INT4 weights dequantized in registers into mma.sync m16n8k16,
// fed by a cp.async multi-stage pipeline; one kernel family for M = 1 to 512 (Marlin's idea).
//
// Idea: the tensor cores multiply fp16 tiles with FP32 accumulation, so give them fp16 weights
// made in registers, never in memory. The weights were repacked offline (w4a16_formats.h) so
// that one 16-byte shared-memory load gives a lane its share of a 16x64 weight tile, in exactly
// the order the A operand of mma.sync wants: for each 16-value K-step, one 32-bit word whose
// (word >> 4j) & 0x000F000F holds the two codes of register j. Per register, three instructions
// make fp16 weights: LOP3 (the 0x6400 trick), HSUB2 (minus 1024 + z) and HMUL2 (times s), the
// last giving exactly fp16((q - z)·s), the format's dequantized weight. The activations (the B
// operand, tokens x K) come from shared memory with ldmatrix, through an XOR swizzle that keeps
// the eight rows of each 8x8 matrix in different banks.
// A CTA computes a tile of weight rows x tokens; its warps split the rows, the tokens and, when
// tokens are few, K (then add their partial sums through shared memory at the end). Every stage
// (weights, activations, the group's scales) is copied with cp.async kStages - 1 stages ahead,
// so HBM streams while the tensor cores work. The tile shape is chosen from M (launcher below):
// for decoding, 16 weight rows x 8 tokens per CTA with 16 warps splitting K, so that 256 CTAs
// stream N = 4096 rows; at M = 512, 64 x 128 tiles, each warp 32 rows x 64 tokens.
// Limit: mma.sync issues from the same schedulers as the dequantization (about 15 instructions
// per 16x16 weight tile per K-step, shared by the tile's tokens) and the copies; ncu finds no
// warp ready to issue most of the time (latency, too few warps: README.md). At small M the 16 x 8
// mma shape wastes 7/8 of its work on padding tokens (free: memory is the limit there); at large
// M, Hopper's wgmma (asynchronous, bigger tiles) is what cuBLAS uses and this kernel does not.
#pragma once

#include "../../common/async_copy.cuh"
#include "../../common/errors.cuh"
#include "../../common/gemm_case.h"
#include "../../common/gpu.cuh"
#include "../../common/launch.h"
#include "../../common/mma.cuh"
#include "../../common/mma_tiles.cuh"
#include "../../common/pdl.cuh"
#include "../w4a16_formats.h"
#include "../w4a16_layout.cuh"

#include <string>
#include <tuple>

namespace mma_g128 {

// A CTA of WARPS_N x WARPS_M x WARPS_K warps; each warp owns TILES_N 16-row weight tiles x
// TILES_M 8-token tiles, and 64 values of K of each stage.
template <int WARPS_N, int WARPS_M, int WARPS_K, int TILES_N, int TILES_M, int STAGES, int MIN_CTAS_PER_SM = 1>
struct Config {
    static constexpr int kMinCtasPerSm = MIN_CTAS_PER_SM;
    static constexpr int kWarpsN = WARPS_N, kWarpsM = WARPS_M, kWarpsK = WARPS_K;
    static constexpr int kTilesN = TILES_N, kTilesM = TILES_M, kStages = STAGES;
    static constexpr int kWarps = WARPS_N * WARPS_M * WARPS_K, kThreads = 32 * kWarps;
    static constexpr int kRowTiles = WARPS_N * TILES_N;        // 16-row weight tiles per CTA
    static constexpr int kBM = WARPS_M * TILES_M * 8;          // tokens per CTA
    static constexpr int kBK = WARPS_K * kMmaChunkK;           // K per stage
    static constexpr int kGroupsPerStage = kBK >= kGroupSize ? kBK / kGroupSize : 1;
    static constexpr int kWeightBytes = kRowTiles * WARPS_K * 512;  // 512 B: one 16x64 tile
    static constexpr int kActBytes = kBM * kBK * 2;
    static constexpr int kScaleBytes = kRowTiles * kGroupsPerStage * 64;  // 8 lanes' (s, 1024+z) pairs
    static constexpr int kStageBytes = kWeightBytes + kActBytes + kScaleBytes;
    static constexpr int kReduceBytes = (WARPS_K - 1) * WARPS_N * WARPS_M * TILES_N * TILES_M * 4 * 32 * 4;
    static constexpr int kSmemBytes = STAGES * kStageBytes > kReduceBytes ? STAGES * kStageBytes : kReduceBytes;
    static_assert(kBK % kGroupSize == 0 || kGroupSize % kBK == 0, "a stage holds whole groups, or a group whole stages");
    static_assert(kBK / 8 >= 8, "the swizzle permutes 8 16-byte pieces of an activation row");
    static_assert(kWeightBytes % 128 == 0 && kActBytes % 128 == 0 && kScaleBytes % 16 == 0, "stage parts stay aligned");
    static_assert(STAGES >= 2, "a pipeline needs a stage in flight");
};

// Chosen by timing candidates on the H200 (2026-11-30, README.md), K = 14336. Up to 64 tokens,
// narrow CTAs whose warps split K beat wider tiles: 16 warps for decoding (16.2 against 17.8 us
// with 8), then fewer as the token tile grows (M = 16: 21 against 30 us; M = 64: 43 against
// 76 us). Every CTA copies all of its tokens' activations from L2, so from 9 to 32 tokens the
// tiles are 32 weight rows tall (128 CTAs at N = 4096), not 16: half the copies (H200,
// 2026-12-05, µs: M = 16 7.6 -> 7.0 at K = 4096, 20.7 -> 18.2 at K = 14336; M = 32 10.1 -> 9.5).
// Beyond, 64-row tiles: 64 x 128 with 2+ CTAs per SM when that fills the GPU (M = 512: 57
// against 63 us for 128 x 128).
// Each is a type of its own, not an alias of its Config, so that its kernel is named after it
// (w4a16_mma_g128<mma_g128::Large>) whatever its numbers: scripts/sass_mix.txt finds it so.
struct Decode : Config<1, 1, 16, 1, 1, 4> {};   // M <= 8:   16 rows x   8 tokens, K split 16 ways
struct Tokens16 : Config<1, 1, 8, 2, 2, 4> {};  // M <= 16:  32 rows x  16 tokens, K split 8 ways
struct Tokens32 : Config<1, 1, 8, 2, 4, 3> {};  // M <= 32:  32 rows x  32 tokens, K split 8 ways
struct Tokens64 : Config<1, 1, 4, 1, 8, 3> {};  // M <= 64:  16 rows x  64 tokens, K split 4 ways
struct Medium : Config<2, 2, 2, 2, 4, 4> {};    // otherwise 64 rows x  64 tokens, K split 2 ways ...
struct Large : Config<2, 2, 1, 2, 8, 4, 2> {};  // ... or    64 rows x 128 tokens when that fills the GPU

// Byte offset of 16-byte piece `piece` of activation row `row` in a stage: pieces are XOR-ed
// with the row (mod 8), so the 8 rows an ldmatrix reads at one column sit in 8 different banks.
template <class C>
__device__ __forceinline__ int act_offset(int row, int piece) {
    return row * C::kBK * 2 + ((piece ^ (row % 8)) * 16);
}

// Each thread copies the same pieces of every stage, only further along K: their addresses are
// worked out once, and a stage costs one add and one cp.async per piece. Token rows past M are
// zeroed once in every stage buffer and never copied; pieces past K are skipped (the warps that
// would read them skip that stage).
template <class C>
struct StageLoader {
    static constexpr int kWeightPieces = C::kRowTiles * C::kWarpsK * 32;  // 16-byte pieces per stage
    static constexpr int kActPieces = C::kBM * (C::kBK / 8);
    static constexpr int kScalePieces = C::kRowTiles * C::kGroupsPerStage * 4;
    static constexpr int kW = (kWeightPieces + C::kThreads - 1) / C::kThreads, kA = kActPieces / C::kThreads;
    static_assert(kActPieces % C::kThreads == 0, "every thread copies the same number of activation pieces");
    static_assert(kScalePieces <= C::kThreads, "one scale piece per thread at most");

    const uint4* w_src[kW];
    int w_dst[kW], w_k[kW];  // smem offset in a stage; the piece's first K in stage 0
    bool w_ok[kW];
    const uint4* a_src[kA];
    int a_dst[kA], a_k[kA];
    bool a_ok[kA];
    const uint4* s_src;
    int s_dst, s_group;
    bool s_ok;

    __device__ StageLoader(const W4A16Args& p, uint8_t* smem, int tile0, int m0) {
        const int row_tiles = (p.N + kMmaRows - 1) / kMmaRows, chunks = p.K / kMmaChunkK, groups = p.K / kGroupSize;
#pragma unroll
        for (int j = 0; j < kW; ++j) {  // per tile, WARPS_K consecutive 512-byte 16x64 pieces of the repacked stream
            const int i = threadIdx.x + j * C::kThreads;
            const int part = i % 32, chunk = (i / 32) % C::kWarpsK, t = i / (32 * C::kWarpsK);
            w_ok[j] = i < kWeightPieces && tile0 + t < row_tiles;  // some threads have fewer weight pieces
            w_src[j] = reinterpret_cast<const uint4*>(p.mma_words) + ((size_t)min(tile0 + t, row_tiles - 1) * chunks + chunk) * 32 + part;
            w_dst[j] = (t * C::kWarpsK + chunk) * 512 + part * 16;
            w_k[j] = chunk * kMmaChunkK;
        }
#pragma unroll
        for (int j = 0; j < kA; ++j) {  // token rows of kBK fp16 values
            const int i = threadIdx.x + j * C::kThreads;
            const int r = i / (C::kBK / 8), piece = i % (C::kBK / 8);
            a_ok[j] = m0 + r < p.M;
            a_src[j] = reinterpret_cast<const uint4*>(p.a_f16 + (size_t)min(m0 + r, p.M - 1) * p.K) + piece;
            a_dst[j] = C::kWeightBytes + act_offset<C>(r, piece);
            a_k[j] = piece * 8;
            if (!a_ok[j])
                for (int s = 0; s < C::kStages; ++s) *reinterpret_cast<uint4*>(smem + s * C::kStageBytes + a_dst[j]) = make_uint4(0, 0, 0, 0);
        }
        {  // the stage's group(s) of each tile, 64 bytes each
            const int i = threadIdx.x;
            const int part = i % 4, j = (i / 4) % C::kGroupsPerStage, t = i / (4 * C::kGroupsPerStage);
            s_ok = i < kScalePieces && tile0 + t < row_tiles;
            s_src = reinterpret_cast<const uint4*>(p.mma_scales) + ((size_t)min(tile0 + t, row_tiles - 1) * groups + j) * 4 + part;
            s_dst = C::kWeightBytes + C::kActBytes + (t * C::kGroupsPerStage + j) * 64 + part * 16;
            s_group = j;
        }
    }

    __device__ __forceinline__ void load(uint8_t* stage, int kt, int K) const {
        const int k0 = kt * C::kBK;
#pragma unroll
        for (int j = 0; j < kW; ++j)
            if (w_ok[j] && k0 + w_k[j] < K) copy_16_async(stage + w_dst[j], w_src[j] + (size_t)kt * C::kWarpsK * 32);
#pragma unroll
        for (int j = 0; j < kA; ++j)
            if (a_ok[j] && k0 + a_k[j] < K) copy_16_async(stage + a_dst[j], a_src[j] + (size_t)kt * (C::kBK / 8));
        const int group = k0 / kGroupSize;
        if (s_ok && (group + s_group) * kGroupSize < K) copy_16_async(stage + s_dst, s_src + (size_t)group * 4);
    }
};

// The B fragments (tokens x 16 values of K) of K-step ks for the warp's kTilesM 8-token tiles:
// ldmatrix.x4 reads two tiles at once (matrices: tile 2i at K 0-7 and 8-15, then tile 2i + 1).
template <class C>
__device__ __forceinline__ void load_b_fragments(uint32_t (&b)[C::kTilesM][2], const uint8_t* act, int wm, int wk, int ks) {
    const int lane = threadIdx.x % 32, matrix = lane / 8;
    const int piece0 = (wk * kMmaChunkK + ks * kMmaK) / 8;
    if constexpr (C::kTilesM == 1) {
        uint32_t r[2];
        const int row = wm * 8 + lane % 8;
        ldmatrix_x2(r, act + act_offset<C>(row, piece0 + matrix % 2));
        b[0][0] = r[0], b[0][1] = r[1];
    } else {
        static_assert(C::kTilesM % 2 == 0, "token tiles are read in pairs");
#pragma unroll
        for (int pair = 0; pair < C::kTilesM / 2; ++pair) {
            uint32_t r[4];
            const int row = (wm * C::kTilesM + 2 * pair + matrix / 2) * 8 + lane % 8;
            ldmatrix_x4(r, act + act_offset<C>(row, piece0 + matrix % 2));
            b[2 * pair][0] = r[0], b[2 * pair][1] = r[1];
            b[2 * pair + 1][0] = r[2], b[2 * pair + 1][1] = r[3];
        }
    }
}

// One warp, one stage: its 64 values of K, all its tiles.
template <class C>
__device__ __forceinline__ void compute_stage(float (&acc)[C::kTilesN][C::kTilesM][4], const uint8_t* stage, int wn,
                                              int wm, int wk) {
    const int lane = threadIdx.x % 32;
    const uint8_t* act = stage + C::kWeightBytes;
    const uint8_t* sc = act + C::kActBytes;
    const int group_in_stage = C::kBK >= kGroupSize ? wk * kMmaChunkK / kGroupSize : 0;
    // The warp's weights for the whole stage (one 16-byte load per tile) and their scales.
    uint4 w[C::kTilesN];
    __half2 s_lo[C::kTilesN], s_hi[C::kTilesN], z_lo[C::kTilesN], z_hi[C::kTilesN];
#pragma unroll
    for (int tn = 0; tn < C::kTilesN; ++tn) {
        const int t = wn * C::kTilesN + tn;
        w[tn] = *reinterpret_cast<const uint4*>(stage + (t * C::kWarpsK + wk) * 512 + lane * 16);
        const uint2 sz = *reinterpret_cast<const uint2*>(sc + (t * C::kGroupsPerStage + group_in_stage) * 64 + (lane / 4) * 8);
        const __half2 s = bits_half2(sz.x), z = bits_half2(sz.y);  // (row g, row g + 8)
        s_lo[tn] = __low2half2(s), s_hi[tn] = __high2half2(s), z_lo[tn] = __low2half2(z), z_hi[tn] = __high2half2(z);
    }
#pragma unroll
    for (int ks = 0; ks < kKStepsPerLoad; ++ks) {
        uint32_t b[C::kTilesM][2];
        load_b_fragments<C>(b, act, wm, wk, ks);
#pragma unroll
        for (int tn = 0; tn < C::kTilesN; ++tn) {
            const uint32_t word = ks == 0 ? w[tn].x : ks == 1 ? w[tn].y : ks == 2 ? w[tn].z : w[tn].w;
            // Registers 0 and 2 hold row g, 1 and 3 row g + 8 (PTX's A fragment).
            const uint32_t a[4] = {half2_bits(__hmul2(nibbles_to_half2(word, z_lo[tn]), s_lo[tn])),
                                   half2_bits(__hmul2(nibbles_to_half2(word >> 4, z_hi[tn]), s_hi[tn])),
                                   half2_bits(__hmul2(nibbles_to_half2(word >> 8, z_lo[tn]), s_lo[tn])),
                                   half2_bits(__hmul2(nibbles_to_half2(word >> 12, z_hi[tn]), s_hi[tn]))};
#pragma unroll
            for (int tm = 0; tm < C::kTilesM; ++tm) mma_m16n8k16_f16_f32(acc[tn][tm], a, b[tm]);
        }
    }
}

template <class C>
__global__ void __launch_bounds__(C::kThreads, C::kMinCtasPerSm) w4a16_mma_g128(W4A16Args p) {
    extern __shared__ __align__(128) uint8_t smem[];
    const int warp = threadIdx.x / 32;
    const int wk = warp % C::kWarpsK, wm = (warp / C::kWarpsK) % C::kWarpsM, wn = warp / (C::kWarpsK * C::kWarpsM);
    const int tile0 = blockIdx.x * C::kRowTiles, m0 = blockIdx.y * C::kBM;
    const int k_tiles = (p.K + C::kBK - 1) / C::kBK;
    auto stage = [&](int kt) { return smem + (kt % C::kStages) * C::kStageBytes; };

    float acc[C::kTilesN][C::kTilesM][4] = {};
    wait_for_prerequisite_grids();  // a programmatic launch (below): the previous kernel done before any read
    const StageLoader<C> loader(p, smem, tile0, m0);
    for (int s = 0; s < C::kStages - 1; ++s) {
        if (s < k_tiles) loader.load(stage(s), s, p.K);
        commit_copies();
    }
    cp_async_pipeline<C::kStages>(
        k_tiles, [&](int kt) { loader.load(stage(kt), kt, p.K); },
        [&](int kt) {
            if (kt * C::kBK + wk * kMmaChunkK < p.K) compute_stage<C>(acc, stage(kt), wn, wm, wk);
        });
    if (!finish_split_k<C::kWarpsK, C::kTilesN * C::kTilesM * 4>(&acc[0][0][0], smem, warp / C::kWarpsK, wk)) return;
    store_mma_tiles(acc, p.c, p.M, p.N, (tile0 + wn * C::kTilesN) * kMmaRows, m0 + wm * C::kTilesM * 8);
}

}  // namespace mma_g128

inline std::string w4a16_mma_g128_why_not(const GemmCase& c, const Gpu&) {
    if (c.K % kGroupSize != 0) return "group-128: K must be a multiple of 128";
    return grid_limit_reason('y', ceil_div(c.M, mma_g128::Decode::kBM));
}

template <class C>
inline void launch_mma_config(const W4A16Args& p, cudaStream_t s) {
    auto kernel = mma_g128::w4a16_mma_g128<C>;
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes));
    const dim3 grid((unsigned)ceil_div(ceil_div(p.N, kMmaRows), C::kRowTiles), (unsigned)ceil_div(p.M, C::kBM));
    launch_with_pdl(kernel, grid, dim3(C::kThreads), C::kSmemBytes, s, p);  // starts as the previous kernel's last CTAs end
}

namespace mma_g128 {
// The tile shapes in the launcher's order, and its rule: the tile shape from M (the timings above),
// then the largest tile that still gives every SM a CTA. Host code, also for
// tests/ragged_tile_shapes.cu, which picks the ragged last tiles the tests run.
using Tiles = std::tuple<Decode, Tokens16, Tokens32, Tokens64, Medium, Large>;
inline int tile_index(int64_t M, int64_t N, int sms) {
    if (M <= Decode::kBM) return 0;
    if (M <= Tokens16::kBM) return 1;
    if (M <= Tokens32::kBM) return 2;
    if (M <= Tokens64::kBM) return 3;
    const int64_t large_ctas = ceil_div(N, (int64_t)Large::kRowTiles * kMmaRows) * ceil_div(M, (int64_t)Large::kBM);
    return large_ctas >= sms * 9 / 10 ? 5 : 4;
}
}  // namespace mma_g128

inline void launch_w4a16_mma_g128(const W4A16Args& p, cudaStream_t s) {
    using namespace mma_g128;
    switch (tile_index(p.M, p.N, current_sm_count())) {
        case 0: launch_mma_config<Decode>(p, s); break;
        case 1: launch_mma_config<Tokens16>(p, s); break;
        case 2: launch_mma_config<Tokens32>(p, s); break;
        case 3: launch_mma_config<Tokens64>(p, s); break;
        case 4: launch_mma_config<Medium>(p, s); break;
        default: launch_mma_config<Large>(p, s); break;
    }
}
