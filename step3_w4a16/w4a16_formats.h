// w4a16_formats.h - the weight formats of step 3, on the CPU: quantizers, dequantizers and the
// offline repacking for the tensor-core kernel. Everything here runs without a GPU and is
// unit-tested (test_w4a16_cpu.cu).
//
// Three ways to store a weight matrix W[N][K] (N output features, K inputs):
//   Q4_0        ggml's blocks of 32 (common/ggml_quants.h): w = (q - 8)·d, fp16 d per block.
//   group-128   what GPTQ/AWQ-style W4A16 serving stores: unsigned nibbles q, 8 to a 32-bit word
//   (G128)      (element 8j+i in bits 4i..4i+3, low nibble first), and per 128 weights of a row
//               one fp16 scale s and one integer zero point z in 0..15:  w = (q - z)·s.
//               Asymmetric: min and max of the group map to 0 and 15, so a group of positive
//               weights does not waste half the codes. The dequantized weight is defined as the
//               fp16 value fp16((q - z)·s): what a W4A16 kernel feeds the tensor cores.
//   W8 per row  int8 q and one fp16 scale per row: w = q·d, d = max|w|/127 (the simpler cousin).
#pragma once

#include "../common/ggml_quants.h"
#include "../common/parallel_for.h"
#include "../common/q4_0_mma_scales.h"
#include "../common/row_blocks.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

constexpr int kGroupSize = 128;                 // weights per scale and zero point (G128)
constexpr int kNibblesPerWord = 8;
constexpr int kWordsPerGroup = kGroupSize / kNibblesPerWord;

// ---------------------------------------------------------------------------------------------
// Group-128 asymmetric INT4
// ---------------------------------------------------------------------------------------------

struct G128Weights {
    int64_t N = 0, K = 0;
    std::vector<uint32_t> q;       // [N][K/8]   8 nibbles per word, low nibble first
    std::vector<ggml_half> scale;  // [N][K/128]
    std::vector<uint8_t> zero;     // [N][K/128] 0..15
};

// Nearest integer, ties away from zero (the rounding every quantizer here uses).
inline int round_half_away(float x) { return (int)std::lround(x); }

// One group: scale s = (max - min) / 15 over a range stretched to include 0 (so that 0 is
// exactly representable and a constant group is not collapsed to nothing), rounded to fp16;
// zero point z = round(-min·r) clamped to 0..15; codes q = clamp(round(x·r) + z, 0, 15), with r
// the FP32 reciprocal of the fp16 s the kernels will use (not of the FP32 range / 15). An all-zero
// group has s = 0, z = 0, q = 0. tests/g128_model.py writes this definition apart, in Python, and
// its golden vectors (tests/golden_g128/) hold this code to it byte for byte.
inline void quantize_group_g128(const float* x, uint32_t* words, ggml_half* scale, uint8_t* zero) {
    float lo = 0.f, hi = 0.f;
    for (int i = 0; i < kGroupSize; ++i) {
        lo = std::min(lo, x[i]);
        hi = std::max(hi, x[i]);
    }
    const ggml_half s_bits = fp32_to_fp16((hi - lo) / 15.0f);
    const float s = fp16_to_fp32(s_bits);
    const float inv = s > 0.f ? 1.0f / s : 0.f;
    const int z = std::clamp(round_half_away(-lo * inv), 0, 15);
    *scale = s_bits;
    *zero = (uint8_t)z;
    for (int w = 0; w < kWordsPerGroup; ++w) {
        uint32_t word = 0;
        for (int i = 0; i < kNibblesPerWord; ++i) {
            const int q = std::clamp(round_half_away(x[w * kNibblesPerWord + i] * inv) + z, 0, 15);
            word |= (uint32_t)q << (4 * i);
        }
        words[w] = word;
    }
}

inline int g128_code(const G128Weights& g, int64_t n, int64_t k) {
    return (int)(g.q[(n * g.K + k) / kNibblesPerWord] >> (4 * (k % kNibblesPerWord))) & 0xF;
}

// fp16((q - z)·s): (q - z)·s is exact in fp32 (4 bits times 11), then rounded once to fp16.
inline float g128_dequantize_value(int q, int z, ggml_half s) {
    return fp16_to_fp32(fp32_to_fp16((float)(q - z) * fp16_to_fp32(s)));
}

// K must be a multiple of kGroupSize.
inline G128Weights quantize_g128(const std::vector<float>& w, int64_t N, int64_t K) {
    G128Weights g;
    g.N = N, g.K = K;
    const int64_t groups = K / kGroupSize;
    g.q.resize(N * K / kNibblesPerWord);
    g.scale.resize(N * groups);
    g.zero.resize(N * groups);
    parallel_for(N, [&](int64_t n) {
        for (int64_t j = 0; j < groups; ++j)
            quantize_group_g128(&w[n * K + j * kGroupSize], &g.q[(n * K + j * kGroupSize) / kNibblesPerWord],
                                &g.scale[n * groups + j], &g.zero[n * groups + j]);
    });
    return g;
}

inline std::vector<float> dequantize_g128(const G128Weights& g) {
    std::vector<float> w(g.N * g.K);
    const int64_t groups = g.K / kGroupSize;
    parallel_for(g.N, [&](int64_t n) {
        for (int64_t k = 0; k < g.K; ++k) {
            const int64_t j = n * groups + k / kGroupSize;
            w[n * g.K + k] = g128_dequantize_value(g128_code(g, n, k), g.zero[j], g.scale[j]);
        }
    });
    return w;
}

// ---------------------------------------------------------------------------------------------
// W8, one scale per row
// ---------------------------------------------------------------------------------------------

struct W8Weights {
    int64_t N = 0, K = 0;
    std::vector<int8_t> q;         // [N][K]
    std::vector<ggml_half> scale;  // [N]
};

// d = max|w| / 127 rounded to fp16; q = round(w / d) with that fp16 d, clamped to ±127.
inline W8Weights quantize_w8_per_row(const std::vector<float>& w, int64_t N, int64_t K) {
    W8Weights r{N, K, std::vector<int8_t>(N * K), std::vector<ggml_half>(N)};
    parallel_for(N, [&](int64_t n) {
        float amax = 0.f;
        for (int64_t k = 0; k < K; ++k) amax = std::max(amax, std::fabs(w[n * K + k]));
        r.scale[n] = fp32_to_fp16(amax / 127.0f);
        const float d = fp16_to_fp32(r.scale[n]), inv = d > 0.f ? 1.0f / d : 0.f;
        for (int64_t k = 0; k < K; ++k) r.q[n * K + k] = (int8_t)std::clamp(round_half_away(w[n * K + k] * inv), -127, 127);
    });
    return r;
}

// q·d, exact in fp32.
inline std::vector<float> dequantize_w8(const W8Weights& r) {
    std::vector<float> w(r.N * r.K);
    for (int64_t n = 0; n < r.N; ++n)
        for (int64_t k = 0; k < r.K; ++k) w[n * r.K + k] = (float)r.q[n * r.K + k] * fp16_to_fp32(r.scale[n]);
    return w;
}

// ---------------------------------------------------------------------------------------------
// Q4_0 and fp16 activations
// ---------------------------------------------------------------------------------------------

inline std::vector<float> dequantize_q4_0_rows(const std::vector<block_q4_0>& blocks, int64_t N, int64_t K) {
    std::vector<float> w(N * K);
    parallel_for(N, [&](int64_t n) { dequantize_row_q4_0(&blocks[n * K / QK4_0], &w[n * K], K); });
    return w;
}

// The activations a W4A16 kernel is given: fp16, rounded to nearest even from the FP32 data.
inline std::vector<ggml_half> to_fp16(const std::vector<float>& x) {
    std::vector<ggml_half> h(x.size());
    for (size_t i = 0; i < x.size(); ++i) h[i] = fp32_to_fp16(x[i]);
    return h;
}
inline std::vector<float> from_fp16(const std::vector<ggml_half>& h) {
    std::vector<float> x(h.size());
    for (size_t i = 0; i < h.size(); ++i) x[i] = fp16_to_fp32(h[i]);
    return x;
}

// ---------------------------------------------------------------------------------------------
// Offline repacking for the tensor-core kernel (kernels/04_mma_g128.cuh)
// ---------------------------------------------------------------------------------------------
//
// mma.sync m16n8k16 takes its A operand (here: 16 weight rows x 16 values of K) as four 32-bit
// registers per lane, each holding two fp16 values. In PTX's fragment layout, lane L (group
// g = L/4, t = L%4) holds, in register j = 0..3 and half h = 0..1,
//     row g + 8·(j & 1),  column 2t + 8·(j >> 1) + h.
// The repack puts exactly those 8 weights of one 16x16 tile into one 32-bit word of nibbles, at
// bit 4j + 16h, so that (word >> 4j) & 0x000F000F holds register j's two codes in the two
// 16-bit halves, ready for the 0x6400 trick. Four consecutive 16-value K-steps of a lane are
// one 16-byte word quadruple: one load per lane per 16x64 tile. Rows are padded to a multiple
// of 16 with code 0 and scale 0.
// Scales and zeros go in a second stream, per (16-row tile, group, g): the pair a lane needs,
// {half2(s[g], s[g+8]), half2(1024 + z[g], 1024 + z[g+8])}.

constexpr int kMmaRows = 16;      // weight rows per tile (the m of m16n8k16)
static_assert(kMmaRows == kQ4_0MmaTileRows, "Q4_0's scale stream is q4_0_mma_scales.h's");
constexpr int kMmaK = 16;         // K per mma
constexpr int kKStepsPerLoad = 4; // K-steps in one lane's 16-byte load
constexpr int kMmaChunkK = kMmaK * kKStepsPerLoad;  // 64

struct MmaFragmentPosition {
    int row, col;  // within the 16x16 tile
};

// Where nibble `i` (bits 4i..4i+3) of lane `lane`'s word sits in the 16x16 tile.
inline MmaFragmentPosition mma_a_position(int lane, int i) {
    const int g = lane / 4, t = lane % 4, j = i % 4, h = i / 4;
    return {g + 8 * (j & 1), 2 * t + 8 * (j >> 1) + h};
}

struct G128MmaLayout {
    int64_t row_tiles = 0, K = 0;
    std::vector<uint32_t> words;    // [row_tiles][K/64][32 lanes][4 K-steps]
    std::vector<uint32_t> scales;   // [row_tiles][K/128][8 g][2]: half2(s[g], s[g+8]), half2(1024+z[g], 1024+z[g+8])
};

inline size_t mma_word_index(int64_t tile, int64_t kstep, int lane, int64_t K) {
    return (((size_t)tile * (K / kMmaChunkK) + kstep / kKStepsPerLoad) * 32 + lane) * kKStepsPerLoad + kstep % kKStepsPerLoad;
}

// The words of a repacked stream ([row_tiles][K/64][32 lanes][4 K-steps], see above) from any
// 4-bit code(n, k); rows past N get pad_code.
template <class Code>
inline std::vector<uint32_t> pack_mma_words(int64_t N, int64_t K, Code code, int pad_code) {
    const int64_t row_tiles = (N + kMmaRows - 1) / kMmaRows, ksteps = K / kMmaK;
    std::vector<uint32_t> words(row_tiles * ksteps * 32, 0);
    parallel_for(row_tiles, [&](int64_t tile) {
        for (int64_t ks = 0; ks < ksteps; ++ks)
            for (int lane = 0; lane < 32; ++lane) {
                uint32_t word = 0;
                for (int i = 0; i < 8; ++i) {
                    const MmaFragmentPosition p = mma_a_position(lane, i);
                    const int64_t n = tile * kMmaRows + p.row;
                    const int q = n < N ? code(n, ks * kMmaK + p.col) : pad_code;
                    word |= (uint32_t)q << (4 * i);
                }
                words[mma_word_index(tile, ks, lane, K)] = word;
            }
    });
    return words;
}

inline G128MmaLayout repack_g128_for_mma(const G128Weights& g) {
    G128MmaLayout r;
    r.row_tiles = (g.N + kMmaRows - 1) / kMmaRows;
    r.K = g.K;
    const int64_t groups = g.K / kGroupSize;
    r.words = pack_mma_words(g.N, g.K, [&](int64_t n, int64_t k) { return g128_code(g, n, k); }, 0);
    r.scales.assign(r.row_tiles * groups * 8 * 2, 0);
    for (int64_t tile = 0; tile < r.row_tiles; ++tile)
        for (int64_t j = 0; j < groups; ++j)
            for (int gi = 0; gi < 8; ++gi) {
                ggml_half s[2] = {0, 0}, z[2];
                for (int half = 0; half < 2; ++half) {
                    const int64_t n = tile * kMmaRows + gi + 8 * half;
                    const int zero = n < g.N ? g.zero[n * groups + j] : 0;
                    if (n < g.N) s[half] = g.scale[n * groups + j];
                    z[half] = fp32_to_fp16(1024.0f + (float)zero);
                }
                const size_t at = ((tile * groups + j) * 8 + gi) * 2;
                r.scales[at] = (uint32_t)s[0] | (uint32_t)s[1] << 16;
                r.scales[at + 1] = (uint32_t)z[0] | (uint32_t)z[1] << 16;
            }
    return r;
}

// The same stream for the Hopper kernel (kernels/07_wgmma_g128.cuh), whose copy warp brings a
// stage (8 row tiles x 64 values of K) with one bulk copy for the weights and one for the scales:
// the copy engine spends a fixed time on each request, and 16 small ones per stage were what
// limited it (LAB_NOTES.md). The pieces are 04's, unchanged; only their order differs:
//   words:  [row block of 8 tiles][K/64][tile in block][32 lanes][4 K-steps]   (512 bytes per piece)
//   scales: [row block of 8 tiles][K/128][tile in block][8 g][2]               (64 bytes per piece)
// Tiles past the last one (N not a multiple of 128) are zeros: scale 0, so their weights are 0.
constexpr int kRowBlockTiles = 8;
constexpr int kWordsPerPiece = 32 * kKStepsPerLoad, kScaleWordsPerPiece = 8 * 2;

inline G128MmaLayout order_g128_by_row_block(const G128MmaLayout& m) {
    return {m.row_tiles, m.K, order_by_row_block(m.words, m.row_tiles, m.K / kMmaChunkK, kWordsPerPiece, kRowBlockTiles),
            order_by_row_block(m.scales, m.row_tiles, m.K / kGroupSize, kScaleWordsPerPiece, kRowBlockTiles)};
}

// Q4_0 in the same fragment order (the decoding tensor-core GEMV, kernels/06_gemv_mma.cuh): the
// nibbles as above (padding rows: code 8, the value 0), and per (16-row tile, 32-value block, g)
// one word half2(d[g], d[g+8]) (padding rows: d = 0). A block is two K-steps.
struct Q4_0MmaLayout16 {
    int64_t row_tiles = 0, K = 0;
    std::vector<uint32_t> words;   // [row_tiles][K/64][32 lanes][4 K-steps]
    std::vector<uint32_t> scales;  // [row_tiles][K/32][8 g]: half2(d[g], d[g+8])
};

// K must be a multiple of 64.
inline Q4_0MmaLayout16 repack_q4_0_for_mma16(const std::vector<block_q4_0>& w, int64_t N, int64_t K) {
    Q4_0MmaLayout16 r;
    r.row_tiles = (N + kMmaRows - 1) / kMmaRows;
    r.K = K;
    const int64_t nblocks = K / QK4_0;
    r.words = pack_mma_words(N, K, [&](int64_t n, int64_t k) { return q4_0_code(w[n * nblocks + k / QK4_0], (int)(k % QK4_0)); }, 8);
    r.scales = q4_0_mma_tile_scales(w, N, K);
    return r;
}

// The same stream for the Hopper kernel's Q4_0 (kernels/07_wgmma_g128.cuh), in its row-block order:
//   words:  [row block of 8 tiles][K/64][tile in block][32 lanes][4 K-steps]   (512 bytes per piece)
//   scales: [row block of 8 tiles][K/64][tile in block][2 blocks][8 g]         (64 bytes per piece)
// A scale piece is one stage's (group-128's serves two). Tiles past the last one are zeros: d = 0.
inline Q4_0MmaLayout16 order_q4_0_by_row_block(const Q4_0MmaLayout16& m) {
    const int64_t chunks = m.K / kMmaChunkK;
    static_assert(kScaleWordsPerPiece == (kMmaChunkK / QK4_0) * 8, "a Q4_0 scale piece is a chunk's 2 blocks x 8 g");
    return {m.row_tiles, m.K, order_by_row_block(m.words, m.row_tiles, chunks, kWordsPerPiece, kRowBlockTiles),
            order_by_row_block(m.scales, m.row_tiles, chunks, kScaleWordsPerPiece, kRowBlockTiles)};
}
