// golden_kquants.h - the K-quant golden vectors (common/golden_kquants/, its README says what
// made them) against our Q4_K and Q6_K (ggml_kquants.h): bytes from our quantizers, floats from
// our dequantizers of ggml's blocks. Step 2's --golden and tests/test_kquants.cu use it.
//
// A case is a directory of x.f32 (whole super-blocks of 256), q4_k.bin, q6_k.bin, deq_q4_k.f32 and
// deq_q6_k.f32.
#pragma once

#include "ggml_kquants.h"
#include "golden.h"

#include <filesystem>
#include <string>
#include <vector>

// One format of one case: bytes that differ, floats that differ (SIZE_MAX: a file is missing or
// the wrong size).
struct KQuantDiffs {
    size_t bytes = 0, floats = 0;
    bool pass() const { return bytes == 0 && floats == 0; }
};

template <class Block>
KQuantDiffs kquant_golden_diffs(const std::string& dir, const char* format, const std::vector<float>& x,
                                void (*quantize)(const float*, Block*, int64_t), void (*dequantize)(const Block*, float*, int64_t)) {
    KQuantDiffs d;
    std::vector<uint8_t> want, want_deq;
    const int64_t n = (int64_t)x.size();
    if (!read_file(dir + "/" + format + ".bin", want) || !read_file(dir + "/deq_" + format + ".f32", want_deq) ||
        want.size() != (size_t)(n / QK_K) * sizeof(Block) || want_deq.size() != x.size() * sizeof(float)) {
        d.bytes = d.floats = SIZE_MAX;
        return d;
    }
    std::vector<Block> ours((size_t)(n / QK_K));
    quantize(x.data(), ours.data(), n);
    const uint8_t* got = reinterpret_cast<const uint8_t*>(ours.data());
    for (size_t i = 0; i < want.size(); ++i) d.bytes += got[i] != want[i];
    std::vector<float> deq((size_t)n);
    dequantize(reinterpret_cast<const Block*>(want.data()), deq.data(), n);  // ggml's blocks, our dequantizer
    d.floats = count_float_diffs(deq, bytes_as<float>(want_deq));
    return d;
}

// The K-quant case directories at root (root itself if it is one), in name order.
inline std::vector<std::string> kquant_case_dirs(const std::string& root) { return golden_case_dirs(root, "q4_k.bin"); }

// Every case at root: a line each, and whether all passed. A case whose x.f32 is missing or not
// whole super-blocks fails.
inline bool check_kquant_golden(const std::string& root, size_t* cases_checked = nullptr) {
    const std::vector<std::string> dirs = kquant_case_dirs(root);
    std::printf("  %-20s %10s %12s %10s %12s\n", "case", "q4_k bytes", "deq q4_k", "q6_k bytes", "deq q6_k");
    bool all = true;
    for (const auto& dir : dirs) {
        std::vector<uint8_t> raw;
        const std::string name = std::filesystem::path(dir).filename().string();
        if (!read_file(dir + "/x.f32", raw) || raw.empty() || raw.size() % (4 * QK_K) != 0) {
            std::printf("  %-20s x.f32 missing or not whole super-blocks of 256   FAIL\n", name.c_str());
            all = false;
            continue;
        }
        const std::vector<float> x = bytes_as<float>(raw);
        const KQuantDiffs q4 = kquant_golden_diffs<block_q4_K>(dir, "q4_k", x, quantize_row_q4_K_ref, dequantize_row_q4_K);
        const KQuantDiffs q6 = kquant_golden_diffs<block_q6_K>(dir, "q6_k", x, quantize_row_q6_K_ref, dequantize_row_q6_K);
        auto cell = [](size_t v) { return v == SIZE_MAX ? std::string("missing") : v == 0 ? std::string("same") : std::to_string(v); };
        const bool ok = q4.pass() && q6.pass();
        std::printf("  %-20s %10s %12s %10s %12s%s\n", name.c_str(), cell(q4.bytes).c_str(), cell(q4.floats).c_str(),
                    cell(q6.bytes).c_str(), cell(q6.floats).c_str(), ok ? "" : "   FAIL");
        all = all && ok;
    }
    std::printf("  %zu K-quant cases: %s\n", dirs.size(),
                dirs.empty() ? "none found (FAIL)" : all ? "every byte and value identical to ggml's (PASS)" : "MISMATCHES (FAIL)");
    if (cases_checked) *cases_checked = dirs.size();
    return all && !dirs.empty();
}
