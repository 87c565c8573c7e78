// q6_k_layout.h - Q6_K weights as a decoding kernel will want them: ggml's bytes, moved, not changed.
//
// ggml's block_q6_K (210 bytes, ggml_kquants.h) keeps the low 4 bits of its 256 six-bit codes in
// 128 bytes and their top 2 bits in 64, both interleaved across the super-block (q6_k_code), then
// sixteen int8 scales and an fp16 d. A thread that owns one run of 32 values (one Q8_1 block of
// activations, as in step 4's resident GEMV) would gather its codes from all over the block. Here
// each run's bits sit together, in two streams:
//   low    16 bytes per run, in Q4_0's nibble order (byte l: value l in its low nibble, value
//          l + 16 in its high one), so that Q4_0's masks give four values per word;
//   high    8 bytes per run: byte b holds the top 2 bits of values b, b + 8, b + 16 and b + 24, in
//          its bit pairs 0-1, 2-3, 4-5 and 6-7, so that one shift and one mask of a word give the
//          top bits of the four values that a low-nibble word holds, each in its own byte;
// and the scales and d as ggml stores them, per super-block. No byte is added (6.5625 bits per
// weight). q6_k_run_sumi is the unpacking a kernel does, written once for the CPU tests and the GPU.
#pragma once

#include "ggml_kquants.h"
#include "ggml_quants.h"
#include "parallel_for.h"
#include "q4_0_q8_1.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

constexpr int kQ6KRuns = QK_K / 32;      // runs of 32 values per super-block
constexpr int kQ6KRunLowBytes = 16;      // 32 low nibbles
constexpr int kQ6KRunHighBytes = 8;      // 32 pairs of top bits
static_assert(kQ6KRuns * (kQ6KRunLowBytes + kQ6KRunHighBytes) + QK_K / 16 + sizeof(ggml_half) == sizeof(block_q6_K),
              "no byte added or lost");

struct Q6_KRepacked {
    std::vector<uint8_t> low;     // nsuper x 8 x 16
    std::vector<uint8_t> high;    // nsuper x 8 x 8
    std::vector<int8_t> scales;   // nsuper x 16, ggml's
    std::vector<ggml_half> d;     // nsuper
};

// The 6-bit code (0..63) of value l (0..31) of a repacked run.
inline int q6_k_repacked_code(const uint8_t* low, const uint8_t* high, int l) {
    const int low4 = l < 16 ? low[l] & 0xF : low[l - 16] >> 4;
    return low4 | ((high[l % 8] >> (2 * (l / 8))) & 3) << 4;
}

// ggml's reference quantizer on every row of a rows x k matrix (k a multiple of 256), all cores.
inline std::vector<block_q6_K> quantize_rows_q6_k(const std::vector<float>& x, int64_t rows, int64_t k) {
    return quantize_rows<block_q6_K, QK_K>(x, rows, k, quantize_row_q6_K_ref);
}

inline Q6_KRepacked repack_q6_k(const std::vector<block_q6_K>& blocks) {
    Q6_KRepacked r;
    const size_t n = blocks.size();
    r.low.assign(n * kQ6KRuns * kQ6KRunLowBytes, 0);
    r.high.assign(n * kQ6KRuns * kQ6KRunHighBytes, 0);
    r.scales.resize(n * (QK_K / 16));
    r.d.resize(n);
    for (size_t b = 0; b < n; ++b) {
        std::memcpy(&r.scales[b * (QK_K / 16)], blocks[b].scales, QK_K / 16);
        r.d[b] = blocks[b].d;
        for (int run = 0; run < kQ6KRuns; ++run) {
            uint8_t* low = &r.low[(b * kQ6KRuns + run) * kQ6KRunLowBytes];
            uint8_t* high = &r.high[(b * kQ6KRuns + run) * kQ6KRunHighBytes];
            for (int l = 0; l < 32; ++l) {
                const int q = q6_k_code(blocks[b], 32 * run + l) + 32;
                low[l % 16] |= (uint8_t)((q & 0xF) << (l < 16 ? 0 : 4));
                high[l % 8] |= (uint8_t)((q >> 4) << (2 * (l / 8)));
            }
        }
    }
    return r;
}

// Back to ggml's blocks (the tests check that nothing was lost on the way): the codes packed as
// quantize_row_q6_K_ref packs them.
inline std::vector<block_q6_K> unpack_q6_k(const Q6_KRepacked& r) {
    std::vector<block_q6_K> blocks(r.d.size());
    for (size_t b = 0; b < blocks.size(); ++b) {
        int8_t codes[QK_K];
        for (int run = 0; run < kQ6KRuns; ++run)
            for (int l = 0; l < 32; ++l)
                codes[32 * run + l] = (int8_t)q6_k_repacked_code(&r.low[(b * kQ6KRuns + run) * kQ6KRunLowBytes],
                                                                 &r.high[(b * kQ6KRuns + run) * kQ6KRunHighBytes], l);
        kquants::pack_q6_k_codes(codes, blocks[b]);
        std::memcpy(blocks[b].scales, &r.scales[b * (QK_K / 16)], QK_K / 16);
        blocks[b].d = r.d[b];
    }
    return blocks;
}

// Four 6-bit codes, one per byte, minus 32 each: signed bytes -32..31 (no byte borrows from its
// neighbour: each result fits its byte).
GGML_HD uint32_t q6_k_minus_32(uint32_t codes) {
#ifdef __CUDA_ARCH__
    return __vsub4(codes, 0x20202020u);
#else
    uint32_t out = 0;
    for (int e = 0; e < 4; ++e) out |= (uint32_t)(uint8_t)((int)((codes >> (8 * e)) & 0xFF) - 32) << (8 * e);
    return out;
#endif
}

// The two integer sums of one run: Σ (q − 32)·q_a over its values 0..15 (first) and 16..31
// (second), each with its own scale. low and high are the run's 16 + 8 bytes as words, codes the
// Q8_1 block's 32 activation codes: word i of low holds values 4i..4i+3 (low nibbles) and
// 4i+16..4i+19 (high); their top bits are word i % 2 of high, shifted by 2·(i / 2) and by 2·(i / 2 + 2).
GGML_HD void q6_k_run_sumi(const uint32_t low[4], const uint32_t high[2], const uint32_t codes[8], int& first, int& second) {
    first = 0, second = 0;
    for (int i = 0; i < 4; ++i) {
        const uint32_t top_first = ((high[i % 2] >> (2 * (i / 2))) & 0x03030303u) << 4;
        const uint32_t top_second = ((high[i % 2] >> (2 * (i / 2 + 2))) & 0x03030303u) << 4;
        first = dp4a_s8(q6_k_minus_32(low_nibbles(low[i]) | top_first), codes[i], first);
        second = dp4a_s8(q6_k_minus_32(high_nibbles(low[i]) | top_second), codes[i + 4], second);
    }
}
