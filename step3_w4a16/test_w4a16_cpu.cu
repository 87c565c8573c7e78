// CPU tests of step 3's formats (no GPU needed): the group-128 quantizer and dequantizer, the W8
// per-row quantizer, the offline repacking for mma.sync against PTX's fragment tables
// (tests/ptx_fragment_tables.h), the 0x6400 trick emulated bit by bit, and the CPU reference against a plain
// float64 loop. Ends with "N passed, M failed".
#include "../common/check.h"
#include "../common/data.h"
#include "../common/ggml_quants.h"
#include "../common/q4_0_layout.cuh"
#include "../common/reference_gemm.h"
#include "../tests/ptx_fragment_tables.h"
#include "../tests/tolerance_canary.h"
#include "../tests/unit_test.h"
#include "format_comparison.h"
#include "kernels/08_auto_g128.cuh"
#include "kernels/09_gemv_tma.cuh"
#include "w4a16_formats.h"

#ifndef QGF_G128_GOLDEN_DIR
#define QGF_G128_GOLDEN_DIR "tests/golden_g128"
#endif

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

// Round trip: every dequantized weight is within what the format guarantees of the original:
// half a step, s/2, plus what rounding s to fp16 can add at the ends of the range (the 15 steps of
// the fp16 s may fall short of the range by 15·|s - (hi - lo)/15| <= 15·2^-11·s, and the end code
// is clamped), plus the fp16 rounding of the dequantized value (half an ulp: 2^-11 of it).
static void test_g128_round_trip() {
    constexpr int64_t N = 64, K = 1024;
    std::vector<float> w(N * K);
    fill_normal(w, 7, 1);
    const G128Weights g = quantize_g128(w, N, K);
    const std::vector<float> deq = dequantize_g128(g);
    size_t bad = 0;
    for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k) {
            const float s = fp16_to_fp32(g.scale[n * (K / kGroupSize) + k / kGroupSize]);
            const float err = std::fabs(deq[n * K + k] - w[n * K + k]);
            bad += !(err <= s * (0.5f + 15.0f / 2048) + std::fabs(deq[n * K + k]) / 2048);
        }
    EXPECT(bad == 0);
    for (uint8_t z : g.zero) EXPECT(z <= 15);
}

// Golden vectors of group-128 (tests/golden_g128/, written by the independent Python model
// tests/g128_model.py from the format's definition): our quantizer must give every code word,
// scale and zero point byte for byte. A file holds the inputs, then per group 16 words, the
// scale's fp16 bits and the zero point.
static void test_g128_golden() {
    size_t cases = 0;
    for (const char* name : {"normal", "outliers", "positive", "negative", "constant_and_zero", "half_steps", "tiny", "large", "skewed"}) {
        const std::string path = std::string(QGF_G128_GOLDEN_DIR) + "/" + name + ".bin";
        FILE* f = std::fopen(path.c_str(), "rb");
        if (!f) {
            std::printf("FAILED: cannot read %s\n", path.c_str());
            EXPECT(false);
            continue;
        }
        std::vector<uint8_t> bytes;
        uint8_t buf[4096];
        for (size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) bytes.insert(bytes.end(), buf, buf + got);
        std::fclose(f);
        constexpr size_t kGroupBytes = kGroupSize * 4 + kWordsPerGroup * 4 + 2 + 1;  // inputs + what they quantize to
        const size_t groups = bytes.size() / kGroupBytes;
        EXPECT(groups > 0 && bytes.size() == groups * kGroupBytes);
        const int64_t K = (int64_t)groups * kGroupSize;
        std::vector<float> x(K);
        std::memcpy(x.data(), bytes.data(), K * 4);
        const G128Weights g = quantize_g128(x, 1, K);
        size_t bad = 0;
        const uint8_t* want = bytes.data() + K * 4;
        for (size_t j = 0; j < groups; ++j, want += kWordsPerGroup * 4 + 3) {
            bad += std::memcmp(want, &g.q[j * kWordsPerGroup], kWordsPerGroup * 4) != 0;
            bad += std::memcmp(want + kWordsPerGroup * 4, &g.scale[j], 2) != 0;
            bad += want[kWordsPerGroup * 4 + 2] != g.zero[j];
        }
        if (bad) std::printf("golden group-128 %s: %zu of %zu groups differ\n", name, bad, groups);
        EXPECT(bad == 0);
        ++cases;
    }
    EXPECT(cases == 9);
}

// A constant positive group: the range stretched to [0, c] keeps c (z = 0, q = 15); a constant
// negative group keeps it too (z = 15, q = 0); an all-zero group is all zeros with s = 0.
static void test_g128_constant_and_zero_groups() {
    for (float c : {3.0f, -3.0f, 0.0f}) {
        std::vector<float> w(kGroupSize, c);
        const G128Weights g = quantize_g128(w, 1, kGroupSize);
        const std::vector<float> deq = dequantize_g128(g);
        for (float v : deq) EXPECT(std::fabs(v - c) <= std::fabs(c) * 1e-3f);
        if (c > 0) EXPECT(g.zero[0] == 0 && g128_code(g, 0, 5) == 15);
        if (c < 0) EXPECT(g.zero[0] == 15 && g128_code(g, 0, 5) == 0);
        if (c == 0) EXPECT(g.scale[0] == 0 && g.zero[0] == 0 && g.q[0] == 0);
    }
}

// One outlier stretches the group's scale; the zero point stays in 0..15 and the outlier itself
// comes back within half a step.
static void test_g128_outlier_and_clamp() {
    std::vector<float> w(kGroupSize);
    fill_normal(w, 9, 2);
    w[17] = 60.f;
    const G128Weights g = quantize_g128(w, 1, kGroupSize);
    const float s = fp16_to_fp32(g.scale[0]);
    EXPECT(g.zero[0] <= 15);
    EXPECT(std::fabs(dequantize_g128(g)[17] - 60.f) <= 0.5f * s + 0.05f);
    EXPECT(g128_code(g, 0, 17) == 15);
    // All-negative data: the range [min, 0] puts the zero point at the top, 15. (With 0 always in
    // the range, -min/s never exceeds 15 by more than fp16 rounding; the clamp is a safety net.)
    std::vector<float> neg(kGroupSize);
    for (int i = 0; i < kGroupSize; ++i) neg[i] = -1.0f - i / 128.0f;
    EXPECT(quantize_g128(neg, 1, kGroupSize).zero[0] == 15);
}

// Nibble order: element 8j + i sits in bits 4i of word j.
static void test_g128_nibble_order() {
    std::vector<float> w(kGroupSize);
    for (int i = 0; i < kGroupSize; ++i) w[i] = (float)(i % 16);  // 0..15: s = 1, z = 0, q = value
    const G128Weights g = quantize_g128(w, 1, kGroupSize);
    EXPECT(fp16_to_fp32(g.scale[0]) == 1.0f && g.zero[0] == 0);
    EXPECT(g.q[0] == 0x76543210u && g.q[1] == 0xFEDCBA98u);
}

// W8: q·d within half a step, the row maximum maps to ±127.
static void test_w8() {
    constexpr int64_t N = 8, K = 256;
    std::vector<float> w(N * K);
    fill_normal(w, 11, 3);
    const W8Weights r = quantize_w8_per_row(w, N, K);
    const std::vector<float> deq = dequantize_w8(r);
    size_t bad = 0;
    for (int64_t i = 0; i < N * K; ++i) bad += !(std::fabs(deq[i] - w[i]) <= 0.5f * fp16_to_fp32(r.scale[i / K]) * 1.01f);
    EXPECT(bad == 0);
    int max_code = 0;
    for (int8_t q : r.q) max_code = std::max(max_code, std::abs((int)q));
    EXPECT(max_code == 127);
}

// Nibbles of a repacked layout that are not where the layout and PTX say, written here from the
// ISA's side (tests/ptx_fragment_tables.h), not with the repack's own index functions: element
// (n, k) of the padded weights, in the m16n8k16 A fragment of its 16x16 tile (row n % 16, column
// k % 16), is half `part` of register `reg` of lane `lane`; the layout keeps that lane's word of
// K-step ks at [tile][ks / 4][lane][ks % 4] and register reg's half `part` in bits 4·reg + 16·part.
// want(n, k) is the code of padded row n (n may pass N), column k.
template <class Want>
static size_t misplaced_nibbles(const std::vector<uint32_t>& words, int64_t row_tiles, int64_t K, Want want) {
    size_t bad = 0;
    for (int64_t n = 0; n < row_tiles * 16; ++n)
        for (int64_t k = 0; k < K; ++k) {
            const FragmentSlot s = m16n8k16_a_slot((int)(n % 16), (int)(k % 16));
            const int64_t ks = k / 16;
            const uint32_t word = words[(((n / 16) * (K / 64) + ks / 4) * 32 + s.lane) * 4 + ks % 4];
            const int got = (int)(word >> (4 * s.reg + 16 * s.part)) & 0xF;  // what the kernel extracts
            bad += got != want(n, k);
        }
    return bad;
}

// The repacked words against the PTX ISA's table for the m16n8k16 A fragment, on a shape with a
// partial row tile: every nibble lands where the model says, padding rows are code 0.
static void test_mma_repack() {
    constexpr int64_t N = 20, K = 256;
    std::vector<float> w(N * K);
    fill_normal(w, 13, 4);
    const G128Weights g = quantize_g128(w, N, K);
    const G128MmaLayout r = repack_g128_for_mma(g);
    EXPECT(r.row_tiles == 2);
    EXPECT(misplaced_nibbles(r.words, r.row_tiles, K, [&](int64_t n, int64_t k) { return n < N ? g128_code(g, n, k) : 0; }) == 0);
    // Scales: half2(s[g], s[g+8]) and half2(1024 + z[g], 1024 + z[g+8]) per (tile, group, g).
    const int64_t groups = K / kGroupSize;
    size_t bad_scales = 0;
    for (int64_t tile = 0; tile < r.row_tiles; ++tile)
        for (int64_t j = 0; j < groups; ++j)
            for (int gi = 0; gi < 8; ++gi)
                for (int h = 0; h < 2; ++h) {
                    const int64_t n = tile * kMmaRows + gi + 8 * h;
                    const size_t at = ((tile * groups + j) * 8 + gi) * 2;
                    const ggml_half s = (ggml_half)(r.scales[at] >> (16 * h)), z = (ggml_half)(r.scales[at + 1] >> (16 * h));
                    const ggml_half want_s = n < N ? g.scale[n * groups + j] : 0;
                    const float want_z = 1024.0f + (n < N ? g.zero[n * groups + j] : 0);
                    bad_scales += s != want_s || fp16_to_fp32(z) != want_z;
                }
    EXPECT(bad_scales == 0);
}

// Pieces of `words_per_piece` words of a [tile][chunk] stream found anywhere but at
// [block][chunk][tile in block] of its row-block order, the tiles past the last one zeros.
static size_t misordered_pieces(const std::vector<uint32_t>& src, const std::vector<uint32_t>& dst, int64_t row_tiles, int64_t chunks,
                                int words_per_piece) {
    const int64_t blocks = (row_tiles + kRowBlockTiles - 1) / kRowBlockTiles;
    if (dst.size() != (size_t)(blocks * kRowBlockTiles * chunks * words_per_piece)) return dst.size() + 1;
    size_t bad = 0;
    for (int64_t tile = 0; tile < blocks * kRowBlockTiles; ++tile)
        for (int64_t c = 0; c < chunks; ++c)
            for (int i = 0; i < words_per_piece; ++i) {
                const uint32_t want = tile < row_tiles ? src[(tile * chunks + c) * words_per_piece + i] : 0;
                const int64_t block = tile / kRowBlockTiles, j = tile % kRowBlockTiles;
                bad += dst[((block * chunks + c) * kRowBlockTiles + j) * words_per_piece + i] != want;
            }
    return bad;
}

// The row-block order of rung 07, for both formats it reads: piece (tile, chunk) of 04's or 06's
// stream at [block][chunk][tile in block]. 20 rows are 2 tiles: block 0 holds them and 6 zero
// tiles; 150 rows are 10 tiles: block 1 holds 2 and 6 zero tiles. Group-128's scale pieces are per
// group (two chunks), Q4_0's per chunk (its two blocks).
static void test_row_block_order() {
    for (const int64_t N : {20, 150}) {
        constexpr int64_t K = 256;
        std::vector<float> w(N * K);
        fill_normal(w, 17, 4);
        const int64_t chunks = K / kMmaChunkK, groups = K / kGroupSize;
        const G128MmaLayout m = repack_g128_for_mma(quantize_g128(w, N, K));
        const G128MmaLayout b = order_g128_by_row_block(m);
        EXPECT(misordered_pieces(m.words, b.words, m.row_tiles, chunks, kWordsPerPiece) == 0);
        EXPECT(misordered_pieces(m.scales, b.scales, m.row_tiles, groups, kScaleWordsPerPiece) == 0);
        const Q4_0MmaLayout16 q = repack_q4_0_for_mma16(quantize_rows_q4_0(w, N, K), N, K);
        const Q4_0MmaLayout16 qb = order_q4_0_by_row_block(q);
        EXPECT(misordered_pieces(q.words, qb.words, q.row_tiles, chunks, kWordsPerPiece) == 0);
        EXPECT(misordered_pieces(q.scales, qb.scales, q.row_tiles, chunks, kScaleWordsPerPiece) == 0);
    }
}

// The entry point's choice (08), on a described GPU (no device needed): the copy-engine GEMV at one
// token where sm_90 code runs, the tensor-core GEMV up to 4 tokens, mma.sync up to 16 (wgmma from 5
// where K is long), wgmma beyond only where sm_90a code runs, mma.sync otherwise.
static void test_entry_point_choice() {
    Gpu h200;
    h200.cc = 90, h200.code_sm = 90, h200.code_arch_specific = true, h200.sms = 132, h200.smem_per_block_optin = 232448;
    Gpu sm90_build = h200, a100 = h200;
    sm90_build.code_arch_specific = false;
    a100.cc = a100.code_sm = 80, a100.code_arch_specific = false, a100.sms = 108;
    auto picks = [](int64_t M, int64_t K, const Gpu& gpu) { return std::string(choose_g128_kernel({"", M, 4096, K}, gpu).name); };
    EXPECT(picks(1, 14336, h200) == "gemv_tma_g128");
    EXPECT(picks(1, 4096, sm90_build) == "gemv_tma_g128");
    EXPECT(picks(2, 14336, h200) == "gemv_mma_g128");
    EXPECT(picks(4, 14336, h200) == "gemv_mma_g128");
    EXPECT(picks(5, 4096, h200) == "mma_g128");
    EXPECT(picks(16, 4096, h200) == "mma_g128");
    EXPECT(picks(5, 14336, h200) == "wgmma_g128" && picks(16, 8192, h200) == "wgmma_g128");
    EXPECT(picks(16, 14336, sm90_build) == "mma_g128");
    EXPECT(picks(17, 4096, h200) == "wgmma_g128");
    EXPECT(picks(512, 14336, h200) == "wgmma_g128");
    EXPECT(picks(512, 4096, sm90_build) == "mma_g128");
    EXPECT(picks(512, 4096, a100) == "mma_g128");
    EXPECT(picks(1, 4096, a100) == "gemv_mma_g128");
    // rung 07's token tile: the smallest of 8..64 that holds M, two 64-token tiles up to M = 128
    using wgmma_g128::token_tile;
    EXPECT(token_tile(1) == 8 && token_tile(8) == 8 && token_tile(9) == 16 && token_tile(33) == 64);
    EXPECT(token_tile(65) == 64 && token_tile(128) == 64 && token_tile(129) == 128 && token_tile(4096) == 128);
}

// Rung 09's ring in 227 KB of shared memory (the H200's per-block limit), as its tests assume: at
// M = 3, K = 14336 three stages of 32 chunks for the 7 of each tile group (the sanitizer tests'
// ring wraps), at M = 1 nine of 16 chunks for the 14 of a group (it wraps too); M = 8 fits K = 4096
// and not 14336 (a SKIP with the reason); M = 9 is no GEMV.
static void test_gemv_tma_ring() {
    using gemv_tma_w4a16::TmaG128W4A16;
    using gemv_tma_w4a16::TmaQ4_0W4A16;
    constexpr size_t kH200 = 232448;
    EXPECT(gemv_tma_stage_bytes<TmaG128W4A16>(2) == 34816 && gemv_tma_stage_bytes<TmaQ4_0W4A16>(2) == 36864);
    EXPECT(gemv_tma_stage_bytes<TmaG128W4A16>(1) == 17408 && gemv_tma_stage_bytes<TmaQ4_0W4A16>(1) == 18432);
    EXPECT(gemv_tma_stages<TmaG128W4A16>(3, 14336, kH200) == 3 && gemv_tma_stages<TmaQ4_0W4A16>(3, 14336, kH200) == 3);
    EXPECT(14336 / gemv_mma::kChunkK / gemv_tma::stage_chunks(3) == 7 && gemv_tma::stage_chunks(1) == 16);
    EXPECT(gemv_tma_stages<TmaG128W4A16>(1, 14336, kH200) == 9);
    EXPECT(gemv_tma_why_not<TmaG128W4A16>(8, 4096, kH200).empty() && gemv_tma_why_not<TmaQ4_0W4A16>(8, 4096, kH200).empty());
    EXPECT(!gemv_tma_why_not<TmaG128W4A16>(8, 14336, kH200).empty() && !gemv_tma_why_not<TmaQ4_0W4A16>(8, 14336, kH200).empty());
    EXPECT(!gemv_tma_why_not<TmaG128W4A16>(9, 4096, kH200).empty());
}

// Q4_0 in the same fragment order (the decoding tensor-core GEMV): every nibble where the model
// says, padding rows code 8 (value 0), and per (tile, block, g) half2(d[g], d[g+8]), padding d = 0.
static void test_q4_0_mma_repack() {
    constexpr int64_t N = 20, K = 192;
    std::vector<float> w(N * K);
    fill_normal(w, 17, 4);
    const std::vector<block_q4_0> q = quantize_rows_q4_0(w, N, K);
    const Q4_0MmaLayout16 r = repack_q4_0_for_mma16(q, N, K);
    EXPECT(r.row_tiles == 2 && r.words.size() == (size_t)(2 * (K / kMmaK) * 32));
    const int64_t nblocks = K / QK4_0;
    EXPECT(misplaced_nibbles(r.words, r.row_tiles, K, [&](int64_t n, int64_t k) {
               if (n >= N) return 8;
               const block_q4_0& b = q[n * nblocks + k / QK4_0];
               const int j = (int)(k % QK4_0);  // ggml: element j is qs[j]'s low nibble, j + 16 its high one
               return j < 16 ? b.qs[j] & 0x0F : b.qs[j - 16] >> 4;
           }) == 0);
    size_t bad_scales = 0;
    for (int64_t tile = 0; tile < r.row_tiles; ++tile)
        for (int64_t b = 0; b < nblocks; ++b)
            for (int gi = 0; gi < 8; ++gi)
                for (int h = 0; h < 2; ++h) {
                    const int64_t n = tile * kMmaRows + gi + 8 * h;
                    const ggml_half got = (ggml_half)(r.scales[(tile * nblocks + b) * 8 + gi] >> (16 * h));
                    bad_scales += got != (n < N ? q[n * nblocks + b].d : (ggml_half)0);
                }
    EXPECT(bad_scales == 0);
}

// The 0x6400 trick on the host, for every code and zero point: OR the code into 0x6400, read
// it as fp16, subtract 1024 + z: exactly q - z. Its high-nibble form (high_nibbles_to_half2): the
// code left at bits 4..7 reads as 1024 + 16q, and the offset 960 - (1024 + z) = -(64 + z) is an
// fp16 number, so one fused multiply-add by 1/16 yields the integer q - z, exactly. And the W8
// variant: byte b, sign bit flipped, under 0x64: 1024 + b + 128; minus 1152 gives b, for all 256 bytes.
static void test_half_trick() {
    size_t bad = 0;
    for (int q = 0; q < 16; ++q)
        for (int z = 0; z < 16; ++z) {
            const HalfTrick t = half_trick(q, z);  // what part 1 of the lesson prints, for q = 5, z = 8
            bad += t.bits != (0x6400 | q) || t.value != 1024.0f + q || t.minus_zero != (float)(q - z);
            const float high = fp16_to_fp32((ggml_half)(0x6400 | q << 4));
            const float offset = fp16_to_fp32(fp32_to_fp16(960.0f - fp16_to_fp32(fp32_to_fp16(1024.0f + (float)z))));
            bad += high != 1024.0f + 16.0f * q || offset != -(64.0f + z) || std::fma(high, 0.0625f, offset) != (float)(q - z);
        }
    for (int b = -128; b < 128; ++b) {
        const uint8_t flipped = (uint8_t)((uint8_t)(int8_t)b ^ 0x80);
        bad += fp16_to_fp32((ggml_half)(0x6400 | flipped)) - 1152.0f != (float)b;
    }
    EXPECT(bad == 0);
}

// What part 1 of the lesson says of the formats (format_comparison.h), as properties: the bits
// per weight; group-128 spends fewer bits than Q4_0 and pays with a larger error; an outlier hurts
// a group of 128 more than a block of 32 (its error grows by a larger factor); W8 is two orders of
// magnitude better than either, fp16 another three.
static void test_format_comparison() {
    const std::vector<FormatError> rows = compare_format_errors(1234);
    EXPECT(rows.size() == 4);
    if (rows.size() != 4) return;
    const FormatError &q4_0 = rows[0], &g128 = rows[1], &w8 = rows[2], &fp16 = rows[3];
    EXPECT(q4_0.bits == 4.5 && g128.bits == 4.1875 && w8.bits == 8.0 + 16.0 / kComparisonCols && fp16.bits == 16.0);
    std::printf("  part 1's NMSE, N(0,1) / outliers: Q4_0 %.3e / %.3e, g128 %.3e / %.3e, W8 %.3e, fp16 %.3e\n", q4_0.nmse_normal,
                q4_0.nmse_outliers, g128.nmse_normal, g128.nmse_outliers, w8.nmse_normal, fp16.nmse_normal);
    EXPECT(q4_0.nmse_normal > 1e-3 && q4_0.nmse_normal < 2e-2);
    EXPECT(g128.nmse_normal > q4_0.nmse_normal);
    EXPECT(g128.nmse_outliers / g128.nmse_normal > q4_0.nmse_outliers / q4_0.nmse_normal);
    EXPECT(q4_0.nmse_outliers > 1.5 * q4_0.nmse_normal);
    EXPECT(w8.nmse_normal < q4_0.nmse_normal / 50 && fp16.nmse_normal < w8.nmse_normal / 1000);
}

// The reference GEMM against a plain float64 loop on a small problem.
static void test_reference() {
    constexpr int64_t M = 3, N = 5, K = 256;
    std::vector<float> a(M * K), w(N * K);
    fill_normal(a, 17, 5);
    fill_normal(w, 17, 6);
    const std::vector<float> deq = dequantize_g128(quantize_g128(w, N, K));
    const ReferenceRows ref = reference_gemm(a.data(), deq.data(), M, N, K, reference_row_choice(M, N, K));
    for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
            double sum = 0;
            for (int64_t k = 0; k < K; ++k) sum += (double)a[m * K + k] * deq[n * K + k];
            EXPECT(ref.c[m * N + n] == sum);
        }
}

// A fine canary on lesson-like data (M = 3, N = 64, K = 4096, fp16 activations): the product with
// the `wrong` weights must fail the kernel tolerance against the product with the `right` ones, and
// pass a tolerance ten times looser (so that a tolerance loosened that far would be noticed here).
// make(w, N, K) returns {right, wrong} from the unquantized weights.
template <class MakeWeights>
static void expect_weights_told_apart(const char* name, uint64_t seed, MakeWeights make) {
    constexpr int64_t M = 3, N = 64, K = 4096;
    std::vector<float> a(M * K), w(N * K);
    fill_normal(a, seed, 1);
    fill_normal(w, seed, 2);
    const std::vector<float> acts = from_fp16(to_fp16(a));
    const std::pair<std::vector<float>, std::vector<float>> weights = make(w, N, K);
    const std::vector<int64_t> rows = reference_row_choice(M, N, K);
    const ReferenceRows ref = reference_gemm(acts.data(), weights.first.data(), M, N, K, rows);
    const ReferenceRows wrong = reference_gemm(acts.data(), weights.second.data(), M, N, K, rows);
    const std::vector<float> canary(wrong.c.begin(), wrong.c.end());
    expect_fine_canary(name, canary.data(), ref.c.data(), ref.abs_sum.data(), canary.size());
}

// The kernel tolerance is tight (check.h, kSumOrderTolerance): the finest mistake step 3 plants,
// group-128 weights dequantized in FP32 as (q - z)·s instead of rounded to fp16 as the format says
// (canary_fp32_weights on the GPU), must fail it.
static void test_tolerance_rejects_fp32_weights() {
    expect_weights_told_apart("fp32 weights", 23, [](const std::vector<float>& w, int64_t N, int64_t K) {
        const G128Weights g = quantize_g128(w, N, K);
        std::vector<float> unrounded(N * K);
        for (int64_t n = 0; n < N; ++n)
            for (int64_t k = 0; k < K; ++k) {
                const int64_t j = n * (K / kGroupSize) + k / kGroupSize;
                unrounded[n * K + k] = (float)(g128_code(g, n, k) - g.zero[j]) * fp16_to_fp32(g.scale[j]);
            }
        return std::make_pair(dequantize_g128(g), unrounded);
    });
}

// Rung 07's Q4_0 multiplies fp16((q - 8)·d), Q4_0 rounded to fp16 (Weights::Q4_0Rounded), so it is
// checked against that reference, not against exact Q4_0: the tolerance tells the two apart, so a
// kernel that rounded where its reference does not (or the reverse) would fail.
static void test_tolerance_separates_q4_0_from_its_fp16_rounding() {
    expect_weights_told_apart("exact Q4_0 against its fp16 rounding", 29, [](const std::vector<float>& w, int64_t N, int64_t K) {
        const std::vector<float> exact = dequantize_q4_0_rows(quantize_rows_q4_0(w, N, K), N, K);
        return std::make_pair(from_fp16(to_fp16(exact)), exact);
    });
}

int main() {
    test_g128_round_trip();
    test_g128_constant_and_zero_groups();
    test_g128_outlier_and_clamp();
    test_g128_nibble_order();
    test_w8();
    test_mma_repack();
    test_row_block_order();
    test_entry_point_choice();
    test_gemv_tma_ring();
    test_q4_0_mma_repack();
    test_half_trick();
    test_reference();
    test_tolerance_rejects_fp32_weights();
    test_tolerance_separates_q4_0_from_its_fp16_rounding();
    test_g128_golden();
    test_format_comparison();
    return unit_test_summary();
}
