// Host-only tests of common/ggml_kquants.h against golden vectors ggml itself produced
// (common/golden_kquants/, its README says how): for every case, our Q4_K and Q6_K quantizers give
// ggml's bytes, and our dequantizers give ggml's floats, bit for bit. Ends with "N passed, M failed".
#include "golden_kquants.h"
#include "unit_test.h"

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

int main() {
    test_golden_kquants();
    test_a_flipped_bit_is_seen();
    test_q4_k_scale_packing();
    return unit_test_summary();
}
