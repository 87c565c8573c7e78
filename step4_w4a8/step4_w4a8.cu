// Step 4: W4A8, Q4_0 weights x Q8_1 activations with integer arithmetic.
//
// What it teaches: llama.cpp multiplies 4-bit weights by 8-bit activations without ever
// dequantizing them. Per 32-value block the product is d_w·(d_a·sumi - 8·s): an integer dot
// product of unsigned nibbles with int8 activations (sumi), and one correction that uses the s
// stored in each Q8_1 block (common/q4_0_q8_1.h; README.md derives it). The program
//   1. demonstrates the formula on the CPU: one block, then a whole product, against the FP32
//      truth, with and without the correction, and with both conventions for s;
//   2. runs a ladder of kernels (kernels/01..08) on the GPU: naive, shared-memory tiled, DP4A,
//      16-byte loads, tiled DP4A, and a GEMV for decoding (then overlapped with the quantizer
//      through PDL), each timed as llama.cpp times its own: activation quantization (step 2's
//      GPU quantizer) included;
//   3. checks each kernel against a CPU computation of the same formula on the same quantized
//      blocks (the kernel error, rounding level) and reports its quantization error against the
//      FP32 product of the unquantized matrices, beside cuBLAS SGEMM (FP32, unquantized) and
//      cuBLAS int8 GEMM (the raw integer product, without any scale) measured in the same run.
//
// Build and run:   make step4          (or: build/step4_w4a8 [--m M --n N --k K] [--kernel NAME])
// Look for:        what the correction is worth in part 1; "x naive" down the ladder at M=512;
//                  the GEMV's GB/s against the HBM roofline at M=1 and M=4.
#include "../common/common.cuh"
#include "../common/cublas_baseline.cuh"
#include "../common/kernel_spec.h"
#include "../common/ggml_quants.h"
#include "../common/ggml_quants_gpu.cuh"
#include "../common/llama_times.h"
#include "../common/q4_0_q8_1.h"
#include "../common/reference_gemm.h"
#include "canaries.cuh"
#include "compensation_demo.h"
#include "exercises/ex1_gemv_compensation.cuh"
#include "exercises/ex2_warp_per_output.cuh"
#include "exercises/solutions/ex1_gemv_compensation.cuh"
#include "exercises/solutions/ex2_warp_per_output.cuh"
#include "kernels/01_naive.cuh"
#include "kernels/02_smem_tiled.cuh"
#include "kernels/03_dp4a.cuh"
#include "kernels/04_dp4a_loads16.cuh"
#include "kernels/05_dp4a_tiled.cuh"
#include "kernels/06_gemv_dp4a.cuh"
#include "kernels/07_gemv_pdl.cuh"
#include "kernels/08_gemv_resident.cuh"
#include "kernels/09_mma_int8.cuh"
#include "kernels/10_gemv_mma.cuh"
#include "kernels/11_mma_int8_tma.cuh"
#include "w4a8_layout.cuh"
#include "w4a8_mma_layout.h"

// ---------------------------------------------------------------------------------------------
// Part 1: the compensation formula, demonstrated (the arithmetic: compensation_demo.h)
// ---------------------------------------------------------------------------------------------

void demonstrate_compensation(uint64_t seed) {
    // One block of N(0,1) weights and activations.
    std::vector<float> w(QK4_0), a(QK4_0);
    fill_normal(w, seed, 41);
    fill_normal(a, seed, 42);
    block_q4_0 wq;
    block_q8_1 a_dsumq, a_sumx;
    quantize_row_q4_0_ref(w.data(), &wq, QK4_0);
    quantize_row_q8_1_ref(a.data(), &a_dsumq, QK8_1, Q81Sum::DTimesSumQ);
    quantize_row_q8_1_ref(a.data(), &a_sumx, QK8_1, Q81Sum::SumX);
    const DotVariants one = dot_variants(w.data(), a.data(), &wq, &a_dsumq, &a_sumx, QK4_0);
    int sum_q = 0;
    for (int j = 0; j < QK8_1; ++j) sum_q += a_dsumq.qs[j];
    std::printf("  one block: d_w = %.6f, d_a = %.6f, sumi = %d, sum(q) = %d, s = d*sum(q) = %.6f, s = sum(x) = %.6f\n",
                fp16_to_fp32(wq.d), fp16_to_fp32(a_dsumq.d), block_sumi(wq, a_dsumq), sum_q, fp16_to_fp32(a_dsumq.s),
                fp16_to_fp32(a_sumx.s));
    std::printf("    %-50s %12.6f\n", "FP32 truth, sum w*a (unquantized)", one.truth);
    std::printf("    %-50s %12.6f\n", "dequantized, sum deq(w)*deq(a)", one.dequantized);
    std::printf("    %-50s %12.6f\n", "unsigned nibbles, no correction: d_w*d_a*sumi", one.forgot);
    std::printf("    %-50s %12.6f\n", "compensated, s = d*sum(q): d_w*(d_a*sumi - 8s)", one.comp_dsumq);
    std::printf("    %-50s %12.6f\n", "compensated, s = sum(x) (llama.cpp's CUDA)", one.comp_sumx);

    // A whole product: every output's error against the FP32 truth, as NMSE.
    constexpr int64_t M = 8, N = 256, K = 4096;
    const ProductErrors e = compensation_product_errors(seed, M, N, K);
    std::printf("  a whole product, M=%lld N=%lld K=%lld, N(0,1) data: NMSE against the FP32 truth\n", (long long)M,
                (long long)N, (long long)K);
    const char* names[ProductErrors::kVariants] = {"dequantized (the quantization error itself)", "unsigned nibbles, no correction",
                                                   "compensated, s = d*sum(q)", "compensated, s = sum(x)"};
    for (int i = 0; i < ProductErrors::kVariants; ++i) std::printf("    %-50s %12.3e\n", names[i], e.nmse[i]);
    std::printf("  (s = d*sum(q) gives the dequantized result up to the fp16 rounding of s: the largest gap is %.1e of\n"
                "   the outputs' rms; s = sum(x) weights each activation's rounding error by n instead of n - 8: README.md)\n",
                e.max_gap_over_rms);
}

// ---------------------------------------------------------------------------------------------
// Part 2: the kernels
// ---------------------------------------------------------------------------------------------

const std::vector<GemmCase> kLessonCases = {
    {"decode, 1 token, LLaMA FFN N=4096 K=14336", 1, 4096, 14336, {"gemv_resident"}},
    {"decode, 4 tokens, N=4096 K=14336", 4, 4096, 14336, {"gemv_mma"}},
    {"prompt of 512 tokens, N=K=4096", 512, 4096, 4096, {"mma_int8"}},
};

using W4A8Launcher = void (*)(const W4A8Args&, cudaStream_t);

// Which layout of the quantized activations a kernel reads, and so which quantizer runs first:
// ggml's blocks, the split layout (codes, (d, s) pairs), or the split layout's codes with d as FP32
// (no pairs).
enum class ActivationLayout { Blocks, Split, CodesFp32D };

// What a kernel reads besides the Q4_0 weights, and the formula it computes (so its reference).
struct W4A8Reads {
    ActivationLayout activations = ActivationLayout::Blocks;
    W4A8Form form = W4A8Form::Compensated;
};
using Step4Kernel = KernelSpec<W4A8Launcher, W4A8Reads>;

constexpr W4A8Reads kSplit{ActivationLayout::Split}, kSplitSigned{ActivationLayout::Split, W4A8Form::Signed},
    kCodesSigned{ActivationLayout::CodesFp32D, W4A8Form::Signed};

const std::vector<Step4Kernel> kKernels = {
    {{"naive", "01 thread per output, scalar integer dot products"}, launch_w4a8_naive, w4a8_naive_why_not, {}, {}, Pipe::Dp4a},
    {{"smem_tiled", "02 16x16 outputs share blocks staged in shared memory"}, launch_w4a8_smem_tiled, w4a8_smem_tiled_why_not, {}, {},
     Pipe::Dp4a},
    {{"dp4a", "03 thread per output, DP4A on unpacked nibbles"}, launch_w4a8_dp4a, w4a8_dp4a_why_not, {}, {61}, Pipe::Dp4a},
    {{"dp4a_loads16", "04 as 03, weights repacked: one 16-byte load per block"}, launch_w4a8_dp4a_loads16, w4a8_dp4a_loads16_why_not,
     {}, {61}, Pipe::Dp4a},
    {{"dp4a_tiled", "05 128x128 tile, 8x8 outputs per thread, DP4A outer products"}, launch_w4a8_dp4a_tiled, w4a8_dp4a_tiled_why_not,
     {}, {61}, Pipe::Dp4a},
    {{"gemv_dp4a", "06 M<=8: warp per 2 weight rows, 16-byte streaming loads"}, launch_w4a8_gemv_dp4a, w4a8_gemv_why_not, kSplit,
     {61}, Pipe::Dp4a},
    {{"gemv_pdl", "07 06 launched with PDL: starts while the quantizer runs"}, launch_w4a8_gemv_pdl, w4a8_gemv_why_not, kSplit, {90},
     Pipe::Dp4a},
    {{"gemv_resident", "08 M<=8: activations in registers, a CTA spans K, rows stream past; PDL"}, launch_w4a8_gemv_resident,
     w4a8_gemv_resident_why_not, kSplit, {61}, Pipe::Dp4a},
    {{"mma_int8", "09 int8 tensor cores: mma.sync m16n8k32, a block per mma, cp.async pipeline"}, launch_w4a8_mma_int8,
     w4a8_mma_int8_why_not, kCodesSigned, {80}, Pipe::Int8Tensor},
    {{"gemv_mma", "10 M<=8: tensor cores for decoding, weights straight into mma fragments, tokens as columns; PDL"},
     launch_w4a8_gemv_mma, w4a8_gemv_mma_why_not, kSplitSigned, {80}, Pipe::Int8Tensor},
    {{"mma_int8_tma", "11 09's math on a 64x128 tile (M > 128), stages copied by the TMA: one thread asks, mbarriers count"},
     launch_w4a8_mma_int8_tma, w4a8_mma_int8_tma_why_not, kCodesSigned, {90}, Pipe::Int8Tensor},
    {{"canary_forget_minus_8s", "never subtracts 8*s: weights read as n, not n - 8", KernelRole::Canary},
     launch_w4a8_canary<W4A8Canary::ForgetMinus8s>, w4a8_naive_why_not, {}, {}, Pipe::Dp4a},
    {{"canary_skip_last_block", "stops one K-block early", KernelRole::Canary}, launch_w4a8_canary<W4A8Canary::SkipLastBlock>,
     w4a8_naive_why_not, {}, {}, Pipe::Dp4a},
    {{"ex1", "exercise 1: the compensation formula in a DP4A GEMV", KernelRole::Exercise, "gemv_dp4a",
      "step4_w4a8/exercises/ex1_gemv_compensation.cuh", kEx1Written},
     launch_w4a8_ex1, w4a8_ex1_why_not, {}, {61}, Pipe::Dp4a},
    {{"ex1_solution", "solution of exercise 1", KernelRole::Solution, "gemv_dp4a"}, launch_w4a8_ex1_solution, w4a8_ex1_why_not, {},
     {61}, Pipe::Dp4a},
    {{"ex2", "exercise 2: a warp per output, lanes over K-blocks", KernelRole::Exercise, "dp4a",
      "step4_w4a8/exercises/ex2_warp_per_output.cuh", kEx2Written},
     launch_w4a8_ex2, w4a8_naive_why_not, {}, {}, Pipe::Dp4a},
    {{"ex2_solution", "solution of exercise 2", KernelRole::Solution, "dp4a"}, launch_w4a8_ex2_solution, w4a8_naive_why_not, {}, {},
     Pipe::Dp4a},
};

const KernelInfo kQuantizerAlone{"quantize_a_alone", "the pre-pass by itself: A (FP32) -> Q8_1, split layout"};
const KernelInfo kCublasSgemm{"cublas_sgemm", "cuBLAS SGEMM on the unquantized FP32 matrices: the baseline without quantization"};
const KernelInfo kCublasInt8{"cublas_int8", "cuBLAS int8 GEMM (s8 x s8 -> s32) on the same codes, no scales: tensor cores"};

// Kernel error: |got - ref| / sum_k |A[m][k] W[n][k]| (the unquantized magnitudes, see
// reference_gemm.h), against the same formula on the same blocks in float64. The kernels add
// their block terms in FP32 in their own order: ~1e-7. Leaving out one block of K = 4096 is
// ~1e-2; using the other convention for s, ~1e-3; rounding each block's d_w·d_a to fp16, ~1e-5
// (test_w4a8_cpu checks on the CPU that it fails). The tolerance is step 1's, kSumOrderTolerance
// (check.h).

// Everything one case keeps on the device: inputs rotated over `copies` copies (cold L2), the
// quantized activations (written by the pre-pass of each run), the outputs.
struct DeviceProblem {
    int copies = 1;
    int64_t M, N, K, nblocks_a, nblocks_w;
    DeviceBuffer<float> a_f32, w_f32;  // unquantized, for the pre-pass and cuBLAS SGEMM (w_f32 only if it runs)
    DeviceBuffer<block_q4_0> w_blocks;
    DeviceBuffer<uint8_t> w_qs;
    DeviceBuffer<ggml_half> w_d;
    DeviceBuffer<int8_t> a_i8, w_i8;   // the codes as plain int8 matrices, for cuBLAS int8 (only if it runs)
    DeviceBuffer<block_q8_1> a_q8;
    DeviceBuffer<int8_t> a_qs;         // the same, split layout
    DeviceBuffer<uint32_t> a_ds;
    DeviceBuffer<float> a_d;           // each block's d as FP32 (kernel 09)
    DeviceBuffer<uint32_t> mma_words, mma_scales;  // for the tensor-core kernel (only if it runs)
    DeviceBuffer<float> c;
    DeviceBuffer<int32_t> c_i32;

    W4A8Args args(int i) const {
        const size_t copy = (size_t)(i % copies);
        auto rotated = [&](const DeviceBuffer<uint32_t>& b) { return b.get() ? b.get() + copy * (b.count() / copies) : nullptr; };
        return W4A8Args{w_blocks.get() + copy * nblocks_w, w_qs.get() + copy * nblocks_w * 16, w_d.get() + copy * nblocks_w,
                        a_q8.get(), a_qs.get(), a_ds.get(), a_d.get(), rotated(mma_words), rotated(mma_scales), c.get(),
                        (int)M, (int)N, (int)K};
    }
    const float* a_f32_copy(int i) const { return a_f32.get() + (size_t)(i % copies) * M * K; }
    const float* w_f32_copy(int i) const { return w_f32.get() + (size_t)(i % copies) * N * K; }
    const int8_t* a_i8_copy(int i) const { return a_i8.get() + (size_t)(i % copies) * M * K; }
    const int8_t* w_i8_copy(int i) const { return w_i8.get() + (size_t)(i % copies) * N * K; }
};

// The Q4_0 codes n - 8 and the Q8_1 codes q as int8 row-major matrices.
std::vector<int8_t> q4_0_codes(const std::vector<block_q4_0>& blocks) {
    std::vector<int8_t> codes(blocks.size() * QK4_0);
    for (size_t b = 0; b < blocks.size(); ++b)
        for (int j = 0; j < QK4_0 / 2; ++j) {
            codes[b * QK4_0 + j] = (int8_t)((blocks[b].qs[j] & 0x0F) - 8);
            codes[b * QK4_0 + j + QK4_0 / 2] = (int8_t)((blocks[b].qs[j] >> 4) - 8);
        }
    return codes;
}
std::vector<int8_t> q8_1_codes(const std::vector<block_q8_1>& blocks) {
    std::vector<int8_t> codes(blocks.size() * QK8_1);
    for (size_t b = 0; b < blocks.size(); ++b) std::memcpy(&codes[b * QK8_1], blocks[b].qs, QK8_1);
    return codes;
}

// Split-layout activations (codes, then (d, s) pairs) back into ggml blocks, to compare bytes.
std::vector<block_q8_1> blocks_from_split(const DeviceBuffer<int8_t>& qs_d, const DeviceBuffer<uint32_t>& ds_d) {
    const std::vector<int8_t> qs = qs_d.to_host();
    const std::vector<uint32_t> ds = ds_d.to_host();
    std::vector<block_q8_1> blocks(ds.size());
    for (size_t b = 0; b < blocks.size(); ++b) {
        std::memcpy(&blocks[b].d, &ds[b], 4);
        std::memcpy(blocks[b].qs, &qs[b * QK8_1], QK8_1);
    }
    return blocks;
}

// The references on the sampled rows: the compensated formula (kernel error of the W4A8 kernels)
// and the raw integer product Σ(n-8)·q (what cuBLAS int8 computes), both from the same blocks.
struct QuantizedReference {
    std::vector<double> compensated;
    std::vector<double> signed_form;  // the exact dequantized dot, ignoring s (tensor-core kernels)
    std::vector<double> integer;
};

QuantizedReference quantized_reference(const std::vector<block_q4_0>& w, const std::vector<block_q8_1>& a,
                                       const std::vector<int64_t>& rows, int64_t N, int64_t K) {
    const int64_t nb = K / QK4_0;
    QuantizedReference r{std::vector<double>(rows.size() * N), std::vector<double>(rows.size() * N),
                         std::vector<double>(rows.size() * N)};
    parallel_for((int64_t)rows.size() * N, [&](int64_t idx) {
        const int64_t ri = idx / N, n = idx % N;
        const block_q4_0* wr = &w[n * nb];
        const block_q8_1* ar = &a[rows[ri] * nb];
        r.compensated[idx] = w4a8_dot_f64(wr, ar, nb, W4A8Form::Compensated);
        r.signed_form[idx] = w4a8_dot_f64(wr, ar, nb, W4A8Form::Signed);
        int64_t sum = 0;
        for (int64_t b = 0; b < nb; ++b) sum += block_signed_sumi(wr[b], ar[b].qs);
        r.integer[idx] = (double)sum;
    });
    return r;
}

// The raw integer product on int8 tensor cores, row-major as in common/cublas_baseline.cuh.
cublasStatus_t cublas_int8_run(cublasHandle_t h, const int8_t* A, const int8_t* W, int32_t* C, int M, int N, int K) {
    const int32_t one = 1, zero = 0;
    return cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, W, CUDA_R_8I, K, A, CUDA_R_8I, K, &zero, C, CUDA_R_32I,
                        N, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
}

bool run_case(const Gpu& gpu, const Options& opt, cublasHandle_t cublas, const GemmCase& c,
              std::vector<ResultRow>* rows_out = nullptr) {
    std::printf("\n== %s: M=%lld N=%lld K=%lld ==\n", c.name.c_str(), (long long)c.M, (long long)c.N, (long long)c.K);
    const int64_t nb_a = c.M * c.K / QK8_1, nb_w = c.N * c.K / QK4_0;
    // Cold L2: a W4A8 run reads the Q4_0 weights and the FP32 activations (it quantizes them itself).
    const size_t w4a8_bytes = nb_w * sizeof(block_q4_0) + c.M * c.K * sizeof(float);
    const L2Rotation rot = plan_l2_rotation(gpu, w4a8_bytes, !opt.check_only);
    // The baselines' own inputs (FP32 weights, int8 codes) are built only when they run.
    const bool run_sgemm = opt.wants(kCublasSgemm), run_int8 = opt.wants(kCublasInt8);
    const bool run_mma = std::any_of(kKernels.begin(), kKernels.end(),
                                     [&](const Step4Kernel& k) { return k.pipe == Pipe::Int8Tensor && opt.wants(k.info); });
    // The activation forms the selected kernels read (quantize_a_alone times the split one): only
    // those are made on the GPU, and byte-checked.
    bool reads[3] = {false, false, false};  // by ActivationLayout
    for (const auto& k : kKernels)
        if (opt.wants(k.info)) reads[(int)k.reads.activations] = true;
    reads[(int)ActivationLayout::Split] |= opt.wants(kQuantizerAlone);
    const bool blocks = reads[(int)ActivationLayout::Blocks], split = reads[(int)ActivationLayout::Split],
               codes_fp32_d = reads[(int)ActivationLayout::CodesFp32D];
    const size_t per_copy = c.M * c.K * sizeof(float) + 2 * nb_w * sizeof(block_q4_0) +
                            (run_sgemm ? c.N * c.K * sizeof(float) : 0) + (run_int8 ? (c.M + c.N) * c.K : 0) +
                            (run_mma ? nb_w * sizeof(block_q4_0) : 0);
    require_device_memory(gpu, rot.copies * per_copy + nb_a * sizeof(block_q8_1) + c.M * c.N * 8);

    std::vector<float> A(c.M * c.K), W(c.N * c.K);
    fill_normal(A, opt.seed, /*stream_id=*/1);
    fill_normal(W, opt.seed, /*stream_id=*/2);
    const std::vector<block_q4_0> Wq = quantize_rows_q4_0(W, c.N, c.K);
    const Q4_0Repacked Wr = repack_q4_0(Wq);
    const std::vector<block_q8_1> Aq = quantize_rows_q8_1(A, c.M, c.K, Q81Sum::DTimesSumQ);
    const std::vector<int8_t> Aq_codes = run_int8 || codes_fp32_d ? q8_1_codes(Aq) : std::vector<int8_t>();  // cuBLAS int8's input; checks the codes-only pre-pass

    DeviceProblem d;
    d.copies = rot.copies;
    d.M = c.M, d.N = c.N, d.K = c.K, d.nblocks_a = nb_a, d.nblocks_w = nb_w;
    d.a_f32 = DeviceBuffer<float>(rot.copies * c.M * c.K);
    d.w_blocks = DeviceBuffer<block_q4_0>(rot.copies * nb_w);
    d.w_qs = DeviceBuffer<uint8_t>(rot.copies * nb_w * 16);
    d.w_d = DeviceBuffer<ggml_half>(rot.copies * nb_w);
    if (blocks) d.a_q8 = DeviceBuffer<block_q8_1>(nb_a);
    if (split || codes_fp32_d) d.a_qs = DeviceBuffer<int8_t>(c.M * c.K);
    if (split) d.a_ds = DeviceBuffer<uint32_t>(nb_a);
    if (codes_fp32_d) d.a_d = DeviceBuffer<float>(nb_a);
    d.c = DeviceBuffer<float>(c.M * c.N);
    d.c_i32 = DeviceBuffer<int32_t>(c.M * c.N);
    upload_copies(d.a_f32, A.data(), A.size(), rot.copies);
    upload_copies(d.w_blocks, Wq.data(), Wq.size(), rot.copies);
    upload_copies(d.w_qs, Wr.qs.data(), Wr.qs.size(), rot.copies);
    upload_copies(d.w_d, Wr.d.data(), Wr.d.size(), rot.copies);
    if (run_sgemm) {
        d.w_f32 = DeviceBuffer<float>(rot.copies * c.N * c.K);
        upload_copies(d.w_f32, W.data(), W.size(), rot.copies);
    }
    if (run_mma && c.K % kMmaChunk8 == 0) {
        const Q4_0MmaLayout Wm = repack_q4_0_for_mma(Wq, c.N, c.K);
        d.mma_words = DeviceBuffer<uint32_t>(rot.copies * Wm.words.size());
        d.mma_scales = DeviceBuffer<uint32_t>(rot.copies * Wm.scales.size());
        upload_copies(d.mma_words, Wm.words.data(), Wm.words.size(), rot.copies);
        upload_copies(d.mma_scales, Wm.scales.data(), Wm.scales.size(), rot.copies);
    }
    if (run_int8) {
        d.a_i8 = DeviceBuffer<int8_t>(rot.copies * c.M * c.K);
        d.w_i8 = DeviceBuffer<int8_t>(rot.copies * c.N * c.K);
        upload_copies(d.a_i8, Aq_codes.data(), Aq_codes.size(), rot.copies);
        upload_copies(d.w_i8, q4_0_codes(Wq).data(), (size_t)(c.N * c.K), rot.copies);
    }

    // The pre-pass every W4A8 run includes: step 2's GPU quantizer, A (FP32) -> Q8_1, in blocks, in
    // the split layout, or as the split layout's codes with d in FP32 (no (d, s) pairs: the
    // tensor-core kernels never read s). Its bytes must be the CPU's, or the kernels would be
    // checked against other data: each form a selected kernel reads is compared with the CPU's
    // blocks once, here (the codes-only form written over poison, so that a code it failed to
    // write cannot pass as the split run's).
    auto quantize_blocks = [&](int i) {
        quantize_q8_1_gpu(d.a_f32_copy(i), d.a_q8.get(), c.M * c.K, Q81Sum::DTimesSumQ, gpu.stream);
    };
    auto quantize_split = [&](int i) {
        quantize_q8_1_split_gpu(d.a_f32_copy(i), d.a_qs.get(), d.a_ds.get(), c.M * c.K, gpu.stream);
    };
    auto quantize_codes_fp32_d = [&](int i) {
        quantize_q8_1_split_gpu(d.a_f32_copy(i), d.a_qs.get(), nullptr, c.M * c.K, gpu.stream, d.a_d.get());
    };
    const size_t a_bytes = Aq.size() * sizeof(block_q8_1);
    bool same_a = true;
    std::string forms;  // the forms checked, for the line below
    if (blocks) {
        quantize_blocks(0);
        CUDA_CHECK_LAST();
        const std::vector<block_q8_1> got = d.a_q8.to_host();
        same_a = check_bytes("activations (blocks)", got.data(), Aq.data(), a_bytes, sizeof(block_q8_1)).pass && same_a;
        forms += "blocks";
    }
    if (split) {
        quantize_split(0);
        CUDA_CHECK_LAST();
        const std::vector<block_q8_1> got = blocks_from_split(d.a_qs, d.a_ds);
        same_a = check_bytes("activations (split)", got.data(), Aq.data(), a_bytes, sizeof(block_q8_1)).pass && same_a;
        forms += forms.empty() ? "split layout" : ", split layout";
    }
    if (codes_fp32_d) {
        poison(d.a_qs.get(), d.a_qs.bytes(), 0xFF, gpu.stream);
        poison(d.a_d.get(), d.a_d.bytes(), 0xFF, gpu.stream);
        quantize_codes_fp32_d(0);
        CUDA_CHECK_LAST();
        const std::vector<int8_t> codes_gpu = d.a_qs.to_host();
        const std::vector<float> d_gpu = d.a_d.to_host();
        std::vector<float> d_expected(Aq.size());
        for (size_t b = 0; b < Aq.size(); ++b) d_expected[b] = fp16_to_fp32(Aq[b].d);
        same_a = check_bytes("activations (codes for FP32 d)", codes_gpu.data(), Aq_codes.data(), Aq_codes.size(), QK8_1).pass &&
                 check_bytes("activations (FP32 d)", d_gpu.data(), d_expected.data(), d_expected.size() * sizeof(float), sizeof(float)).pass &&
                 same_a;
        forms += forms.empty() ? "codes with FP32 d" : ", codes with FP32 d";
    }
    if (!forms.empty())
        std::printf("activations quantized on the GPU (Q8_1, s = d*sum(q)), %s: %s the CPU's %zu bytes\n", forms.c_str(),
                    same_a ? "identical to" : "DIFFERENT FROM", a_bytes);

    const ReferenceRows truth = reference_gemm(A.data(), W.data(), c.M, c.N, c.K, reference_row_choice(c.M, c.N, c.K));
    const QuantizedReference qref = quantized_reference(Wq, Aq, truth.rows, c.N, c.K);
    std::printf("reference: float64 on %u CPU threads, %s\n", reference_threads(), describe_rows(truth, c.M).c_str());
    if (!opt.check_only) print_l2_rotation(rot, gpu);

    auto download_rows = [&] { return gather_rows(d.c.to_host(), c.N, truth.rows); };
    const Workload w4a8_work{2.0 * c.M * c.N * c.K, (double)w4a8_bytes + 4.0 * c.M * c.N};
    std::vector<ResultRow> rows;
    for (const auto& k : kKernels) {
        if (!opt.wants(k.info)) continue;
        KernelRun run = kernel_run_for(k.info);
        run.arch = k.arch;
        run.unsupported = k.why_not(c, gpu);
        run.must_run = c.expects(k.info.name);
        run.pipe = k.pipe;
        run.prepass = k.reads.activations == ActivationLayout::Split        ? std::function<void(int)>(quantize_split)
                      : k.reads.activations == ActivationLayout::CodesFp32D ? std::function<void(int)>(quantize_codes_fp32_d)
                                                                            : std::function<void(int)>(quantize_blocks);
        run.prepass_name = "quantize A";
        run.launch = [&, launch = k.launch](int i) { launch(d.args(i), gpu.stream); };
        run.poison_output = [&](uint8_t pattern) { poison(d.c.get(), d.c.bytes(), pattern, gpu.stream); };
        run.check = [&, name = k.info.name, form = k.reads.form] {
            const std::vector<float> got = download_rows();
            const std::vector<double>& ref = form == W4A8Form::Signed ? qref.signed_form : qref.compensated;
            return check_close(name.c_str(), got.data(), ref.data(), got.size(),
                               Tolerance{0.0, kSumOrderTolerance, truth.abs_sum.data()}, c.N);
        };
        run.quantization_nmse = [&] { return nmse(download_rows(), truth.c); };
        run.error_metric = "err/sum|aw|";
        rows.push_back(evaluate_kernel(gpu, opt, run, w4a8_work));
    }
    if (opt.wants(kQuantizerAlone)) {  // what every W4A8 kernel's time includes before its own work
        KernelRun run;
        run.name = kQuantizerAlone.name;
        run.launch = quantize_split;
        run.poison_output = [&](uint8_t pattern) {
            poison(d.a_qs.get(), d.a_qs.bytes(), pattern, gpu.stream);
            poison(d.a_ds.get(), d.a_ds.bytes(), pattern, gpu.stream);
        };
        run.check = [&] {
            const std::vector<block_q8_1> blocks = blocks_from_split(d.a_qs, d.a_ds);
            return check_bytes("quantize_a_alone", blocks.data(), Aq.data(), a_bytes, sizeof(block_q8_1));
        };
        run.error_metric = "bytes_diff";
        run.report = KernelRun::Report::BadCount;
        rows.push_back(evaluate_kernel(gpu, opt, run, Workload{0.0, c.M * c.K * 4.0 + (double)a_bytes}));
    }
    if (run_sgemm) {
        KernelRun run;
        run.name = kCublasSgemm.name;
        run.launch = [&](int i) {
            cublas_sgemm_rowmajor(cublas, d.a_f32_copy(i), d.w_f32_copy(i), d.c.get(), (int)c.M, (int)c.N, (int)c.K);
        };
        run.poison_output = [&](uint8_t pattern) { poison(d.c.get(), d.c.bytes(), pattern, gpu.stream); };
        run.check = [&] {
            const std::vector<float> got = download_rows();
            return check_close("cublas_sgemm", got.data(), truth.c.data(), got.size(),
                               Tolerance{0.0, kSumOrderTolerance, truth.abs_sum.data()}, c.N);
        };
        run.error_metric = "err/sum|aw|";
        rows.push_back(evaluate_kernel(gpu, opt, run, Workload{2.0 * c.M * c.N * c.K, 4.0 * (c.M * c.K + c.N * c.K + c.M * c.N)}));
    }
    if (run_int8) {
        KernelRun run;
        run.name = kCublasInt8.name;
        run.pipe = Pipe::Int8Tensor;
        const cublasStatus_t status = cublas_int8_run(cublas, d.a_i8_copy(0), d.w_i8_copy(0), d.c_i32.get(), (int)c.M, (int)c.N, (int)c.K);
        if (status != CUBLAS_STATUS_SUCCESS) run.unsupported = "cuBLAS int8 refuses this shape (status " + std::to_string((int)status) + ")";
        run.launch = [&](int i) {
            CUBLAS_CHECK(cublas_int8_run(cublas, d.a_i8_copy(i), d.w_i8_copy(i), d.c_i32.get(), (int)c.M, (int)c.N, (int)c.K));
        };
        run.poison_output = [&](uint8_t pattern) { poison(d.c_i32.get(), d.c_i32.bytes(), pattern, gpu.stream); };
        run.check = [&] {  // exact: an integer product has one right answer
            const std::vector<int32_t> all = d.c_i32.to_host();
            std::vector<float> got(truth.rows.size() * c.N);
            for (size_t ri = 0; ri < truth.rows.size(); ++ri)
                for (int64_t n = 0; n < c.N; ++n) got[ri * c.N + n] = (float)all[truth.rows[ri] * c.N + n];
            return check_close("cublas_int8", got.data(), qref.integer.data(), got.size(), Tolerance{0.0, 0.0}, c.N);
        };
        run.error_metric = "|diff| (exact int)";
        run.report = KernelRun::Report::BadCount;
        rows.push_back(evaluate_kernel(gpu, opt, run, Workload{2.0 * c.M * c.N * c.K, (double)(c.M + c.N) * c.K + 4.0 * c.M * c.N}));
    }
    print_table(rows, "naive", {kCublasSgemm.name, kCublasInt8.name});
    append_csv(opt.csv_path, "step4_w4a8", c.name, c.M, c.N, c.K, rows, gpu, l2_state(rot, opt.check_only));
    if (rows_out) *rows_out = rows;
    return same_a && !any_failed(rows);
}

// ---------------------------------------------------------------------------------------------
// The summit: the tensor-core kernel at the shapes where llama.cpp's MMQ was timed
// ---------------------------------------------------------------------------------------------

const std::vector<GemmCase> kSummitCases = {
    {"summit", 16, 4096, 4096, {"mma_int8"}},    {"summit", 128, 4096, 4096, {"mma_int8"}},
    {"summit", 512, 4096, 4096, {"mma_int8"}},   {"summit", 512, 4096, 14336, {"mma_int8"}},
    {"summit", 512, 14336, 4096, {"mma_int8"}},  {"summit", 2048, 4096, 4096, {"mma_int8"}},
    {"summit", 4096, 4096, 4096, {"mma_int8"}},
};

bool run_summit(const Gpu& gpu, Options opt, cublasHandle_t cublas) {
    opt.kernels = {"dp4a_tiled", "mma_int8", "mma_int8_tma", kCublasInt8.name};
    std::vector<std::vector<ResultRow>> all;
    bool pass = true;
    for (auto c : kSummitCases) {
        c.name = "summit M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K);
        std::vector<ResultRow> rows;
        pass = run_case(gpu, opt, cublas, c, &rows) && pass;
        all.push_back(rows);
    }
    const std::vector<LlamaTime> llama = read_llama_times();
    // Recorded times are of one GPU: a ratio against them means something only on that GPU.
    const LlamaTime* any = llama.empty() ? nullptr : &llama.front();
    const bool same_gpu = any && gpu.name == any->gpu;
    std::printf("\n== the summit: the faster of mma_int8 and mma_int8_tma (quantizing A included) against llama.cpp's MMQ,"
                " whole operation ==\n");
    if (any)
        std::printf("llama.cpp: %s, ggml %s, %s (%s)%s\n", any->gpu.c_str(), any->ggml_commit.c_str(), any->date.c_str(),
                    QGF_LLAMA_TIMES, same_gpu ? "" : "; another GPU than this one, so no ratio is printed");
    std::printf("  %5s %6s %6s %-13s %10s %10s %9s %10s %11s\n", "M", "N", "K", "ours", "ours(us)", "mmq(us)", "speedup",
                "ours TOPS", "int8 cuBLAS");
    for (size_t i = 0; i < kSummitCases.size(); ++i) {
        const GemmCase& c = kSummitCases[i];
        const ResultRow* ours = faster_row(find_timed_row(all[i], "mma_int8"), find_timed_row(all[i], "mma_int8_tma"));
        const ResultRow* int8 = find_timed_row(all[i], kCublasInt8.name);
        const LlamaTime* mmq = same_gpu ? find_llama_time(llama, c.M, c.N, c.K) : nullptr;
        std::printf("  %5lld %6lld %6lld %-13s %10s %10s %9s %10s %11s\n", (long long)c.M, (long long)c.N, (long long)c.K,
                    ours ? ours->kernel.c_str() : "-",
                    fmt_or_dash(ours ? ours->time_ms * 1e3 : NAN, "%.1f").c_str(), fmt_or_dash(mmq ? mmq->time_us : NAN, "%.1f").c_str(),
                    fmt_or_dash(ours && mmq ? mmq->time_us / (ours->time_ms * 1e3) : NAN, "%.2fx").c_str(),
                    fmt_or_dash(ours ? ours->tera_ops : NAN, "%.0f").c_str(),
                    fmt_or_dash(int8 ? int8->time_ms * 1e3 : NAN, "%.1f us").c_str());
    }
    std::printf("(int8 cuBLAS: the raw s8 x s8 product of the same codes, no scales and no quantization)\n");
    return pass;
}

int main(int argc, char** argv) {
    ProgramInfo info{"step4_w4a8", "W4A8: Q4_0 weights x Q8_1 activations with the compensation formula, DP4A, a decoding GEMV",
                     "step4_w4a8 --m 1 --n 4096 --k 14336 --kernel gemv_dp4a,cublas_int8", QK4_0, {},
                     {{"summit", false, "the tensor-core kernel against llama.cpp's MMQ at M = 16 to 4096 (TENSOR_CORES.md)"}}};
    for (const auto& k : kKernels) info.kernels.push_back(k.info);
    info.kernels.push_back(kQuantizerAlone);
    info.kernels.push_back(kCublasSgemm);
    info.kernels.push_back(kCublasInt8);
    const Options opt = parse_options(argc, argv, info);
    const bool summit = opt.has("summit");
    if (summit && (opt.has_shape || !opt.kernels.empty()))
        usage_error("--summit runs its own shapes and kernels; leave out --m/--n/--k and --kernel");
    const std::vector<GemmCase> cases = cases_to_run(opt, kLessonCases);
    if (!expected_kernels_fit(summit ? kSummitCases : cases, [](const std::string& name, const GemmCase& c, const Gpu& gpu) {
            const Step4Kernel* k = find_kernel(kKernels, name);
            return k ? k->why_not(c, gpu) : std::string();
        }))
        return EXIT_CHECK_FAILED;

    const bool lesson_run = !summit && !opt.has_shape && opt.kernels.empty();  // part 1 is the lesson's alone
    if (lesson_run) {
        std::printf("== 1. the compensation formula, on the CPU ==\n");
        demonstrate_compensation(opt.seed);
        std::printf("\n");
    }
    if (lesson_run) std::printf("== 2. the kernels ==\n");
    Gpu gpu = open_gpu(/*measure_bandwidth=*/!opt.check_only);
    if (!gpu.available) {
        std::printf("SKIP step4_w4a8: no usable CUDA device; %s\n", summit ? "the summit needs one" : lesson_run ? "part 1 ran, no kernel did" : "no kernel ran");
        return EXIT_NO_GPU;
    }
    print_run_header(gpu, opt);
    cublasHandle_t cublas = make_cublas_handle(gpu.stream);  // SGEMM in true FP32, no TF32

    bool all_pass = true;
    if (summit) all_pass = run_summit(gpu, opt, cublas);
    else
        for (const auto& c : cases) all_pass = run_case(gpu, opt, cublas, c) && all_pass;
    CUBLAS_CHECK(cublasDestroy(cublas));
    return finish_run(all_pass);
}
