// w4a8_problem.cuh - what step 4 prepares for one case: the inputs in every form a kernel can read,
// each made only when a selected kernel declares that it reads it, and the references that the
// kernels' outputs are checked against, computed when a check first asks for them.
//
// A kernel's table row declares a W4A8Reads: the form of its weights, the form of its activations
// (and so which quantizer runs before it, timed with it), and the formula it computes (and so its
// reference). Adding a kernel that reads a form already here is its file and its row; a new form
// is one enumerator, its bytes, and its preparation, all in this file, and its pointers in
// W4A8Inputs (w4a8_layout.cuh), not in W4A8Args: the kernels' argument is kept as it is, because
// a larger one changed rung 09's code (3% slower); a new kernel's launcher builds its own
// argument from the W4A8Inputs it is handed.
#pragma once

#include "../common/common.cuh"
#include "../common/driver.cuh"
#include "../common/ggml_quants.h"
#include "../common/ggml_quants_gpu.cuh"
#include "../common/ggml_quants_tensor.h"
#include "../common/q4_0_q8_1.h"
#include "../common/q4_k_layout.h"
#include "../common/q4_k_q8_1.h"
#include "../common/q6_k_layout.h"
#include "../common/q6_k_q8_1.h"
#include "../common/reference_gemm.h"
#include "../common/split_tail.cuh"
#include "w4a8_layout.cuh"
#include "q4_k_mma_layout.h"
#include "w4a8_mma_layout.h"

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

// The forms of the weights: ggml's Q4_0 blocks; the same bytes in two 16-byte aligned streams
// (q4_0_layout.cuh); Q4_0 in mma.sync fragment order (w4a8_mma_layout.h), also ordered in row
// blocks of 8 tiles (the same file; rung 16); Q4_K repacked
// (q4_k_layout.h) and in fragment order (q4_k_mma_layout.h); Q6_K repacked (q6_k_layout.h); and the baselines' FP32 matrix and int8 codes
// n - 8. (None: the quantizer timed alone reads no weights.)
enum class WeightForm { None, Q4_0Blocks, Q4_0Streams, Q4_0Mma, Q4_0MmaRowBlocks, Q4_KStreams, Q4_KMma, Q6_KStreams, F32, Int8Codes, kCount };
// The forms of the activations: Q8_1 made on the GPU by the pre-pass (ggml's blocks; the split
// layout: codes, then (d, s) pairs; the split layout's codes with d as FP32, or with d and s as
// FP32, one array each), or, for the baselines, the FP32 matrix itself and the Q8_1 codes as an int8 matrix.
enum class ActivationForm { Q8_1Blocks, Q8_1Split, Q8_1CodesFp32D, Q8_1CodesFp32DS, F32, Int8Codes, kCount };
// What an output is checked against: the compensated Q4_0 formula, the signed one (tensor-core
// kernels: the exact dequantized dot, no s), Q4_K's formula with its minimum, Q6_K's, the FP32 product
// of the unquantized matrices, the raw integer product Σ(n - 8)·q, and, for the quantizer timed
// alone, the CPU's Q8_1 bytes (its output is the split-layout activations themselves).
enum class Reference { Q4_0Compensated, Q4_0Signed, Q4_K, Q6_K, Unquantized, Integer, QuantizedActivations, kCount };

struct W4A8Reads {
    WeightForm weights = WeightForm::Q4_0Blocks;
    ActivationForm activations = ActivationForm::Q8_1Blocks;
    Reference reference = Reference::Q4_0Compensated;
};

inline bool made_by_prepass(ActivationForm a) {
    return a == ActivationForm::Q8_1Blocks || a == ActivationForm::Q8_1Split || a == ActivationForm::Q8_1CodesFp32D ||
           a == ActivationForm::Q8_1CodesFp32DS;
}

// The bytes one copy of a weight form takes on the device (and a launch reads).
inline double weight_form_bytes(WeightForm w, int64_t N, int64_t K) {
    const double nb = (double)N * K / QK4_0;
    switch (w) {
        case WeightForm::None: return 0;
        case WeightForm::Q4_0Blocks: return nb * sizeof(block_q4_0);
        case WeightForm::Q4_0Streams: return nb * (16 + sizeof(ggml_half));
        case WeightForm::Q4_0Mma: return nb * 16 + (double)ceil_div(N, 16) * 16 * (K / QK4_0) * 2;  // codes, half2 pairs padded to 16 rows
        case WeightForm::Q4_0MmaRowBlocks:  // the same pieces, padded to whole row blocks of 8 tiles
            return (double)ceil_div(N, 16 * kMmaRowBlockTiles) * 16 * kMmaRowBlockTiles * (K / QK4_0) * (16 + 2);
        case WeightForm::Q4_KStreams: return (double)N * K / QK_K * sizeof(block_q4_K);
        case WeightForm::Q4_KMma:  // codes, then per 16 rows padded: a byte pair per sub-block, 4 bytes per super-block
            return nb * 16 + (double)ceil_div(N, 16) * 16 * ((K / QK4_0) * 2 + (K / QK_K) * 4);
        case WeightForm::Q6_KStreams: return (double)N * K / QK_K * sizeof(block_q6_K);
        case WeightForm::F32: return 4.0 * N * K;
        default: return (double)N * K;  // Int8Codes
    }
}
// The device bytes of an activation form: the FP32 matrix and the int8 codes are inputs (rotated
// copies); the Q8_1 forms are written by the pre-pass (one buffer).
inline double activation_form_bytes(ActivationForm a, int64_t M, int64_t K) {
    const double nb = (double)M * K / QK8_1;
    switch (a) {
        case ActivationForm::Q8_1Blocks: return nb * sizeof(block_q8_1);
        case ActivationForm::Q8_1Split: return (double)M * K + nb * 4;
        case ActivationForm::Q8_1CodesFp32D: return (double)M * K + nb * 4;
        case ActivationForm::Q8_1CodesFp32DS: return (double)M * K + nb * 8;  // d and s
        case ActivationForm::F32: return 4.0 * M * K;
        default: return (double)M * K;  // Int8Codes
    }
}
inline bool quantized_weights(WeightForm w) { return w != WeightForm::None && w != WeightForm::F32 && w != WeightForm::Int8Codes; }

// The Q4_0 codes n - 8 and the Q8_1 codes q as int8 row-major matrices (cuBLAS int8's inputs).
inline std::vector<int8_t> q4_0_codes(const std::vector<block_q4_0>& blocks) {
    std::vector<int8_t> codes(blocks.size() * QK4_0);
    for (size_t b = 0; b < blocks.size(); ++b)
        for (int j = 0; j < QK4_0 / 2; ++j) {
            codes[b * QK4_0 + j] = (int8_t)((blocks[b].qs[j] & 0x0F) - 8);
            codes[b * QK4_0 + j + QK4_0 / 2] = (int8_t)((blocks[b].qs[j] >> 4) - 8);
        }
    return codes;
}
inline std::vector<int8_t> q8_1_codes(const std::vector<block_q8_1>& blocks) {
    std::vector<int8_t> codes(blocks.size() * QK8_1);
    for (size_t b = 0; b < blocks.size(); ++b) std::memcpy(&codes[b * QK8_1], blocks[b].qs, QK8_1);
    return codes;
}

// Split-layout activations (codes, then (d, s) pairs) back into ggml blocks, to compare bytes.
inline std::vector<block_q8_1> blocks_from_split(const DeviceBuffer<int8_t>& qs_d, const DeviceBuffer<uint32_t>& ds_d) {
    const std::vector<int8_t> qs = qs_d.to_host();
    const std::vector<uint32_t> ds = ds_d.to_host();
    std::vector<block_q8_1> blocks(ds.size());
    for (size_t b = 0; b < blocks.size(); ++b) {
        std::memcpy(&blocks[b].d, &ds[b], 4);
        std::memcpy(blocks[b].qs, &qs[b * QK8_1], QK8_1);
    }
    return blocks;
}

class W4A8Problem {
  public:
    // Prepares, for the case, every form that one of `reads` names: host quantization and repacks,
    // uploads in `rot.copies` copies (cold L2), the pre-pass buffers, each pre-pass form checked
    // byte for byte against the CPU's Q8_1 blocks once; and, when a row reads weights, the FP32
    // reference rows.
    W4A8Problem(const Gpu& gpu, const Options& opt, const GemmCase& c, const std::vector<W4A8Reads>& reads)
        : gpu_(gpu), M(c.M), N(c.N), K(c.K) {
        for (const W4A8Reads& r : reads) {
            weights_[(int)r.weights] = true;
            acts_[(int)r.activations] = true;
        }
        plan_memory(opt);
        A_.resize(M * K);
        fill_normal(A_, opt.seed, /*stream_id=*/1);
        if (reads_weights()) {  // the quantizer alone (--read-floor's problems) needs no weights and no product
            W_.resize(N * K);
            fill_normal(W_, opt.seed, /*stream_id=*/2);
        }
        // The CPU's Q8_1 blocks: what every quantized form is checked against, and what the
        // references of the quantized formulas read. A run of only cuBLAS SGEMM needs none.
        if (reads_quantized_activations()) Aq_ = quantize_rows_q8_1(A_, M, K, Q81Sum::DTimesSumQ);
        prepare_weights();
        prepare_activations();
        c_ = DeviceBuffer<float>(M * N);
        if (weights_[(int)WeightForm::Int8Codes]) c_i32_ = DeviceBuffer<int32_t>(M * N);
        if (reads_weights()) {
            truth_ = reference_gemm(A_.data(), W_.data(), M, N, K, reference_row_choice(M, N, K));
            std::printf("reference: float64 on %u CPU threads, %s\n", reference_threads(), describe_rows(truth_, M).c_str());
        }
        if (!opt.check_only) print_l2_rotation(rot_, gpu);
    }

    const L2Rotation& rotation() const { return rot_; }
    bool activations_match() const { return activations_match_; }

    // The kernels' arguments for timed run i (copy i % copies of every rotated input).
    W4A8Inputs args(int i) const {
        W4A8Inputs a;
        a.w_blocks = copy(w_blocks_, i), a.w_qs = copy(w_qs_, i), a.w_d = copy(w_d_, i);
        a.a = a_q8_.get(), a.a_qs = a_qs_.get(), a.a_ds = a_ds_.get(), a.a_d = a_d_.get(), a.a_s = a_s_.get();
        a.mma_words = copy(mma_words_, i), a.mma_scales = copy(mma_scales_, i);
        a.c = c_.get(), a.M = (int)M, a.N = (int)N, a.K = (int)K;
        a.q4k_headers = copy(q4k_headers_, i), a.q4k_codes = copy(q4k_codes_, i);
        a.a_f32 = copy(a_f32_, i), a.w_f32 = copy(w_f32_, i), a.a_i8 = copy(a_i8_, i), a.w_i8 = copy(w_i8_, i);
        a.c_i32 = c_i32_.get();
        a.q6k_low = copy(q6k_low_, i), a.q6k_high = copy(q6k_high_, i), a.q6k_scales = copy(q6k_scales_, i), a.q6k_d = copy(q6k_d_, i);
        a.q4k_mma_words = copy(q4k_mma_words_, i), a.q4k_mma_sub_scales = copy(q4k_mma_sub_scales_, i);
        a.q4k_mma_d_dmin = reinterpret_cast<const uint2*>(copy(q4k_mma_d_dmin_, i));
        a.q4k_mma_d_sc = reinterpret_cast<const float2*>(copy(q4k_mma_d_sc_, i));
        a.mma_block_words = copy(mma_block_words_, i), a.mma_block_scales = copy(mma_block_scales_, i);
        a.sms = gpu_.sms, a.split_partials = split_partials_.get();
        return a;
    }

    // The quantizer that runs before a kernel that reads `a` (timed with it), or none.
    std::function<void(int)> prepass(ActivationForm a) const {
        switch (a) {
            case ActivationForm::Q8_1Blocks:
                return [this](int i) { quantize_q8_1_gpu(copy(a_f32_, i), a_q8_.get(), M * K, Q81Sum::DTimesSumQ, gpu_.stream); };
            case ActivationForm::Q8_1Split:
                return [this](int i) { quantize_q8_1_split_gpu(copy(a_f32_, i), a_qs_.get(), a_ds_.get(), M * K, gpu_.stream); };
            case ActivationForm::Q8_1CodesFp32D:
                return [this](int i) { quantize_q8_1_split_gpu(copy(a_f32_, i), a_qs_.get(), nullptr, M * K, gpu_.stream, a_d_.get()); };
            case ActivationForm::Q8_1CodesFp32DS:
                return [this](int i) {
                    quantize_q8_1_split_gpu(copy(a_f32_, i), a_qs_.get(), nullptr, M * K, gpu_.stream, a_d_.get(), a_s_.get());
                };
            default: return {};
        }
    }
    // A checked run's pre-pass output, poisoned and written back late (KernelRun::late_inputs,
    // common/driver.cuh) from the copies of its checked bytes: a kernel launched as a programmatic
    // dependent (06 with PDL, 08-15) that reads the activations before it waits for the quantizer
    // reads NaN scales and fails its check.
    void deliver_activations_late(ActivationForm a) const {
        auto late = [](const auto& buffer, const DeviceBuffer<uint8_t>& copy) { return LateCopy{buffer.get(), copy.get(), copy.bytes()}; };
        switch (a) {
            case ActivationForm::Q8_1Blocks: return deliver_late({late(a_q8_, late_q8_)}, gpu_.stream);
            case ActivationForm::Q8_1Split: return deliver_late({late(a_qs_, late_qs_), late(a_ds_, late_ds_)}, gpu_.stream);
            case ActivationForm::Q8_1CodesFp32D: return deliver_late({late(a_qs_, late_qs_), late(a_d_, late_d_)}, gpu_.stream);
            case ActivationForm::Q8_1CodesFp32DS:
                return deliver_late({late(a_qs_, late_qs_), late(a_d_, late_d_), late(a_s_, late_s_)}, gpu_.stream);
            default: throw std::logic_error("deliver_activations_late: a form the pre-pass does not make");
        }
    }
    // The output a row with this reference writes, poisoned: C, the integer product's own C, or
    // the split-layout activations (the quantizer timed alone).
    void poison_output(Reference r, uint8_t pattern) const {
        if (r == Reference::Integer) {
            poison(c_i32_.get(), c_i32_.bytes(), pattern, gpu_.stream);
        } else if (r == Reference::QuantizedActivations) {
            poison(a_qs_.get(), a_qs_.bytes(), pattern, gpu_.stream);
            poison(a_ds_.get(), a_ds_.bytes(), pattern, gpu_.stream);
        } else {
            poison(c_.get(), c_.bytes(), pattern, gpu_.stream);
        }
    }
    // The checked rows of the output, against the reference. Integer products are exact, and so
    // are the quantizer's bytes; the rest agree with float64 to FP32 summation order
    // (kSumOrderTolerance, scaled by Σ|a·w|).
    CheckResult check(const std::string& name, Reference r) {
        if (r == Reference::QuantizedActivations) {
            const std::vector<block_q8_1> got = blocks_from_split(a_qs_, a_ds_);
            return check_bytes(name.c_str(), got.data(), Aq_.data(), Aq_.size() * sizeof(block_q8_1), sizeof(block_q8_1));
        }
        if (r == Reference::Integer) {
            const std::vector<int32_t> rows = gather_rows(c_i32_.to_host(), N, truth_.rows);
            const std::vector<float> got(rows.begin(), rows.end());
            return check_close(name.c_str(), got.data(), reference(r).data(), got.size(), Tolerance{0.0, 0.0}, N);
        }
        const std::vector<float> got = output_rows();
        return check_close(name.c_str(), got.data(), reference(r).data(), got.size(),
                           Tolerance{0.0, kSumOrderTolerance, truth_.abs_sum.data()}, N);
    }
    // The quantization error of an output: its NMSE against the unquantized FP32 product.
    double quantization_nmse() const { return nmse(output_rows(), truth_.c); }

    // The bytes a kernel with these reads moves: its weights, its activations (FP32 when the
    // pre-pass quantizes them, which its time includes) and C in FP32 (int32 for the integer product).
    Workload workload(const W4A8Reads& r) const {
        if (r.reference == Reference::QuantizedActivations) return {0.0, 4.0 * M * K + activation_form_bytes(r.activations, M, K)};
        const double acts = made_by_prepass(r.activations) ? 4.0 * M * K : activation_form_bytes(r.activations, M, K);
        return {2.0 * M * N * K, weight_form_bytes(r.weights, N, K) + acts + 4.0 * M * N};
    }

    const int64_t M, N, K;

  private:
    template <class T>
    const T* copy(const DeviceBuffer<T>& b, int i) const {
        return rotated_copy(b, rot_.copies, i);
    }
    template <class T>
    DeviceBuffer<T> upload_rotated(const std::vector<T>& host) const {
        return ::upload_rotated(host, rot_.copies);
    }
    bool has(WeightForm w) const { return weights_[(int)w]; }
    bool has(ActivationForm a) const { return acts_[(int)a]; }
    // Rung 16's schedule splits a partial last wave's tiles in K (common/split_tail.cuh): the
    // workspace where the pieces leave their partial sums, as planned and as allocated.
    size_t split_partials_floats() const {
        return has(WeightForm::Q4_0MmaRowBlocks) ? split_tail_floats(gpu_.sms, kRowBlockTileValues) : 0;
    }
    bool reads_weights() const {
        for (int w = 0; w < (int)WeightForm::kCount; ++w)
            if (weights_[w] && w != (int)WeightForm::None) return true;
        return false;
    }
    // Whether a selected row reads the activations quantized (a pre-pass form or the int8 codes).
    bool reads_quantized_activations() const {
        for (int a = 0; a < (int)ActivationForm::kCount; ++a)
            if (acts_[a] && a != (int)ActivationForm::F32) return true;
        return false;
    }

    // Cold L2, sized by what a W4A8 launch reads: its quantized weights (the smallest form
    // selected, larger ones are colder; the smallest of any form when only baselines run) and
    // the FP32 activations its pre-pass quantizes. The inputs are rotated; the pre-pass's outputs
    // and C are not.
    void plan_memory(const Options& opt) {
        double smallest = INFINITY, smallest_any = INFINITY, rotated = 4.0 * M * K, single = 4.0 * M * N;
        for (int w = 1; w < (int)WeightForm::kCount; ++w)
            if (weights_[w]) {
                const double bytes = weight_form_bytes((WeightForm)w, N, K);
                rotated += bytes;
                smallest_any = std::min(smallest_any, bytes);
                if (quantized_weights((WeightForm)w)) smallest = std::min(smallest, bytes);
            }
        if (!std::isfinite(smallest)) smallest = smallest_any;
        for (int a = 0; a < (int)ActivationForm::kCount; ++a)
            if (acts_[a] && a != (int)ActivationForm::F32)
                (made_by_prepass((ActivationForm)a) ? single : rotated) += activation_form_bytes((ActivationForm)a, M, K);
        if (has(WeightForm::Int8Codes)) single += 4.0 * M * N;
        single += 4.0 * split_partials_floats();
        const double read = (std::isfinite(smallest) ? smallest : 0.0) + 4.0 * M * K;
        rot_ = plan_l2_rotation(gpu_, (size_t)read, !opt.check_only);
        require_device_memory(gpu_, (size_t)(rot_.copies * rotated + single));
    }

    void prepare_weights() {
        const bool q4_0 = has(WeightForm::Q4_0Blocks) || has(WeightForm::Q4_0Streams) || has(WeightForm::Q4_0Mma) ||
                          has(WeightForm::Q4_0MmaRowBlocks) || has(WeightForm::Int8Codes);
        if (q4_0) Wq_ = quantize_rows_q4_0(W_, N, K);
        if (has(WeightForm::Q4_0Blocks)) w_blocks_ = upload_rotated(Wq_);
        if (has(WeightForm::Q4_0Streams)) {
            const Q4_0Repacked r = repack_q4_0(Wq_);
            w_qs_ = upload_rotated(r.qs);
            w_d_ = upload_rotated(r.d);
        }
        // Fragment order, by tile or in row blocks: one repack serves both (the kernels that read
        // them SKIP other K).
        if ((has(WeightForm::Q4_0Mma) || has(WeightForm::Q4_0MmaRowBlocks)) && K % kMmaChunk8 == 0) {
            const Q4_0MmaLayout m = repack_q4_0_for_mma(Wq_, N, K);
            if (has(WeightForm::Q4_0Mma)) {
                mma_words_ = upload_rotated(m.words);
                mma_scales_ = upload_rotated(m.scales);
            }
            if (has(WeightForm::Q4_0MmaRowBlocks)) {
                const Q4_0MmaLayout rows = order_q4_0_mma_by_row_block(m);
                mma_block_words_ = upload_rotated(rows.words);
                mma_block_scales_ = upload_rotated(rows.scales);
            }
        }
        if (const size_t floats = split_partials_floats()) split_partials_ = DeviceBuffer<float>(floats);
        const bool q4_k = has(WeightForm::Q4_KStreams) || has(WeightForm::Q4_KMma);
        if (q4_k && K % QK_K == 0) Wk_ = quantize_rows_q4_k(W_, N, K);  // likewise
        if (has(WeightForm::Q4_KStreams) && K % QK_K == 0) {
            const Q4_KRepacked r = repack_q4_k(Wk_);
            q4k_headers_ = upload_rotated(r.headers);
            q4k_codes_ = upload_rotated(r.codes);
        }
        if (has(WeightForm::Q4_KMma) && K % QK_K == 0) {
            const Q4_KMmaLayout m = repack_q4_k_for_mma(Wk_, N, K);
            q4k_mma_words_ = upload_rotated(m.words);
            q4k_mma_sub_scales_ = upload_rotated(m.sub_scales);
            q4k_mma_d_dmin_ = upload_rotated(m.d_dmin);
            q4k_mma_d_sc_ = upload_rotated(m.d_sc);
        }
        if (has(WeightForm::Q6_KStreams) && K % QK_K == 0) {  // likewise
            W6_ = quantize_rows_q6_k(W_, N, K);
            const Q6_KRepacked r = repack_q6_k(W6_);
            q6k_low_ = upload_rotated(r.low);
            q6k_high_ = upload_rotated(r.high);
            q6k_scales_ = upload_rotated(r.scales);
            q6k_d_ = upload_rotated(r.d);
        }
        if (has(WeightForm::F32)) w_f32_ = upload_rotated(W_);
        if (has(WeightForm::Int8Codes)) w_i8_ = upload_rotated(q4_0_codes(Wq_));
    }

    // The inputs of the pre-pass and the baselines, the pre-pass's buffers, and one checked run of
    // each pre-pass form: its bytes must be the CPU's, or the kernels would be checked against
    // other data. The forms with FP32 scales are written over poison, so that a code one failed to
    // write cannot pass as another form's.
    void prepare_activations() {
        a_f32_ = upload_rotated(A_);
        const int64_t nb = M * K / QK8_1;
        if (has(ActivationForm::Q8_1Blocks)) a_q8_ = DeviceBuffer<block_q8_1>(nb);
        const bool fp32_scales = has(ActivationForm::Q8_1CodesFp32D) || has(ActivationForm::Q8_1CodesFp32DS);
        if (has(ActivationForm::Q8_1Split) || fp32_scales) a_qs_ = DeviceBuffer<int8_t>(M * K);
        if (has(ActivationForm::Q8_1Split)) a_ds_ = DeviceBuffer<uint32_t>(nb);
        if (fp32_scales) a_d_ = DeviceBuffer<float>(nb);
        if (has(ActivationForm::Q8_1CodesFp32DS)) a_s_ = DeviceBuffer<float>(nb);
        std::vector<int8_t> codes;
        if (has(ActivationForm::Int8Codes) || fp32_scales) codes = q8_1_codes(Aq_);
        if (has(ActivationForm::Int8Codes)) a_i8_ = upload_rotated(codes);

        const size_t bytes = Aq_.size() * sizeof(block_q8_1);
        std::string forms;  // the forms checked, for the line below
        auto checked = [&](const char* form, bool same) {
            activations_match_ = activations_match_ && same;
            forms += forms.empty() ? form : std::string(", ") + form;
        };
        if (has(ActivationForm::Q8_1Blocks)) {
            prepass(ActivationForm::Q8_1Blocks)(0);
            CUDA_CHECK_LAST();
            const std::vector<block_q8_1> got = a_q8_.to_host();
            checked("blocks", check_bytes("activations (blocks)", got.data(), Aq_.data(), bytes, sizeof(block_q8_1)).pass);
        }
        if (has(ActivationForm::Q8_1Split)) {
            prepass(ActivationForm::Q8_1Split)(0);
            CUDA_CHECK_LAST();
            const std::vector<block_q8_1> got = blocks_from_split(a_qs_, a_ds_);
            checked("split layout", check_bytes("activations (split)", got.data(), Aq_.data(), bytes, sizeof(block_q8_1)).pass);
        }
        // The forms with FP32 scales, each written over poison: its codes, and each FP32 array it
        // writes holding the fp16 value of the CPU's blocks that widen() picks.
        auto same_fp32 = [&](const char* what, const DeviceBuffer<float>& got, float (*widen)(const block_q8_1&)) {
            std::vector<float> expected(Aq_.size());
            for (size_t b = 0; b < Aq_.size(); ++b) expected[b] = widen(Aq_[b]);
            const std::vector<float> on_gpu = got.to_host();
            return check_bytes(what, on_gpu.data(), expected.data(), expected.size() * sizeof(float), sizeof(float)).pass;
        };
        auto run_over_poison = [&](ActivationForm form) {
            for (const DeviceBuffer<float>* b : {&a_d_, &a_s_})
                if (b->bytes()) poison(b->get(), b->bytes(), 0xFF, gpu_.stream);
            poison(a_qs_.get(), a_qs_.bytes(), 0xFF, gpu_.stream);
            prepass(form)(0);
            CUDA_CHECK_LAST();
            const std::vector<int8_t> codes_gpu = a_qs_.to_host();
            return check_bytes("activations (codes beside FP32 scales)", codes_gpu.data(), codes.data(), codes.size(), QK8_1).pass;
        };
        auto d_of = [](const block_q8_1& b) { return fp16_to_fp32(b.d); };
        auto s_of = [](const block_q8_1& b) { return fp16_to_fp32(b.s); };
        if (has(ActivationForm::Q8_1CodesFp32D)) {
            const bool codes_ok = run_over_poison(ActivationForm::Q8_1CodesFp32D);
            checked("codes with FP32 d", codes_ok && same_fp32("activations (FP32 d)", a_d_, d_of));
        }
        if (has(ActivationForm::Q8_1CodesFp32DS)) {
            const bool codes_ok = run_over_poison(ActivationForm::Q8_1CodesFp32DS);
            const bool d_ok = same_fp32("activations (FP32 d)", a_d_, d_of);
            checked("codes with FP32 d and s", codes_ok && d_ok && same_fp32("activations (FP32 s)", a_s_, s_of));
        }
        if (!forms.empty())
            std::printf("activations quantized on the GPU (Q8_1, s = d*sum(q)), %s: %s the CPU's %zu bytes\n", forms.c_str(),
                        activations_match_ ? "identical to" : "DIFFERENT FROM", bytes);
        // What each buffer now holds, kept for the checked runs' late delivery (deliver_activations_late).
        auto keep = [](const auto& buffer) {
            DeviceBuffer<uint8_t> copy(buffer.bytes());
            if (copy.bytes()) CUDA_CHECK(cudaMemcpy(copy.get(), buffer.get(), copy.bytes(), cudaMemcpyDeviceToDevice));
            return copy;
        };
        late_q8_ = keep(a_q8_), late_qs_ = keep(a_qs_), late_ds_ = keep(a_ds_), late_d_ = keep(a_d_), late_s_ = keep(a_s_);
    }

    std::vector<float> output_rows() const { return gather_rows(c_.to_host(), N, truth_.rows); }

    // The reference of the checked rows, computed on the CPU from the same quantized blocks the
    // GPU reads, the first time a check asks for it.
    const std::vector<double>& reference(Reference r) {
        if (r == Reference::Unquantized) return truth_.c;
        std::vector<double>& ref = refs_[(int)r];
        if (!ref.empty()) return ref;
        ref.resize(truth_.rows.size() * N);
        const int64_t nb = K / QK4_0;
        parallel_for((int64_t)ref.size(), [&](int64_t idx) {
            const int64_t n = idx % N;
            const block_q8_1* a = &Aq_[truth_.rows[idx / N] * nb];
            switch (r) {
                case Reference::Q4_0Compensated: ref[idx] = w4a8_dot_f64(&Wq_[n * nb], a, nb, W4A8Form::Compensated); break;
                case Reference::Q4_0Signed: ref[idx] = w4a8_dot_f64(&Wq_[n * nb], a, nb, W4A8Form::Signed); break;
                case Reference::Q4_K: ref[idx] = q4_k_q8_1_dot_f64(&Wk_[n * (K / QK_K)], a, K / QK_K); break;
                case Reference::Q6_K: ref[idx] = q6_k_q8_1_dot_f64(&W6_[n * (K / QK_K)], a, K / QK_K); break;
                default: {  // Integer
                    int64_t sum = 0;
                    for (int64_t b = 0; b < nb; ++b) sum += block_signed_sumi(Wq_[n * nb + b], a[b].qs);
                    ref[idx] = (double)sum;
                }
            }
        });
        return ref;
    }

    const Gpu& gpu_;
    std::array<bool, (size_t)WeightForm::kCount> weights_{};
    std::array<bool, (size_t)ActivationForm::kCount> acts_{};
    L2Rotation rot_;
    bool activations_match_ = true;

    std::vector<float> A_, W_;         // unquantized
    std::vector<block_q8_1> Aq_;       // the activations as the pre-pass must write them
    std::vector<block_q4_0> Wq_;       // Q4_0 weights (when a Q4_0 form is read)
    std::vector<block_q4_K> Wk_;       // Q4_K weights (when Q4_K is read)
    std::vector<block_q6_K> W6_;       // Q6_K weights (when Q6_K is read)
    ReferenceRows truth_;              // the unquantized product on the checked rows
    std::array<std::vector<double>, (size_t)Reference::kCount> refs_;

    DeviceBuffer<float> a_f32_, w_f32_;
    DeviceBuffer<int8_t> a_i8_, w_i8_;
    DeviceBuffer<block_q4_0> w_blocks_;
    DeviceBuffer<uint8_t> w_qs_, q4k_headers_, q4k_codes_, q6k_low_, q6k_high_;
    DeviceBuffer<int8_t> q6k_scales_;
    DeviceBuffer<ggml_half> w_d_, q6k_d_;
    DeviceBuffer<uint32_t> mma_words_, mma_scales_, mma_block_words_, mma_block_scales_, q4k_mma_words_, q4k_mma_sub_scales_,
        q4k_mma_d_dmin_;
    DeviceBuffer<float> q4k_mma_d_sc_;
    DeviceBuffer<block_q8_1> a_q8_;
    DeviceBuffer<int8_t> a_qs_;
    DeviceBuffer<uint32_t> a_ds_;
    DeviceBuffer<float> a_d_;
    DeviceBuffer<float> a_s_;
    DeviceBuffer<uint8_t> late_q8_, late_qs_, late_ds_, late_d_, late_s_;  // their checked bytes (deliver_activations_late)
    DeviceBuffer<float> c_;
    DeviceBuffer<int32_t> c_i32_;
    DeviceBuffer<float> split_partials_;
};
