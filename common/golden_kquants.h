// golden_kquants.h - the K-quant golden vectors (common/golden_kquants/, its README says what
// made them) against our Q4_K, Q6_K and Q8_K (ggml_kquants.h): bytes from our quantizers, floats
// from our dequantizers of ggml's blocks, and ggml's CPU dot products of its own Q4_K, Q6_K and
// Q8_K blocks against ours of the same blocks (kquants_q8_k.h), bit for bit. Step 2's --golden, step 5 and
// tests/test_kquants.cu use it.
//
// A case is a directory of x.f32 (whole super-blocks of 256), q4_k.bin, q6_k.bin, deq_q4_k.f32,
// deq_q6_k.f32, q8_k.bin (x quantized to Q8_K), dot_q4_k_q8_k.f32 and dot_q6_k_q8_k.f32 (the dot
// products of q4_k.bin and of q6_k.bin with q8_k.bin per super-block, then over the whole row).
#pragma once

#include "ggml_kquants.h"
#include "golden.h"
#include "kquants_q8_k.h"

#include <filesystem>
#include <string>
#include <vector>

// One format of one case: bytes that differ, floats that differ (SIZE_MAX: a file is missing or
// the wrong size).
struct KQuantDiffs {
    size_t bytes = 0, floats = 0;
    bool pass() const { return bytes == 0 && floats == 0; }
};

// The bytes of our quantizer's blocks for x that differ from ggml's blocks `want` (the same size).
template <class Block>
size_t quantized_byte_diffs(const std::vector<float>& x, void (*quantize)(const float*, Block*, int64_t),
                            const std::vector<uint8_t>& want) {
    std::vector<Block> ours(x.size() / QK_K);
    quantize(x.data(), ours.data(), (int64_t)x.size());
    const uint8_t* got = reinterpret_cast<const uint8_t*>(ours.data());
    size_t diffs = 0;
    for (size_t i = 0; i < want.size(); ++i) diffs += got[i] != want[i];
    return diffs;
}

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
    d.bytes = quantized_byte_diffs(x, quantize, want);
    std::vector<float> deq((size_t)n);
    dequantize(reinterpret_cast<const Block*>(want.data()), deq.data(), n);  // ggml's blocks, our dequantizer
    d.floats = count_float_diffs(deq, bytes_as<float>(want_deq));
    return d;
}

// ggml's dot products of one weight format with the case's Q8_K blocks, against ours of the same
// blocks: per super-block, then over the whole row (floats that differ; SIZE_MAX: a file missing).
template <class Block>
size_t q8_k_dot_diffs(const std::string& dir, const char* format, const std::vector<uint8_t>& q8, int64_t n,
                      float (*dot)(const Block*, const block_q8_K*, int64_t)) {
    const int64_t blocks = n / QK_K;
    std::vector<uint8_t> weights, want;
    if (!read_file(dir + "/" + format + ".bin", weights) || !read_file(dir + "/dot_" + format + "_q8_k.f32", want) ||
        weights.size() != (size_t)blocks * sizeof(Block) || want.size() != (size_t)(blocks + 1) * sizeof(float))
        return SIZE_MAX;
    const auto* w = reinterpret_cast<const Block*>(weights.data());
    const auto* a = reinterpret_cast<const block_q8_K*>(q8.data());
    std::vector<float> dots;
    for (int64_t b = 0; b < blocks; ++b) dots.push_back(dot(w + b, a + b, QK_K));
    dots.push_back(dot(w, a, n));
    return count_float_diffs(dots, bytes_as<float>(want));
}

// Q8_K of one case: bytes of our quantizer against ggml's (in .bytes), and our CPU dot products of
// ggml's own Q4_K and Q6_K blocks with its Q8_K blocks against the ones ggml computed (in .floats).
inline KQuantDiffs q8_k_golden_diffs(const std::string& dir, const std::vector<float>& x) {
    KQuantDiffs d;
    const int64_t n = (int64_t)x.size();
    std::vector<uint8_t> want;
    if (!read_file(dir + "/q8_k.bin", want) || want.size() != (size_t)(n / QK_K) * sizeof(block_q8_K)) {
        d.bytes = d.floats = SIZE_MAX;
        return d;
    }
    d.bytes = quantized_byte_diffs(x, quantize_row_q8_K_ref, want);
    const size_t q4 = q8_k_dot_diffs<block_q4_K>(dir, "q4_k", want, n, vec_dot_q4_K_q8_K);
    const size_t q6 = q8_k_dot_diffs<block_q6_K>(dir, "q6_k", want, n, vec_dot_q6_K_q8_K);
    d.floats = q4 == SIZE_MAX || q6 == SIZE_MAX ? SIZE_MAX : q4 + q6;
    return d;
}

// The K-quant case directories at root (root itself if it is one), in name order.
inline std::vector<std::string> kquant_case_dirs(const std::string& root) { return golden_case_dirs(root, "q4_k.bin"); }

// Every case at root: a line each, and whether all passed. A case whose x.f32 is missing or not
// whole super-blocks fails.
inline bool check_kquant_golden(const std::string& root, size_t* cases_checked = nullptr) {
    const std::vector<std::string> dirs = kquant_case_dirs(root);
    std::printf("  %-20s %10s %12s %10s %12s %10s %14s\n", "case", "q4_k bytes", "deq q4_k", "q6_k bytes", "deq q6_k", "q8_k bytes",
                "dots ·q8_k");
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
        const KQuantDiffs q8 = q8_k_golden_diffs(dir, x);
        auto cell = [](size_t v) { return v == SIZE_MAX ? std::string("missing") : v == 0 ? std::string("same") : std::to_string(v); };
        const bool ok = q4.pass() && q6.pass() && q8.pass();
        std::printf("  %-20s %10s %12s %10s %12s %10s %14s%s\n", name.c_str(), cell(q4.bytes).c_str(), cell(q4.floats).c_str(),
                    cell(q6.bytes).c_str(), cell(q6.floats).c_str(), cell(q8.bytes).c_str(), cell(q8.floats).c_str(),
                    ok ? "" : "   FAIL");
        all = all && ok;
    }
    std::printf("  %zu K-quant cases: %s\n", dirs.size(),
                dirs.empty() ? "none found (FAIL)" : all ? "every byte, value and dot product identical to ggml's (PASS)" : "MISMATCHES (FAIL)");
    if (cases_checked) *cases_checked = dirs.size();
    return all && !dirs.empty();
}
