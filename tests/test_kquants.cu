// Host-only tests of common/ggml_kquants.h against golden vectors ggml itself produced
// (common/golden_kquants/, its README says how): for every case, our Q4_K and Q6_K quantizers give
// ggml's bytes, and our dequantizers give ggml's floats, bit for bit. Ends with "N passed, M failed".
#include "check.h"
#include "ggml_kquants.h"
#include "golden.h"
#include "unit_test.h"

#include <string>
#include <vector>

#ifndef QGF_KQUANTS_GOLDEN_DIR
#define QGF_KQUANTS_GOLDEN_DIR "common/golden_kquants"
#endif

static const char* const kCases[] = {"normal", "uniform_positive", "all_negative", "outliers", "zero_subblocks",
                                     "zero_and_constant", "grid_ties", "saturating_scale", "tiny", "large"};

// Our bytes and floats for one format against a case's files; prints what differs.
template <class Block>
static bool format_matches(const std::string& dir, const char* name, const std::vector<float>& x,
                           void (*quantize)(const float*, Block*, int64_t), void (*dequantize)(const Block*, float*, int64_t)) {
    std::vector<uint8_t> want, want_deq;
    if (!read_file(dir + "/" + name + ".bin", want) || !read_file(dir + "/deq_" + name + ".f32", want_deq)) {
        std::printf("FAILED to read %s's %s files\n", dir.c_str(), name);
        return false;
    }
    const int64_t n = (int64_t)x.size(), nb = n / QK_K;
    std::vector<Block> ours(nb);
    quantize(x.data(), ours.data(), n);
    const bool bytes = want.size() == ours.size() * sizeof(Block) &&
                       check_bytes(name, ours.data(), want.data(), want.size(), sizeof(Block), 3).pass;
    std::vector<float> deq(n);
    dequantize(reinterpret_cast<const Block*>(want.data()), deq.data(), n);  // ggml's blocks, our dequantizer
    const size_t float_diffs = count_float_diffs(deq, bytes_as<float>(want_deq));
    if (float_diffs) std::printf("    %s dequantized: %zu values differ from ggml's\n", name, float_diffs);
    return bytes && float_diffs == 0;
}

static void test_golden_kquants() {
    size_t cases = 0;
    for (const char* c : kCases) {
        const std::string dir = std::string(QGF_KQUANTS_GOLDEN_DIR) + "/" + c;
        std::vector<uint8_t> raw;
        if (!read_file(dir + "/x.f32", raw) || raw.size() % (4 * QK_K) != 0) {
            std::printf("FAILED: %s/x.f32 missing or not whole super-blocks\n", dir.c_str());
            EXPECT(false);
            continue;
        }
        const std::vector<float> x = bytes_as<float>(raw);
        const bool q4 = format_matches<block_q4_K>(dir, "q4_k", x, quantize_row_q4_K_ref, dequantize_row_q4_K);
        const bool q6 = format_matches<block_q6_K>(dir, "q6_k", x, quantize_row_q6_K_ref, dequantize_row_q6_K);
        std::printf("  %-20s q4_k %s   q6_k %s\n", c, q4 ? "PASS" : "FAIL", q6 ? "PASS" : "FAIL");
        EXPECT(q4);
        EXPECT(q6);
        ++cases;
    }
    EXPECT(cases == sizeof(kCases) / sizeof(kCases[0]));
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

int main() {
    test_golden_kquants();
    test_q4_k_scale_packing();
    return unit_test_summary();
}
