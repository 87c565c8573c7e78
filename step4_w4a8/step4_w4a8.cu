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
#include "../common/read_floor.cuh"
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
#include "kernels/12_gemv_q4_k.cuh"
#include "kernels/13_gemv_q6_k.cuh"
#include "kernels/14_gemv_mma_q4_k.cuh"
#include "kernels/15_mma_q4_k.cuh"
#include "kernels/16_wgmma_int8.cuh"
#include "mma_peak.cuh"
#include "w4a8_problem.cuh"

#include <algorithm>
#include <memory>

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
    {"decode, 1 token, LLaMA FFN N=4096 K=14336", 1, 4096, 14336, {"gemv_resident", "gemv_q4_k"}},
    {"decode, 4 tokens, N=4096 K=14336", 4, 4096, 14336, {"gemv_mma", "gemv_mma_q4_k"}},
    {"prompt of 512 tokens, N=K=4096", 512, 4096, 4096, {"mma_int8", "mma_q4_k"}},
};

using W4A8Launcher = void (*)(const W4A8Args&, cudaStream_t);
// Each row declares what it reads (w4a8_problem.cuh): the weights' form, the activations' form (so
// which quantizer runs before it, timed with it) and the formula it computes (so its reference).
// The default, {}, is ggml's Q4_0 blocks, ggml's Q8_1 blocks, the compensated formula.
using Step4Kernel = KernelSpec<W4A8Launcher, W4A8Reads>;

constexpr W4A8Reads kStreams{WeightForm::Q4_0Streams},
    kStreamsSplit{WeightForm::Q4_0Streams, ActivationForm::Q8_1Split},
    kMmaSplitSigned{WeightForm::Q4_0Mma, ActivationForm::Q8_1Split, Reference::Q4_0Signed},
    kMmaCodesSigned{WeightForm::Q4_0Mma, ActivationForm::Q8_1CodesFp32D, Reference::Q4_0Signed},
    kMmaRowBlocksCodesSigned{WeightForm::Q4_0MmaRowBlocks, ActivationForm::Q8_1CodesFp32D, Reference::Q4_0Signed},
    kQ4_KSplit{WeightForm::Q4_KStreams, ActivationForm::Q8_1Split, Reference::Q4_K},
    kQ4_KMmaSplit{WeightForm::Q4_KMma, ActivationForm::Q8_1Split, Reference::Q4_K},
    kQ4_KMmaCodesFp32DS{WeightForm::Q4_KMma, ActivationForm::Q8_1CodesFp32DS, Reference::Q4_K},
    kQ6_KSplit{WeightForm::Q6_KStreams, ActivationForm::Q8_1Split, Reference::Q6_K};

// Three rows beside the kernels, measured in the same run, declare their inputs like them:
// the quantizer by itself (its row's pre-pass is the quantizer, which its activation form names,
// and its launch adds nothing: its time is what every W4A8 row's includes before its own work);
// cuBLAS SGEMM on the unquantized FP32 matrices; cuBLAS int8 on the same codes as int8 matrices
// (n - 8 and q), the raw integer product without any scale.
constexpr W4A8Reads kQuantizerAloneReads{WeightForm::None, ActivationForm::Q8_1Split, Reference::QuantizedActivations},
    kCublasSgemmReads{WeightForm::F32, ActivationForm::F32, Reference::Unquantized},
    kCublasInt8Reads{WeightForm::Int8Codes, ActivationForm::Int8Codes, Reference::Integer};
// Their launchers read the W4A8Inputs that every row is handed (w4a8_layout.cuh).
void launch_nothing_after_prepass(const W4A8Args&, cudaStream_t) {}
void launch_cublas_sgemm(const W4A8Args& args, cudaStream_t s) {
    const W4A8Inputs& p = static_cast<const W4A8Inputs&>(args);
    cublas_sgemm_rowmajor(cublas_on(s), p.a_f32, p.w_f32, p.c, p.M, p.N, p.K);
}
// Row-major as in common/cublas_baseline.cuh. cuBLAS may refuse an int8 shape: the row says SKIP.
void launch_cublas_int8(const W4A8Args& args, cudaStream_t s) {
    const W4A8Inputs& p = static_cast<const W4A8Inputs&>(args);
    const int32_t one = 1, zero = 0;
    const cublasStatus_t status = cublasGemmEx(cublas_on(s), CUBLAS_OP_T, CUBLAS_OP_N, p.N, p.M, p.K, &one, p.w_i8, CUDA_R_8I, p.K, p.a_i8,
                                               CUDA_R_8I, p.K, &zero, p.c_i32, CUDA_R_32I, p.N, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
    if (status != CUBLAS_STATUS_SUCCESS) throw LaunchRefused("cuBLAS int8 refuses this shape (status " + std::to_string((int)status) + ")");
}
const char* const kCublasSgemm = "cublas_sgemm";
const char* const kCublasInt8 = "cublas_int8";

const std::vector<Step4Kernel> kKernels = {
    {{"naive", "01 thread per output, scalar integer dot products"}, launch_w4a8_naive, w4a8_naive_why_not, {}, {}, Pipe::Dp4a},
    {{"smem_tiled", "02 16x16 outputs share blocks staged in shared memory"}, launch_w4a8_smem_tiled, w4a8_smem_tiled_why_not, {}, {},
     Pipe::Dp4a},
    {{"dp4a", "03 thread per output, DP4A on unpacked nibbles"}, launch_w4a8_dp4a, w4a8_dp4a_why_not, {}, {61}, Pipe::Dp4a},
    {{"dp4a_loads16", "04 as 03, weights repacked: one 16-byte load per block"}, launch_w4a8_dp4a_loads16, w4a8_dp4a_loads16_why_not,
     kStreams, {61}, Pipe::Dp4a},
    {{"dp4a_tiled", "05 128x128 tile, 8x8 outputs per thread, DP4A outer products"}, launch_w4a8_dp4a_tiled, w4a8_dp4a_tiled_why_not,
     kStreams, {61}, Pipe::Dp4a},
    {{"gemv_dp4a", "06 M<=8: warp per 2 weight rows, 16-byte streaming loads"}, launch_w4a8_gemv_dp4a, w4a8_gemv_why_not, kStreamsSplit,
     {61}, Pipe::Dp4a},
    {{"gemv_pdl", "07 06 launched with PDL: starts while the quantizer runs"}, launch_w4a8_gemv_pdl, w4a8_gemv_why_not, kStreamsSplit, {90},
     Pipe::Dp4a},
    {{"gemv_resident", "08 M<=8: activations in registers, a CTA spans K, rows stream past; PDL"}, launch_w4a8_gemv_resident,
     w4a8_gemv_resident_why_not, kStreamsSplit, {61}, Pipe::Dp4a},
    {{"mma_int8", "09 int8 tensor cores: mma.sync m16n8k32, a block per mma, cp.async pipeline"}, launch_w4a8_mma_int8,
     w4a8_mma_int8_why_not, kMmaCodesSigned, {80}, Pipe::Int8Tensor},
    {{"gemv_mma", "10 M<=8: tensor cores for decoding, weights straight into mma fragments, tokens as columns; PDL"},
     launch_w4a8_gemv_mma, w4a8_gemv_mma_why_not, kMmaSplitSigned, {80}, Pipe::Int8Tensor},
    {{"mma_int8_tma", "11 09's math on a 64x128 tile (M > 128), stages copied by the TMA: one thread asks, mbarriers count"},
     launch_w4a8_mma_int8_tma, w4a8_mma_int8_tma_why_not, kMmaCodesSigned, {90}, Pipe::Int8Tensor},
    {{"gemv_q4_k", "12 M<=8: Q4_K weights (K-quants), 08's resident activations; PDL (KQUANTS.md)"}, launch_w4a8_gemv_q4_k,
     w4a8_gemv_q4_k_why_not, kQ4_KSplit, {61}, Pipe::Dp4a},
    {{"gemv_q6_k", "13 M<=8: Q6_K weights (the K-quant of Q4_K_M's sensitive tensors), 12's skeleton; PDL (KQUANTS.md)"},
     launch_w4a8_gemv_q6_k, w4a8_gemv_q6_k_why_not, kQ6_KSplit, {61}, Pipe::Dp4a},
    {{"gemv_mma_q4_k", "14 M<=8: Q4_K on tensor cores for decoding, 10's skeleton, unsigned codes and the minimum through s; PDL (KQUANTS.md)"},
     launch_w4a8_gemv_mma_q4_k, w4a8_gemv_mma_q4_k_why_not, kQ4_KMmaSplit, {80}, Pipe::Int8Tensor},
    {{"mma_q4_k", "15 Q4_K on int8 tensor cores for prompts: 09's tiles and pipeline, 14's layout, the minimum through s; PDL (KQUANTS.md)"},
     launch_w4a8_mma_q4_k, w4a8_mma_q4_k_why_not, kQ4_KMmaCodesFp32DS, {80}, Pipe::Int8Tensor},
    {{"wgmma_int8", "16 09's math on Hopper's wgmma (sm_90a), one m64n128k32 per block and warpgroup; a copy warpgroup, 4 TMA requests a stage; a partial wave split in K"},
     launch_w4a8_wgmma_int8, w4a8_wgmma_int8_why_not, kMmaRowBlocksCodesSigned, kWgmmaInt8Arch, Pipe::Int8Tensor},
    {{"quantize_a_alone", "the pre-pass by itself: A (FP32) -> Q8_1, split layout"}, launch_nothing_after_prepass, runs_any_shape,
     kQuantizerAloneReads},
    {{kCublasSgemm, "cuBLAS SGEMM on the unquantized FP32 matrices: the baseline without quantization"}, launch_cublas_sgemm,
     runs_any_shape, kCublasSgemmReads},
    {{kCublasInt8, "cuBLAS int8 GEMM (s8 x s8 -> s32) on the same codes, no scales: tensor cores"}, launch_cublas_int8, runs_any_shape,
     kCublasInt8Reads, {}, Pipe::Int8Tensor},
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

// Kernel error: |got - ref| / sum_k |A[m][k] W[n][k]| (the unquantized magnitudes, see
// reference_gemm.h), against the same formula on the same blocks in float64. The kernels add
// their block terms in FP32 in their own order: ~1e-7. Leaving out one block of K = 4096 is
// ~1e-2; using the other convention for s, ~1e-3; rounding each block's d_w·d_a to fp16, ~1e-5
// (test_w4a8_cpu checks on the CPU that it fails). The tolerance is step 1's, kSumOrderTolerance
// (check.h).

// One row's run: poisoned, checked against its reference, its quantization error measured.
KernelRun checked_run(W4A8Problem& problem, const KernelInfo& info, const W4A8Reads& reads) {
    KernelRun run = kernel_run_for(info);
    run.prepass = problem.prepass(reads.activations);
    if (run.prepass && reads.reference != Reference::QuantizedActivations) {  // (that row's output is the pre-pass's)
        run.prepass_name = "quantize A";
        run.late_inputs = [&problem, a = reads.activations] { problem.deliver_activations_late(a); };
    }
    run.poison_output = [&problem, r = reads.reference](uint8_t pattern) { problem.poison_output(r, pattern); };
    run.check = [&problem, name = info.name, r = reads.reference] { return problem.check(name, r); };
    if (reads.reference == Reference::Integer || reads.reference == Reference::QuantizedActivations) {
        run.error_metric = reads.reference == Reference::Integer ? "|diff| (exact int)" : "bytes_diff";
        run.report = KernelRun::Report::BadCount;
    } else {
        if (reads.reference != Reference::Unquantized)
            run.quantization_nmse = [&problem] { return problem.quantization_nmse(); };
        run.error_metric = "err/sum|aw|";
    }
    return run;
}

std::vector<ResultRow> run_case(const Gpu& gpu, const Options& opt, const GemmCase& c) {
    std::printf("\n== %s: M=%lld N=%lld K=%lld ==\n", c.name.c_str(), (long long)c.M, (long long)c.N, (long long)c.K);
    std::vector<const Step4Kernel*> selected;
    std::vector<W4A8Reads> reads;  // what the selected rows read: only that is prepared
    for (const auto& k : kKernels)
        if (opt.wants(k.info)) selected.push_back(&k), reads.push_back(k.reads);
    W4A8Problem problem(gpu, opt, c, reads);

    std::vector<ResultRow> rows;
    for (const Step4Kernel* k : selected) {
        KernelRun run = checked_run(problem, k->info, k->reads);
        run.arch = k->arch;
        run.unsupported = k->why_not(c, gpu);
        run.must_run = c.expects(k->info.name);
        run.pipe = k->pipe;
        run.launch = [&, launch = k->launch](int i) { launch(problem.args(i), gpu.stream); };
        rows.push_back(evaluate_kernel(gpu, opt, run, problem.workload(k->reads)));
    }
    if (!problem.activations_match()) {  // every row that reads them would be checked against other data
        ResultRow bad;
        bad.kernel = "quantizer bytes";
        bad.status = Status::Fail;
        bad.note = "the GPU's Q8_1 activations differ from the CPU's (above)";
        rows.push_back(bad);
    }
    print_table(rows, "naive", {kCublasSgemm, kCublasInt8});
    append_csv(opt.csv_path, "step4_w4a8", c.name, c.M, c.N, c.K, rows, gpu, l2_state(problem.rotation(), opt.check_only));
    return rows;
}

// ---------------------------------------------------------------------------------------------
// The summit: the tensor-core kernel at the shapes where llama.cpp's MMQ was timed
// ---------------------------------------------------------------------------------------------

// Each shape also runs the Q4_K tensor-core kernel (KQUANTS.md), against llama.cpp's Q4_K times.
const std::vector<GemmCase> kSummitCases = {
    {"summit", 16, 4096, 4096, {"mma_int8", "mma_q4_k"}},   {"summit", 128, 4096, 4096, {"mma_int8", "mma_q4_k"}},
    {"summit", 512, 4096, 4096, {"mma_int8", "mma_q4_k"}},  {"summit", 512, 4096, 14336, {"mma_int8", "mma_q4_k"}},
    {"summit", 512, 14336, 4096, {"mma_int8", "mma_q4_k"}}, {"summit", 2048, 4096, 4096, {"mma_int8", "mma_q4_k"}},
    {"summit", 4096, 4096, 4096, {"mma_int8", "mma_q4_k"}},
};

// One row of a summit table: ours (or "-"), llama.cpp's time (when recorded on this GPU) and the speedup.
void print_summit_row(const GemmCase& c, const ResultRow* ours, const LlamaTime* theirs, const std::string& last) {
    std::printf("  %5lld %6lld %6lld %-13s %10s %10s %9s %10s %11s\n", (long long)c.M, (long long)c.N, (long long)c.K,
                ours ? ours->kernel.c_str() : "-", fmt_or_dash(ours ? ours->time_ms * 1e3 : NAN, "%.1f").c_str(),
                fmt_or_dash(theirs ? theirs->time_us : NAN, "%.1f").c_str(),
                fmt_or_dash(ours && theirs ? theirs->time_us / (ours->time_ms * 1e3) : NAN, "%.2fx").c_str(),
                fmt_or_dash(ours ? ours->tera_ops : NAN, "%.0f").c_str(), last.c_str());
}

bool run_summit(const Gpu& gpu, Options opt) {
    opt.kernels = {"dp4a_tiled", "mma_int8", "mma_int8_tma", "wgmma_int8", "mma_q4_k", kCublasInt8};
    std::vector<GemmCase> cases = kSummitCases;
    for (auto& c : cases) c.name = "summit M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K);
    const std::vector<CaseRows> results = run_cases(cases, [&](const GemmCase& c) { return run_case(gpu, opt, c); });
    const std::vector<LlamaTime> llama = read_llama_times();
    // Recorded times are of one GPU: a ratio against them means something only on that GPU.
    const LlamaTime* any = llama.empty() ? nullptr : &llama.front();
    const bool same_gpu = any && gpu.name == any->gpu;
    // Under a table's title: where llama.cpp's times of these weights come from, and the columns.
    auto print_head = [&](const std::string& weights, const char* theirs, const char* last) {
        const auto row = std::find_if(llama.begin(), llama.end(), [&](const LlamaTime& t) { return t.weights == weights; });
        if (row != llama.end())
            std::printf("llama.cpp %s: %s, ggml %s, %s (%s)%s\n", weights.c_str(), row->gpu.c_str(), row->ggml_commit.c_str(),
                        row->date.c_str(), QGF_LLAMA_TIMES, same_gpu ? "" : "; another GPU than this one, so no ratio is printed");
        std::printf("  %5s %6s %6s %-13s %10s %10s %9s %10s %11s\n", "M", "N", "K", "ours", "ours(us)", theirs, "speedup", "ours TOPS", last);
    };
    // Q4_K first: the lessons quote the summit's last table (the one headed "== the ...") as its summary.
    std::printf("\n== Q4_K at the summit's shapes: mma_q4_k (quantizing A included) against llama.cpp's Q4_K MUL_MAT,"
                " whole operation (KQUANTS.md) ==\n");
    print_head("q4_k", "llama(us)", "Q4_0 (09)");
    for (const auto& [c, rows] : results) {
        const ResultRow* q4_0 = find_timed_row(rows, "mma_int8");
        print_summit_row(c, find_timed_row(rows, "mma_q4_k"), same_gpu ? find_llama_time(llama, c.M, c.N, c.K, "q4_k") : nullptr,
                         fmt_or_dash(q4_0 ? q4_0->time_ms * 1e3 : NAN, "%.1f us"));
    }
    std::printf("\n== the summit: the fastest of mma_int8, mma_int8_tma and wgmma_int8 (quantizing A included) against llama.cpp's MMQ,"
                " whole operation ==\n");
    print_head("q4_0", "mmq(us)", "int8 cuBLAS");
    for (const auto& [c, rows] : results) {
        const ResultRow* int8 = find_timed_row(rows, kCublasInt8);
        print_summit_row(c, faster_row(faster_row(find_timed_row(rows, "mma_int8"), find_timed_row(rows, "mma_int8_tma")),
                                       find_timed_row(rows, "wgmma_int8")),
                         same_gpu ? find_llama_time(llama, c.M, c.N, c.K) : nullptr, fmt_or_dash(int8 ? int8->time_ms * 1e3 : NAN, "%.1f us"));
    }
    std::printf("(int8 cuBLAS: the raw s8 x s8 product of the same codes, no scales and no quantization)\n");
    return all_passed(results);
}

// The read floor under the decoding cases (README.md, "The floor under decoding"): each decoding
// case's Q4_0 weights, in the form the decoding GEMVs read (kStreamsSplit), streamed alone and
// after the case's activation quantizer, as its GEMVs run. Q4_K's 4.5 bits a weight are the same
// bytes. The quantizers' problems outlive the timing.
bool run_read_floor(const Gpu& gpu, const Options& opt) {
    std::vector<std::unique_ptr<W4A8Problem>> quantizers;
    std::vector<read_floor::FloorCase> cases;
    std::printf("\nthe quantizer of each decoding case, prepared as for the lesson's rows (its input alone is too small for a cold L2):\n");
    for (const GemmCase& c : kLessonCases) {
        if (c.M > 8) continue;  // a decoding case
        const std::string matrix = "Q4_0 weights N=" + std::to_string(c.N) + " K=" + std::to_string(c.K);
        auto same = std::find_if(cases.begin(), cases.end(), [&](const read_floor::FloorCase& f) { return f.name == matrix; });
        if (same == cases.end()) {
            cases.push_back({matrix, (size_t)weight_form_bytes(kStreamsSplit.weights, c.N, c.K)});
            same = cases.end() - 1;
        }
        quantizers.push_back(std::make_unique<W4A8Problem>(gpu, opt, c, std::vector<W4A8Reads>{kQuantizerAloneReads}));
        same->befores.push_back({"quantize A, M=" + std::to_string(c.M), quantizers.back()->prepass(kQuantizerAloneReads.activations)});
    }
    return read_floor::run(gpu, opt, cases);
}

int main(int argc, char** argv) {
    ProgramInfo info{"step4_w4a8", "W4A8: Q4_0 weights x Q8_1 activations with the compensation formula, DP4A, a decoding GEMV",
                     "step4_w4a8 --m 1 --n 4096 --k 14336 --kernel gemv_dp4a,cublas_int8", QK4_0, {},
                     {{"summit", false, "the tensor-core kernel against llama.cpp's MMQ at M = 16 to 4096 (TENSOR_CORES.md)"},
                      {"mma-peak", false, "a microbenchmark: mma.sync int8 alone and with Q4_0's epilogue, no memory (TENSOR_CORES.md)"},
                      {"read-floor", false, "a microbenchmark: the decoding cases' weights read with no math, alone and after the quantizer"}}};
    for (const auto& k : kKernels) info.kernels.push_back(k.info);
    const Options opt = parse_options(argc, argv, info);
    const bool summit = opt.has("summit"), mma_peak_run = opt.has("mma-peak"), read_floor_run = opt.has("read-floor");
    if (summit && (opt.has_shape || !opt.kernels.empty()))
        usage_error("--summit runs its own shapes and kernels; leave out --m/--n/--k and --kernel");
    if (mma_peak_run && (summit || opt.has_shape || !opt.kernels.empty() || opt.check_only))
        usage_error("--mma-peak times one microbenchmark of its own; leave out --summit, --m/--n/--k, --kernel and --check-only");
    if (read_floor_run && (summit || mma_peak_run || opt.has_shape || !opt.kernels.empty() || opt.check_only))
        usage_error("--read-floor times one microbenchmark of its own; leave out --summit, --mma-peak, --m/--n/--k, --kernel and --check-only");
    const std::vector<GemmCase> cases = cases_to_run(opt, kLessonCases);
    if (!expected_kernels_fit(summit ? kSummitCases : cases, [](const std::string& name, const GemmCase& c, const Gpu& gpu) {
            const Step4Kernel* k = find_kernel(kKernels, name);
            return k ? k->why_not(c, gpu) : std::string();
        }))
        return EXIT_CHECK_FAILED;

    const bool lesson_run = !summit && !mma_peak_run && !read_floor_run && !opt.has_shape && opt.kernels.empty();  // part 1 is the lesson's alone
    if (lesson_run) {
        std::printf("== 1. the compensation formula, on the CPU ==\n");
        demonstrate_compensation(opt.seed);
        std::printf("\n");
    }
    if (lesson_run) std::printf("== 2. the kernels ==\n");
    Gpu gpu = open_gpu(/*measure_bandwidth=*/!opt.check_only);
    if (!gpu.available) {
        std::printf("SKIP step4_w4a8: no usable CUDA device; %s\n", summit           ? "the summit needs one"
                                                                : mma_peak_run || read_floor_run ? "the microbenchmark needs one"
                                                                : lesson_run   ? "part 1 ran, no kernel did"
                                                                               : "no kernel ran");
        return EXIT_NO_GPU;
    }
    print_run_header(gpu, opt);
    if (mma_peak_run) return mma_peak::run(gpu, opt) ? finish_run(true) : EXIT_NO_GPU;
    if (read_floor_run) return finish_run(run_read_floor(gpu, opt));
    if (summit) return finish_run(run_summit(gpu, opt));
    return finish_run(all_passed(run_cases(cases, [&](const GemmCase& c) { return run_case(gpu, opt, c); })));
}
