// CPU tests of step 4's arithmetic (no GPU needed): the compensation identity, our references
// against the dot products in common/golden/ (ggml's, and the emulations of llama.cpp's CUDA
// formula), the nibble unpacking DP4A kernels use, and the weight repacking.
// Ends with "N passed, M failed".
#include "../common/data.h"
#include "../common/ggml_quants.h"
#include "../common/golden.h"
#include "../common/q4_0_q8_1.h"
#include "../tests/unit_test.h"
#include "w4a8_layout.cuh"
#include "w4a8_mma_layout.h"

#ifndef QGF_GOLDEN_DIR
#define QGF_GOLDEN_DIR "common/golden"
#endif

// d_w·(d_a·sumi - 8·s) with s = d_a·Σq kept exact (not rounded to fp16) equals the dequantized
// dot product Σ (n-8)·d_w·q·d_a exactly in float64, block by block: every term is a product of
// at most 53 significant bits. Random blocks, some of them with extreme values.
static void test_compensation_identity() {
    constexpr int kBlocks = 20000;
    std::vector<float> w(kBlocks * 32), a(kBlocks * 32);
    fill_normal(w, 3, 1);
    fill_normal(a, 3, 2, 0.f, 5.f);
    for (size_t i = 0; i < w.size(); i += 61) w[i] *= 1000.f;
    std::vector<block_q4_0> wq(kBlocks);
    std::vector<block_q8_1> aq(kBlocks);
    quantize_row_q4_0_ref(w.data(), wq.data(), (int64_t)w.size());
    quantize_row_q8_1_ref(a.data(), aq.data(), (int64_t)a.size());
    size_t mismatches = 0;
    for (int b = 0; b < kBlocks; ++b) {
        const double d_w = fp16_to_fp32(wq[b].d), d_a = fp16_to_fp32(aq[b].d);
        int sum_q = 0;
        for (int j = 0; j < 32; ++j) sum_q += aq[b].qs[j];
        const double compensated = d_w * (d_a * block_sumi(wq[b], aq[b]) - 8.0 * (d_a * sum_q));
        double dequantized = 0;
        for (int j = 0; j < 16; ++j) {
            dequantized += ((wq[b].qs[j] & 0x0F) - 8) * d_w * (aq[b].qs[j] * d_a);
            dequantized += ((wq[b].qs[j] >> 4) - 8) * d_w * (aq[b].qs[j + 16] * d_a);
        }
        mismatches += compensated != dequantized;
    }
    EXPECT(mismatches == 0);
}

// Every golden case's recorded dot products (variants 0, 3, 4, 5, 6: count_golden_dots in
// common/q4_0_q8_1.h says which rule each follows), from ggml's own blocks.
static void test_golden_dots() {
    const std::vector<std::string> dirs = golden_case_dirs(QGF_GOLDEN_DIR);
    EXPECT(dirs.size() == 20);
    GoldenDotCounts counts;
    for (const auto& dir : dirs) {
        GoldenCase c;
        std::string why;
        if (!load_golden_case(dir, c, &why)) {
            std::printf("FAILED to load %s: %s\n", dir.c_str(), why.c_str());
            EXPECT(false);
            continue;
        }
        count_golden_dots(c.dots.data(), c.rows, c.k / 32, reinterpret_cast<const block_q4_0*>(c.q4_0.data()),
                          reinterpret_cast<const block_q8_0*>(c.q8_0.data()), reinterpret_cast<const block_q8_1*>(c.q8_1.data()),
                          reinterpret_cast<const block_q8_1*>(c.q8_1_cudaemu.data()), counts);
    }
    for (int v = 0; v < GoldenDotCounts::kVariants; ++v) {
        if (counts.bad[v])
            std::printf("golden %s: %zu of %zu dot products differ\n", GoldenDotCounts::kNames[v], counts.bad[v], counts.compared);
        EXPECT(counts.bad[v] == 0);
    }
    EXPECT(counts.compared > 100);
}

// The unpacking every DP4A kernel does, for all 256 byte values in each of the 4 byte positions
// of a word: the low and high nibble of byte p land, unsigned, in byte p of the two results;
// and dp4a_s8 adds the four signed byte products.
static void test_nibble_unpacking() {
    size_t bad = 0;
    for (uint32_t v = 0; v < 256; ++v)
        for (int p = 0; p < 4; ++p) {
            const uint32_t word = (0xA5C3E187u & ~(0xFFu << (8 * p))) | (v << (8 * p));  // byte p = v, others filler
            const uint32_t lo = low_nibbles(word), hi = high_nibbles(word);
            bad += ((lo >> (8 * p)) & 0xFF) != (v & 0x0F);
            bad += ((hi >> (8 * p)) & 0xFF) != (v >> 4);
            bad += (lo & 0xF0F0F0F0u) != 0 || (hi & 0xF0F0F0F0u) != 0;
        }
    EXPECT(bad == 0);
    std::vector<float> r(2000);
    fill_uniform(r, 5, 1, 0.f, 4294967295.f);
    size_t dp4a_bad = 0;
    for (size_t i = 0; i + 1 < r.size(); i += 2) {
        const uint32_t x = (uint32_t)r[i], y = (uint32_t)r[i + 1];
        int expected = 7;
        for (int p = 0; p < 4; ++p) expected += (int8_t)(x >> (8 * p)) * (int8_t)(y >> (8 * p));
        dp4a_bad += dp4a_s8(x, y, 7) != expected;
    }
    EXPECT(dp4a_bad == 0);
    EXPECT(dp4a_s8(0x0F0F0F0Fu, 0x80808080u, 0) == 4 * 15 * -128);  // largest nibble times the most negative int8
}

// sumi four words at a time equals the plain loop over the 32 values.
static void test_block_sumi() {
    std::vector<float> w(32 * 500), a(32 * 500);
    fill_normal(w, 8, 1);
    fill_normal(a, 8, 2);
    std::vector<block_q4_0> wq(500);
    std::vector<block_q8_1> aq(500);
    quantize_row_q4_0_ref(w.data(), wq.data(), (int64_t)w.size());
    quantize_row_q8_1_ref(a.data(), aq.data(), (int64_t)a.size());
    size_t bad = 0;
    for (int b = 0; b < 500; ++b) {
        int plain = 0;
        for (int j = 0; j < 16; ++j) plain += (wq[b].qs[j] & 0x0F) * aq[b].qs[j] + (wq[b].qs[j] >> 4) * aq[b].qs[j + 16];
        bad += block_sumi(wq[b], aq[b]) != plain;
    }
    EXPECT(bad == 0);
}

// Repacking moves bytes and nothing else: unpacking gives back every block.
static void test_repack_round_trip() {
    std::vector<float> w(32 * 300);
    fill_normal(w, 9, 1);
    std::vector<block_q4_0> blocks(300);
    quantize_row_q4_0_ref(w.data(), blocks.data(), (int64_t)w.size());
    const Q4_0Repacked r = repack_q4_0(blocks);
    EXPECT(r.qs.size() == 300 * 16 && r.d.size() == 300);
    const std::vector<block_q4_0> back = unpack_q4_0(r);
    EXPECT(std::memcmp(back.data(), blocks.data(), blocks.size() * sizeof(block_q4_0)) == 0);
    EXPECT(r.qs[16 * 7 + 3] == blocks[7].qs[3] && r.d[299] == blocks[299].d);
}

// The repack for int8 tensor cores against PTX's m16n8k32 A-fragment table: for every lane,
// register and byte, what the kernel extracts (XOR 0x88, mask 0xF0: 16·(n - 8) as int8) is the
// element the table names, with padding rows reading 0; and the scale pairs.
static void test_mma_int8_repack() {
    constexpr int64_t N = 21, K = 128, nblocks = K / QK4_0;
    std::vector<float> w(N * K);
    fill_normal(w, 5, 7);
    std::vector<block_q4_0> blocks(N * nblocks);
    quantize_row_q4_0_ref(w.data(), blocks.data(), N * K);
    const Q4_0MmaLayout r = repack_q4_0_for_mma(blocks, N, K);
    EXPECT(r.row_tiles == 2);
    size_t bad = 0, bad_scales = 0;
    for (int64_t tile = 0; tile < r.row_tiles; ++tile)
        for (int64_t b = 0; b < nblocks; ++b)
            for (int lane = 0; lane < 32; ++lane) {
                const uint32_t a = r.words[mma8_word_index(tile, b, lane, 0, K)], bw = r.words[mma8_word_index(tile, b, lane, 1, K)];
                const uint32_t regs[4] = {int8_from_high_nibbles(a), int8_from_high_nibbles(bw), int8_from_low_nibbles(a),
                                          int8_from_low_nibbles(bw)};
                for (int j = 0; j < 4; ++j)
                    for (int e = 0; e < 4; ++e) {
                        const Int8FragmentPosition p = mma8_a_position(lane, j, e);
                        const int64_t n = tile * 16 + p.row;
                        const int want = n < N ? 16 * (q4_0_code(blocks[n * nblocks + b], p.col) - 8) : 0;
                        bad += (int)(int8_t)(regs[j] >> (8 * e)) != want;
                    }
            }
    for (int64_t tile = 0; tile < r.row_tiles; ++tile)
        for (int64_t b = 0; b < nblocks; ++b)
            for (int g = 0; g < 8; ++g)
                for (int h = 0; h < 2; ++h) {
                    const int64_t n = tile * 16 + g + 8 * h;
                    const ggml_half want = n < N ? blocks[n * nblocks + b].d : 0;
                    bad_scales += (ggml_half)(r.scales[(tile * nblocks + b) * 8 + g] >> (16 * h)) != want;
                }
    EXPECT(bad == 0);
    EXPECT(bad_scales == 0);
    // The trick itself, for all 16 codes in both nibble positions.
    size_t bad_trick = 0;
    for (int n = 0; n < 16; ++n) {
        bad_trick += (int)(int8_t)int8_from_high_nibbles((uint32_t)n << 4) != 16 * (n - 8);
        bad_trick += (int)(int8_t)int8_from_low_nibbles((uint32_t)n) != 16 * (n - 8);
    }
    EXPECT(bad_trick == 0);
}

int main() {
    test_compensation_identity();
    test_golden_dots();
    test_nibble_unpacking();
    test_block_sumi();
    test_repack_round_trip();
    test_mma_int8_repack();
    return unit_test_summary();
}
