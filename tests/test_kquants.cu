// Host-only tests of common/ggml_kquants.h against golden vectors ggml itself produced
// (common/golden_kquants/, its README says how): for every case, our Q4_K and Q6_K quantizers give
// ggml's bytes, and our dequantizers give ggml's floats, bit for bit. Ends with "N passed, M failed".
#include "data.h"
#include "golden_kquants.h"
#include "q4_0_q8_1.h"
#include "q4_k_layout.h"
#include "q4_k_q8_1.h"
#include "q6_k_layout.h"
#include "q6_k_q8_1.h"
#include "unit_test.h"

#include <cmath>

#ifndef QGF_KQUANTS_GOLDEN_DIR
#define QGF_KQUANTS_GOLDEN_DIR "common/golden_kquants"
#endif

static void test_golden_kquants() {
    size_t cases = 0;
    EXPECT(check_kquant_golden(QGF_KQUANTS_GOLDEN_DIR, &cases));
    EXPECT(cases == 10);  // the README's table
}

// The comparison sees one flipped bit in ggml's blocks and in its floats (a copy of one case).
static void test_a_flipped_bit_is_seen() {
    const std::string dir = std::string(QGF_KQUANTS_GOLDEN_DIR) + "/normal";
    std::vector<uint8_t> raw;
    EXPECT(read_file(dir + "/x.f32", raw));
    const std::vector<float> x = bytes_as<float>(raw);
    const std::string copy = std::filesystem::temp_directory_path().string() + "/qgf_kquant_flip";
    std::filesystem::remove_all(copy);
    std::filesystem::copy(dir, copy);
    std::vector<uint8_t> q4;
    EXPECT(read_file(copy + "/q4_k.bin", q4));
    q4[200] ^= 0x01;  // a code byte of the second super-block
    EXPECT(write_file(copy + "/q4_k.bin", q4.data(), q4.size()));
    const KQuantDiffs d = kquant_golden_diffs<block_q4_K>(copy, "q4_k", x, quantize_row_q4_K_ref, dequantize_row_q4_K);
    EXPECT(d.bytes == 1 && d.floats >= 1);  // our bytes differ in that byte; ggml's floats no longer match its blocks
    std::filesystem::remove_all(copy);
}

// The 6-bit packing of Q4_K's scales and mins round-trips for every value, in every sub-block.
static void test_q4_k_scale_packing() {
    size_t bad = 0;
    for (int v = 0; v < 64; ++v) {
        uint8_t packed[K_SCALE_SIZE] = {};
        for (int j = 0; j < 8; ++j) kquants::q4_k_pack_scale_min(j, (v + j) % 64, (63 - v + 3 * j) % 64, packed);
        for (int j = 0; j < 8; ++j) {
            int sc, m;
            kquants::q4_k_scale_min(j, packed, sc, m);
            bad += sc != (v + j) % 64 || m != (63 - v + 3 * j) % 64;
        }
    }
    EXPECT(bad == 0);
}

// The lane header (q4_k_layout.h): a kernel's unpacking from its two words is ggml's from the byte
// array, and ggml's 12 bytes come back from it, for every sub-block and every byte value in each
// position of ggml's scales.
static void test_q4_k_lane_header() {
    size_t bad = 0, not_back = 0;
    for (int v = 0; v < 256; ++v)
        for (int pos = 0; pos < K_SCALE_SIZE; ++pos) {
            block_q4_K b{};
            for (int i = 0; i < K_SCALE_SIZE; ++i) b.scales[i] = (uint8_t)(i == pos ? v : 37 * i + 11);
            uint8_t lane[kQ4KHeaderBytes];
            q4_k_lane_header(b, lane);
            uint32_t words[4];
            std::memcpy(words, lane, sizeof(words));
            for (int j = 0; j < 8; ++j) {
                int sc, m, sc_lane, m_lane;
                kquants::q4_k_scale_min(j, b.scales, sc, m);
                q4_k_lane_scale_min(j, words[1 + j / 4], words[3], sc_lane, m_lane);
                bad += sc != sc_lane || m != m_lane;
            }
            block_q4_K back{};
            q4_k_ggml_header(lane, back);
            not_back += std::memcmp(back.scales, b.scales, K_SCALE_SIZE) != 0;
        }
    EXPECT(bad == 0 && not_back == 0);
}

// The Q4_K × Q8_1 formula (q4_k_q8_1.h) is the dequantized dot product, rewritten: with s = d_a·Σq_a
// kept exact, d·sc_j·d_a·sumi_j − dmin·m_j·s summed over the sub-blocks equals Σ deq(w)·deq(a) to
// float64 rounding (every term is a small integer times d·d_a or dmin·d_a). Then with the s that
// Q8_1 stores (fp16): off by that rounding only, far below the 4-bit weights' own error. And a
// formula that forgets the minimum (or flips its sign) is far off.
// A row of `supers` K-quant super-blocks (ggml's quantizer `quantize`) and the Q8_1 activations
// beside it, from normal data; a non-zero `outlier` replaces weight 7 first.
template <class Block>
struct KQuantRow {
    std::vector<Block> w;
    std::vector<block_q8_1> a;
};
template <class Block>
static KQuantRow<Block> quantized_row(void (*quantize)(const float*, Block*, int64_t), int64_t supers, uint64_t seed,
                                      float outlier = 0.f) {
    const int64_t n = supers * QK_K;
    std::vector<float> w(n), a(n);
    fill_normal(w, seed, 1);
    fill_normal(a, seed, 2);
    if (outlier != 0.f) w[7] = outlier;
    KQuantRow<Block> row{std::vector<Block>(supers), std::vector<block_q8_1>(n / 32)};
    quantize(w.data(), row.w.data(), n);
    quantize_row_q8_1_ref(a.data(), row.a.data(), n, Q81Sum::DTimesSumQ);
    return row;
}

static void test_q4_k_q8_1_formula() {
    constexpr int64_t kSuper = 4;
    const KQuantRow<block_q4_K> row = quantized_row(quantize_row_q4_K_ref, kSuper, 41);
    const std::vector<block_q4_K>& wq = row.w;
    const std::vector<block_q8_1>& aq = row.a;
    double dequantized = 0, abs_sum = 0, exact_s = 0, no_min = 0;
    for (int64_t b = 0; b < kSuper; ++b) {
        const double d = fp16_to_fp32(wq[b].d), dmin = fp16_to_fp32(wq[b].dmin);
        for (int j = 0; j < QK_K / 32; ++j) {
            int sc, m;
            kquants::q4_k_scale_min(j, wq[b].scales, sc, m);
            const block_q8_1& aj = aq[b * 8 + j];
            const double d_a = fp16_to_fp32(aj.d);
            int sum_q = 0;
            for (int l = 0; l < 32; ++l) {
                const uint8_t byte = wq[b].qs[(j / 2) * 32 + l];
                const int q = j % 2 == 0 ? byte & 0xF : byte >> 4;
                const double term = (d * sc * q - dmin * m) * (d_a * aj.qs[l]);
                dequantized += term;
                abs_sum += std::fabs(term);
                sum_q += aj.qs[l];
            }
            const int sumi = q4_k_subblock_sumi(wq[b], j, aj.qs);
            exact_s += d * sc * d_a * sumi - dmin * m * (d_a * sum_q);
            no_min += d * sc * d_a * sumi;
        }
    }
    const double stored_s = q4_k_q8_1_dot_f64(wq.data(), aq.data(), kSuper);
    EXPECT(std::fabs(exact_s - dequantized) <= 1e-12 * abs_sum);
    EXPECT(std::fabs(stored_s - dequantized) <= 1e-4 * abs_sum && stored_s != exact_s);
    EXPECT(std::fabs(no_min - dequantized) > 1e-2 * abs_sum);
}

// The repacked Q4_K (q4_k_layout.h): every byte comes back (headers and codes), every code is where
// q4_k_repacked_code says, and Q4_0's DP4A unpacking (block_sumi_words) on a repacked sub-block
// gives the same integer sum as the sub-block read from ggml's block (q4_k_subblock_sumi), for
// every sub-block of every super-block, including the odd ones (high nibbles in ggml's order).
static void test_q4_k_repack() {
    constexpr int64_t kSuper = 6;
    const KQuantRow<block_q4_K> row = quantized_row(quantize_row_q4_K_ref, kSuper, 43);
    const std::vector<block_q4_K>& wq = row.w;
    const std::vector<block_q8_1>& aq = row.a;
    const Q4_KRepacked r = repack_q4_k(wq);
    EXPECT(r.headers.size() + r.codes.size() == wq.size() * sizeof(block_q4_K));
    const std::vector<block_q4_K> back = unpack_q4_k(r);
    EXPECT(std::memcmp(back.data(), wq.data(), wq.size() * sizeof(block_q4_K)) == 0);
    int misplaced = 0, wrong_sums = 0;
    for (int64_t b = 0; b < kSuper; ++b)
        for (int j = 0; j < kQ4KSubBlocks; ++j) {
            const uint8_t* sub = &r.codes[(b * kQ4KSubBlocks + j) * kQ4KSubBlockCodeBytes];
            for (int l = 0; l < 32; ++l) misplaced += q4_k_repacked_code(sub, l) != q4_k_code(wq[b], 32 * j + l);
            uint32_t qs[4], codes[8];
            std::memcpy(qs, sub, sizeof(qs));
            std::memcpy(codes, aq[b * kQ4KSubBlocks + j].qs, sizeof(codes));
            wrong_sums += block_sumi_words(qs, codes) != q4_k_subblock_sumi(wq[b], j, aq[b * kQ4KSubBlocks + j].qs);
        }
    EXPECT(misplaced == 0 && wrong_sums == 0);
}

// The Q6_K × Q8_1 formula (q6_k_q8_1.h) is the dequantized dot product, regrouped: per 16 values an
// integer sum of (q − 32)·q_a times the sub-block's scale, per 32 values d_a, per super-block d.
// Every term is a small integer times d·d_a, so in float64 the two agree to rounding. Two wrong
// regroupings are far off: codes without their −32, and the first half's scale used for both.
static void test_q6_k_q8_1_formula() {
    constexpr int64_t kSuper = 4;
    const KQuantRow<block_q6_K> row = quantized_row(quantize_row_q6_K_ref, kSuper, 51);
    const std::vector<block_q6_K>& wq = row.w;
    const std::vector<block_q8_1>& aq = row.a;
    double dequantized = 0, abs_sum = 0, no_offset = 0, one_scale = 0;
    for (int64_t b = 0; b < kSuper; ++b) {
        const double d = fp16_to_fp32(wq[b].d);
        for (int i = 0; i < QK_K; ++i) {
            const block_q8_1& ai = aq[b * 8 + i / 32];
            const double act = fp16_to_fp32(ai.d) * ai.qs[i % 32];
            const int q = q6_k_code(wq[b], i);
            dequantized += d * wq[b].scales[i / 16] * q * act;
            abs_sum += std::fabs(d * wq[b].scales[i / 16] * q * act);
            no_offset += d * wq[b].scales[i / 16] * (q + 32) * act;
            one_scale += d * wq[b].scales[i / 32 * 2] * q * act;
        }
    }
    const double formula = q6_k_q8_1_dot_f64(wq.data(), aq.data(), kSuper);
    EXPECT(std::fabs(formula - dequantized) <= 1e-12 * abs_sum);
    EXPECT(std::fabs(no_offset - dequantized) > 1e-2 * abs_sum);
    EXPECT(std::fabs(one_scale - dequantized) > 1e-3 * abs_sum);
}

// The Q6_K layout (q6_k_layout.h): every byte comes back, every code is where q6_k_repacked_code
// says, and the kernels' unpacking (q6_k_run_sumi) gives each half-run's integer sum.
static void test_q6_k_repack() {
    constexpr int64_t kSuper = 5;
    // an outlier: codes at both ends of 0..63 in its sub-block
    const KQuantRow<block_q6_K> row = quantized_row(quantize_row_q6_K_ref, kSuper, 61, /*outlier=*/40.f);
    const std::vector<block_q6_K>& wq = row.w;
    const std::vector<block_q8_1>& aq = row.a;
    const Q6_KRepacked r = repack_q6_k(wq);
    EXPECT(r.low.size() + r.high.size() + r.scales.size() + 2 * r.d.size() == wq.size() * sizeof(block_q6_K));
    const std::vector<block_q6_K> back = unpack_q6_k(r);
    EXPECT(std::memcmp(back.data(), wq.data(), wq.size() * sizeof(block_q6_K)) == 0);
    int misplaced = 0, wrong_sums = 0;
    for (int64_t b = 0; b < kSuper; ++b)
        for (int run = 0; run < kQ6KRuns; ++run) {
            const uint8_t* low = &r.low[(b * kQ6KRuns + run) * kQ6KRunLowBytes];
            const uint8_t* high = &r.high[(b * kQ6KRuns + run) * kQ6KRunHighBytes];
            for (int l = 0; l < 32; ++l) misplaced += q6_k_repacked_code(low, high, l) != q6_k_code(wq[b], 32 * run + l) + 32;
            uint32_t low_words[4], high_words[2], codes[8];
            std::memcpy(low_words, low, sizeof(low_words));
            std::memcpy(high_words, high, sizeof(high_words));
            const block_q8_1& ar = aq[b * kQ6KRuns + run];
            std::memcpy(codes, ar.qs, sizeof(codes));
            int first, second;
            q6_k_run_sumi(low_words, high_words, codes, first, second);
            wrong_sums += first != q6_k_subblock_sumi(wq[b], 2 * run, ar.qs) || second != q6_k_subblock_sumi(wq[b], 2 * run + 1, ar.qs + 16);
        }
    EXPECT(misplaced == 0 && wrong_sums == 0);
}

int main() {
    test_golden_kquants();
    test_a_flipped_bit_is_seen();
    test_q4_k_scale_packing();
    test_q4_k_lane_header();
    test_q4_k_q8_1_formula();
    test_q4_k_repack();
    test_q6_k_q8_1_formula();
    test_q6_k_repack();
    return unit_test_summary();
}
