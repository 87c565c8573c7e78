// Step 3: W4A16, 4-bit weights times 16-bit activations, dequantized in registers.
//
// What it teaches: when a model decodes one token at a time, every weight is read from memory
// for a handful of multiply-adds, so the time is the bytes of the weights. 4-bit weights are 4x
// fewer bytes than fp16; the work is to turn them back into numbers inside the kernel, for free.
// The program
//   1. compares the formats on the CPU: the quantization error of Q4_0 (ggml's blocks of 32,
//      symmetric), group-128 asymmetric INT4 (GPTQ/AWQ style) and W8 per row, on normal data and
//      on data with outliers; then shows the 0x6400 trick that turns a nibble into fp16;
//   2. runs a ladder of kernels (kernels/01..04): naive and shared-memory tiled (Q4_0 x FP32),
//      a decoding GEMV for Q4_0, group-128 and W8, and a tensor-core kernel for group-128 that
//      serves every M, beside cuBLAS HGEMM (fp16 weights) and SGEMM (FP32) in the same run;
//   3. checks each kernel against a CPU product of the same dequantized weights and the same
//      (fp16-rounded) activations: the kernel error, at rounding level. Beside it, the
//      quantization error: the output's NMSE against the FP32 product of unquantized matrices.
//   --sweep: our best W4A16 kernel against HGEMM for M = 1 ... 512 at two shapes.
//
// Build and run:   make step3          (or: build/step3_w4a16 [--m M --n N --k K] [--kernel NAME] [--sweep])
// Look for:        the GEMVs' GB/s against the HBM line at M = 1; "%hgemm" down the sweep.
#include "../common/common.cuh"
#include "../common/cublas_baseline.cuh"
#include "../common/kernel_spec.h"
#include "../common/q4_0_layout.cuh"
#include "../common/read_floor.cuh"
#include "../common/reference_gemm.h"
#include "canaries.cuh"
#include "exercises/ex1_w8_per_row.cuh"
#include "exercises/ex2_g128_gemv_words.cuh"
#include "exercises/solutions/ex1_w8_per_row.cuh"
#include "exercises/solutions/ex2_g128_gemv_words.cuh"
#include "format_comparison.h"
#include "kernels/01_naive.cuh"
#include "kernels/02_smem_tiled.cuh"
#include "kernels/03_gemv.cuh"
#include "kernels/04_mma_g128.cuh"
#include "kernels/05_gemv_resident.cuh"
#include "kernels/06_gemv_mma.cuh"
#include "kernels/07_wgmma_g128.cuh"
#include "kernels/08_auto_g128.cuh"
#include "kernels/09_gemv_tma.cuh"
#include "w4a16_formats.h"
#include "w4a16_layout.cuh"

#include <cuda_fp16.h>

#include <map>
#include <memory>

// ---------------------------------------------------------------------------------------------
// Part 1: the formats and their error
// ---------------------------------------------------------------------------------------------

// The formats' error (the arithmetic: format_comparison.h).
void compare_formats(uint64_t seed) {
    std::printf("  weight NMSE (sum (deq - w)^2 / sum w^2) on a %lld x %lld matrix:\n", (long long)kComparisonRows,
                (long long)kComparisonCols);
    std::printf("    %-44s %8s %14s %14s\n", "format", "bits/w", "N(0,1)", "1/256 x20");
    for (const FormatError& r : compare_format_errors(seed))
        std::printf("    %-44s %8.3f %14.3e %14.3e\n", r.name, r.bits, r.nmse_normal, r.nmse_outliers);
}

// The trick, bit by bit, for one nibble.
void show_half_trick() {
    const int q = 5, z = 8;
    const HalfTrick t = half_trick(q, z);
    std::printf("  the 0x6400 trick: code q = %d, zero z = %d\n", q, z);
    std::printf("    0x6400 | q = 0x%04x = fp16 %.1f  (exponent 10: from 1024 to 2048 the last mantissa bit is worth 1)\n",
                t.bits, t.value);
    std::printf("    minus fp16 (1024 + z) = %.1f - %.1f = %.1f = q - z, exactly; one LOP3 and one HSUB2 do two codes\n",
                t.value, 1024.0f + z, t.minus_zero);
}

// ---------------------------------------------------------------------------------------------
// Part 2: the kernels
// ---------------------------------------------------------------------------------------------

const std::vector<GemmCase> kLessonCases = {
    {"decode, 1 token, LLaMA FFN N=4096 K=14336", 1, 4096, 14336, {"gemv_resident_g128", "gemv_mma_g128"}},
    {"decode, 4 tokens, N=4096 K=14336", 4, 4096, 14336, {"gemv_mma_q4_0", "gemv_mma_g128"}},
    {"prompt of 512 tokens, N=K=4096", 512, 4096, 4096, {"mma_g128", "wgmma_g128", "wgmma_q4_0"}},
};

// What a kernel reads: the weight format and the activation precision. Each pair has its own
// CPU reference (the same dequantized weights times the same activations). Q4_0Rounded is Q4_0 with
// each weight rounded to fp16, fp16((q - 8)·d), as the Hopper rung multiplies it (07, Q4_0Stage).
enum class Weights { Q4_0, G128, W8, F16, F32, Q4_0Rounded };
constexpr int kWeightForms = (int)Weights::Q4_0Rounded + 1;  // how many: Q4_0Rounded is the last
enum class Acts { F32, F16 };

// A kernel's table row says which of them it reads (common/kernel_spec.h).
struct W4A16Reads {
    Weights weights;
    Acts acts;
};
using Step3Kernel = KernelSpec<void (*)(const W4A16Args&, cudaStream_t), W4A16Reads>;

constexpr W4A16Reads kQ4_0F32{Weights::Q4_0, Acts::F32}, kQ4_0F16{Weights::Q4_0, Acts::F16}, kG128F16{Weights::G128, Acts::F16},
    kW8F16{Weights::W8, Acts::F16}, kQ4_0RoundedF16{Weights::Q4_0Rounded, Acts::F16};

// The baselines are rows like the kernels: cuBLAS on the fp16 weights and activations with FP32
// accumulation (what a W4A16 kernel must beat), and SGEMM on the unquantized FP32 matrices.
// Their launchers read the W4A16Inputs that every row is handed (w4a16_layout.cuh).
void launch_cublas_hgemm(const W4A16Args& args, cudaStream_t s) {
    const W4A16Inputs& p = static_cast<const W4A16Inputs&>(args);
    const float one = 1.f, zero = 0.f;  // row-major as in common/cublas_baseline.cuh
    CUBLAS_CHECK(cublasGemmEx(cublas_on(s), CUBLAS_OP_T, CUBLAS_OP_N, p.N, p.M, p.K, &one, p.w_f16, CUDA_R_16F, p.K, p.a_f16,
                              CUDA_R_16F, p.K, &zero, p.c, CUDA_R_32F, p.N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}
void launch_cublas_sgemm(const W4A16Args& args, cudaStream_t s) {
    const W4A16Inputs& p = static_cast<const W4A16Inputs&>(args);
    cublas_sgemm_rowmajor(cublas_on(s), p.a_f32, p.w_f32, p.c, p.M, p.N, p.K);
}
using wgmma_g128::G128Stage;
using wgmma_g128::Q4_0Stage;
using wgmma_g128::WgmmaVariant;

const char* const kCublasHgemm = "cublas_hgemm";
const char* const kCublasSgemm = "cublas_sgemm";

const std::vector<Step3Kernel> kKernels = {
    {{"naive", "01 thread per output, Q4_0 x FP32, dequantize in the inner loop"}, launch_w4a16_naive, w4a16_naive_why_not, kQ4_0F32},
    {{"smem_tiled", "02 32x32 tile, Q4_0 dequantized once into shared memory, x FP32"}, launch_w4a16_smem_tiled,
     w4a16_smem_tiled_why_not, kQ4_0F32},
    {{"gemv_q4_0", "03 M<=8: warp per row, 16-byte loads, 0x6400 trick, Q4_0 x fp16"}, launch_w4a16_gemv<GemvQ4_0>,
     w4a16_gemv_why_not, kQ4_0F16},
    {{"gemv_g128", "03 the same GEMV for group-128 INT4"}, launch_w4a16_gemv<GemvG128>, w4a16_gemv_why_not, kG128F16},
    {{"gemv_w8", "03 the same GEMV for W8, one scale per row after the sum"}, launch_w4a16_gemv<GemvW8>, w4a16_gemv_why_not, kW8F16},
    {{"mma_g128", "04 tensor cores: repacked group-128, mma.sync m16n8k16, cp.async pipeline"}, launch_w4a16_mma_g128,
     w4a16_mma_g128_why_not, kG128F16, {80}, Pipe::Fp16Tensor},
    {{"gemv_resident_q4_0", "05 M<=2: activations in registers, a CTA spans K, rows stream past"},
     launch_w4a16_gemv_resident<GemvQ4_0>, w4a16_gemv_resident_why_not, kQ4_0F16},
    {{"gemv_resident_g128", "05 the same for group-128 INT4"}, launch_w4a16_gemv_resident<GemvG128>, w4a16_gemv_resident_why_not,
     kG128F16},
    {{"gemv_mma_q4_0", "06 M<=8: tensor cores for decoding, repacked Q4_0 straight into mma fragments, tokens as columns"},
     launch_w4a16_gemv_mma_q4_0, w4a16_gemv_mma_q4_0_why_not, kQ4_0F16, {80}, Pipe::Fp16Tensor},
    {{"gemv_mma_g128", "06 the same for group-128 INT4 (04's repacked weights)"}, launch_w4a16_gemv_mma, w4a16_gemv_mma_why_not,
     kG128F16, {80}, Pipe::Fp16Tensor},
    {{"wgmma_g128", "07 Hopper: group-128 dequantized in registers into wgmma, activations by TMA, a copy warp and mbarriers"},
     launch_w4a16_wgmma<G128Stage>, w4a16_wgmma_g128_why_not, kG128F16, kWgmmaArch, Pipe::Fp16Tensor},
    {{"wgmma_q4_0", "07 the same for Q4_0, each weight rounded to fp16 as llama.cpp's dequantize-then-cuBLAS path does"},
     launch_w4a16_wgmma<Q4_0Stage>, w4a16_wgmma_q4_0_why_not, kQ4_0RoundedF16, kWgmmaArch, Pipe::Fp16Tensor},
    {{"wgmma_g128_overlap", "07 the same, each warpgroup dequantizing its next stage while its wgmmas run"},
     launch_w4a16_wgmma<G128Stage, WgmmaVariant::Overlap>, w4a16_wgmma_g128_why_not, kG128F16, kWgmmaArch, Pipe::Fp16Tensor},
    {{"wgmma_g128_pair", "07 the same, two CTAs of a cluster sharing their activations (TMA multicast)"},
     launch_w4a16_wgmma<G128Stage, WgmmaVariant::Pair>, w4a16_wgmma_g128_why_not, kG128F16, kWgmmaArch, Pipe::Fp16Tensor},
    {{"wgmma_g128_wide", "07 the same, 256-token tiles from M = 129 on (experiment)"},
     launch_w4a16_wgmma<G128Stage, WgmmaVariant::WideAlways>, w4a16_wgmma_g128_why_not, kG128F16, kWgmmaArch, Pipe::Fp16Tensor},
    {{"wgmma_g128_split", "07 the same, 64 rows x 256 tokens per CTA at every shape, its two warpgroups splitting K (experiment)"},
     launch_w4a16_wgmma<G128Stage, WgmmaVariant::SplitWarpgroups>, w4a16_wgmma_g128_why_not, kG128F16, kWgmmaArch, Pipe::Fp16Tensor},
    {{"auto_g128", "08 one entry point: 06, 04 or 07 chosen by M and by the code this GPU runs"}, launch_w4a16_auto_g128,
     w4a16_auto_g128_why_not, kG128F16, {80}, Pipe::Fp16Tensor},
    {{"gemv_tma_q4_0", "09 M<=8, sm_90: 06 fed by the copy engine, a ring of bulk copies in shared memory"},
     launch_w4a16_gemv_tma_q4_0, w4a16_gemv_tma_q4_0_why_not, kQ4_0F16, kBulkCopyArch, Pipe::Fp16Tensor},
    {{"gemv_tma_g128", "09 the same for group-128 INT4"}, launch_w4a16_gemv_tma_g128, w4a16_gemv_tma_g128_why_not, kG128F16,
     kBulkCopyArch, Pipe::Fp16Tensor},
    {{kCublasHgemm, "cuBLAS GEMM on fp16 weights and activations, FP32 accumulation: the baseline"}, launch_cublas_hgemm,
     runs_any_shape, {Weights::F16, Acts::F16}, {}, Pipe::Fp16Tensor},
    {{kCublasSgemm, "cuBLAS SGEMM on the unquantized FP32 matrices"}, launch_cublas_sgemm, runs_any_shape, {Weights::F32, Acts::F32}},
    {{"canary_ignore_zero", "group-128 read as q*s: the zero point forgotten", KernelRole::Canary},
     launch_w4a16_canary<G128Canary::IgnoreZero>, w4a16_naive_why_not, kG128F16},
    {{"canary_skip_last_group", "stops one group of 128 early", KernelRole::Canary}, launch_w4a16_canary<G128Canary::SkipLastGroup>,
     w4a16_naive_why_not, kG128F16},
    {{"canary_fp32_weights", "(q - z)*s in FP32, not rounded to fp16 as the format says", KernelRole::Canary},
     launch_w4a16_canary<G128Canary::Fp32Weights>, w4a16_naive_why_not, kG128F16},
    {{"ex1", "exercise 1: W8 per row, thread per output, the scale after the sum", KernelRole::Exercise, "gemv_w8",
      "step3_w4a16/exercises/ex1_w8_per_row.cuh", kEx1Written},
     launch_w4a16_ex1, w4a16_naive_why_not, kW8F16},
    {{"ex1_solution", "solution of exercise 1", KernelRole::Solution, "gemv_w8"}, launch_w4a16_ex1_solution, w4a16_naive_why_not,
     kW8F16},
    {{"ex2", "exercise 2: group-128 GEMV, a word per lane, the 0x6400 trick", KernelRole::Exercise, "gemv_g128",
      "step3_w4a16/exercises/ex2_g128_gemv_words.cuh", kEx2Written},
     launch_w4a16_ex2, w4a16_ex2_why_not, kG128F16},
    {{"ex2_solution", "solution of exercise 2", KernelRole::Solution, "gemv_g128"}, launch_w4a16_ex2_solution, w4a16_ex2_why_not,
     kG128F16},
};

// Kernel error: |got - ref| / sum_k |a w| against the same weights and activations in float64.
// With fp16 activations every product is exact in FP32 (a 4- or 8-bit code times an 11-bit fp16
// significand); the FP32-activation rungs (01, 02) round each product once, which adds as little.
// What remains is FP32 summation order: ~1e-7. Leaving out one group of 128 at K = 4096 is ~1e-2,
// the FP32 instead of the fp16-rounded weight ~1e-5 (canary_fp32_weights; test_w4a16_cpu checks
// on the CPU that it fails). The tolerance is step 1's, kSumOrderTolerance (check.h).

// Why a kernel cannot run a case ("" when it can): what it reads, then the kernel itself. Group-128
// weights exist only for K a multiple of 128.
std::string kernel_why_not(const Step3Kernel& k, const GemmCase& c, const Gpu& gpu) {
    if (k.reads.weights == Weights::G128 && c.K % kGroupSize != 0) return "group-128: K must be a multiple of 128";
    return k.why_not(c, gpu);
}

// Bytes one launch must read at least: its weights, its activations, and the output written.
double weight_bytes(Weights w, int64_t N, int64_t K) {
    switch (w) {
        case Weights::Q4_0:
        case Weights::Q4_0Rounded: return (double)N * K / QK4_0 * sizeof(block_q4_0);
        case Weights::G128: return (double)N * K / 2 + (double)N * K / kGroupSize * 3;
        case Weights::W8: return (double)N * K + 2.0 * N;
        case Weights::F16: return 2.0 * N * K;
        default: return 4.0 * N * K;
    }
}
Workload workload(Weights w, Acts a, int64_t M, int64_t N, int64_t K) {
    return {2.0 * M * N * K, weight_bytes(w, N, K) + (a == Acts::F32 ? 4.0 : 2.0) * M * K + 4.0 * M * N};
}

// The host copies of one case, and the references, computed when a kernel first needs them.
struct HostProblem {
    int64_t M, N, K;
    std::vector<float> A, W;   // unquantized FP32
    std::vector<ggml_half> A16;
    std::vector<block_q4_0> q4;
    G128Weights g128;
    W8Weights w8;
    std::vector<int64_t> rows;  // the rows of C that are checked
    std::map<std::pair<Weights, Acts>, std::unique_ptr<ReferenceRows>> refs;
    std::unique_ptr<ReferenceRows> truth;

    const ReferenceRows& reference(Weights w, Acts a) {
        auto& slot = refs[{w, a}];
        if (!slot) {
            const std::vector<float> acts = a == Acts::F32 ? A : from_fp16(A16);
            const std::vector<float> weights = w == Weights::Q4_0      ? dequantize_q4_0_rows(q4, N, K)
                                               : w == Weights::Q4_0Rounded ? from_fp16(to_fp16(dequantize_q4_0_rows(q4, N, K)))
                                               : w == Weights::G128    ? dequantize_g128(g128)
                                               : w == Weights::W8      ? dequantize_w8(w8)
                                               : w == Weights::F16     ? from_fp16(to_fp16(W))
                                                                       : W;
            slot = std::make_unique<ReferenceRows>(reference_gemm(acts.data(), weights.data(), M, N, K, rows));
        }
        return *slot;
    }
    const ReferenceRows& unquantized() {
        if (!truth) truth = std::make_unique<ReferenceRows>(reference_gemm(A.data(), W.data(), M, N, K, rows));
        return *truth;
    }
};

// Everything one case keeps on the device, the inputs in `copies` copies (cold L2). A buffer is
// allocated only when a kernel that reads it runs.
struct DeviceProblem {
    int copies = 1;
    int64_t M, N, K;
    DeviceBuffer<float> a_f32, w_f32;
    DeviceBuffer<ggml_half> a_f16, w_f16;  // fp16 bits
    DeviceBuffer<block_q4_0> q4_blocks;
    DeviceBuffer<uint8_t> q4_qs;
    DeviceBuffer<ggml_half> q4_d, g128_s, w8_s;
    DeviceBuffer<uint32_t> g128_q, mma_words, mma_scales, block_words, block_scales, q4_mma_words, q4_mma_scales, q4_block_words,
        q4_block_scales;
    DeviceBuffer<uint8_t> g128_z;
    DeviceBuffer<int8_t> w8_q;
    DeviceBuffer<float> c;

    template <class T>
    const T* copy(const DeviceBuffer<T>& b, int i) const {
        return rotated_copy(b, copies, i);
    }
    W4A16Inputs args(int i) const {
        W4A16Inputs a;
        a.a_f32 = copy(a_f32, i), a.a_f16 = reinterpret_cast<const __half*>(copy(a_f16, i));
        a.q4_blocks = copy(q4_blocks, i), a.q4_qs = copy(q4_qs, i), a.q4_d = copy(q4_d, i);
        a.g128_q = copy(g128_q, i), a.g128_s = copy(g128_s, i), a.g128_z = copy(g128_z, i);
        a.mma_words = copy(mma_words, i), a.mma_scales = copy(mma_scales, i);
        a.block_words = copy(block_words, i), a.block_scales = copy(block_scales, i);
        a.q4_mma_words = copy(q4_mma_words, i), a.q4_mma_scales = copy(q4_mma_scales, i);
        a.q4_block_words = copy(q4_block_words, i), a.q4_block_scales = copy(q4_block_scales, i);
        a.w8_q = copy(w8_q, i), a.w8_s = copy(w8_s, i);
        a.w_f16 = reinterpret_cast<const __half*>(copy(w_f16, i)), a.w_f32 = copy(w_f32, i);
        a.c = c.get(), a.M = (int)M, a.N = (int)N, a.K = (int)K;
        return a;
    }
};

std::vector<ResultRow> run_case(const Gpu& gpu, const Options& opt, const GemmCase& c) {
    std::printf("\n== %s: M=%lld N=%lld K=%lld ==\n", c.name.c_str(), (long long)c.M, (long long)c.N, (long long)c.K);
    std::vector<const Step3Kernel*> kernels;
    bool need[kWeightForms] = {}, need_a32 = false, need_a16 = false;
    for (const auto& k : kKernels)
        if (opt.wants(k.info)) {
            kernels.push_back(&k);
            need[(int)k.reads.weights] = true;
            (k.reads.acts == Acts::F32 ? need_a32 : need_a16) = true;
        }

    // Cold L2 sized by the smallest thing a launch reads (a 4-bit matrix): bigger ones are colder.
    double smallest = INFINITY, per_copy = 0;
    for (int w = 0; w < kWeightForms; ++w)
        if (need[w]) {
            const bool repacked = w == (int)Weights::Q4_0 || w == (int)Weights::G128 || w == (int)Weights::Q4_0Rounded;
            smallest = std::min(smallest, weight_bytes((Weights)w, c.N, c.K));
            per_copy += weight_bytes((Weights)w, c.N, c.K) * (repacked ? 3 : 1);
        }
    per_copy += (need_a32 ? 4.0 : 0.0) * c.M * c.K + (need_a16 ? 2.0 : 0.0) * c.M * c.K;
    const L2Rotation rot = plan_l2_rotation(gpu, (size_t)smallest + 2 * c.M * c.K, !opt.check_only);
    require_device_memory(gpu, (size_t)(rot.copies * per_copy) + c.M * c.N * 4);

    HostProblem h;
    h.M = c.M, h.N = c.N, h.K = c.K;
    h.A.resize(c.M * c.K);
    h.W.resize(c.N * c.K);
    fill_normal(h.A, opt.seed, /*stream_id=*/1);
    fill_normal(h.W, opt.seed, /*stream_id=*/2);
    h.A16 = to_fp16(h.A);
    h.rows = reference_row_choice(c.M, c.N, c.K);

    DeviceProblem d;
    d.copies = rot.copies;
    d.M = c.M, d.N = c.N, d.K = c.K;
    if (need_a32) d.a_f32 = upload_rotated(h.A, rot.copies);
    if (need_a16) d.a_f16 = upload_rotated(h.A16, rot.copies);
    const bool q4_exact = need[(int)Weights::Q4_0], q4_rounded = need[(int)Weights::Q4_0Rounded];
    if (q4_exact || q4_rounded) h.q4 = quantize_rows_q4_0(h.W, c.N, c.K);
    if (q4_exact) {
        const Q4_0Repacked r = repack_q4_0(h.q4);
        d.q4_blocks = upload_rotated(h.q4, rot.copies);
        d.q4_qs = upload_rotated(r.qs, rot.copies);
        d.q4_d = upload_rotated(r.d, rot.copies);
    }
    if ((q4_exact || q4_rounded) && c.K % kMmaChunkK == 0) {  // the mma repack, once for both
        const Q4_0MmaLayout16 m = repack_q4_0_for_mma16(h.q4, c.N, c.K);
        if (q4_exact) {
            d.q4_mma_words = upload_rotated(m.words, rot.copies);
            d.q4_mma_scales = upload_rotated(m.scales, rot.copies);
        }
        if (q4_rounded) {
            const Q4_0MmaLayout16 b = order_q4_0_by_row_block(m);
            d.q4_block_words = upload_rotated(b.words, rot.copies);
            d.q4_block_scales = upload_rotated(b.scales, rot.copies);
        }
    }
    if (need[(int)Weights::G128] && c.K % kGroupSize == 0) {
        h.g128 = quantize_g128(h.W, c.N, c.K);
        const G128MmaLayout r = repack_g128_for_mma(h.g128);
        d.g128_q = upload_rotated(h.g128.q, rot.copies);
        d.g128_s = upload_rotated(h.g128.scale, rot.copies);
        d.g128_z = upload_rotated(h.g128.zero, rot.copies);
        d.mma_words = upload_rotated(r.words, rot.copies);
        d.mma_scales = upload_rotated(r.scales, rot.copies);
        const G128MmaLayout b = order_g128_by_row_block(r);
        d.block_words = upload_rotated(b.words, rot.copies);
        d.block_scales = upload_rotated(b.scales, rot.copies);
    }
    if (need[(int)Weights::W8]) {
        h.w8 = quantize_w8_per_row(h.W, c.N, c.K);
        d.w8_q = upload_rotated(h.w8.q, rot.copies);
        d.w8_s = upload_rotated(h.w8.scale, rot.copies);
    }
    if (need[(int)Weights::F16]) d.w_f16 = upload_rotated(to_fp16(h.W), rot.copies);
    if (need[(int)Weights::F32]) d.w_f32 = upload_rotated(h.W, rot.copies);
    d.c = DeviceBuffer<float>(c.M * c.N);
    // The activations once more, apart: the checked runs get them late (deliver_late in
    // common/driver.cuh), so that a kernel launched as a programmatic dependent (04, 06, 07, 09)
    // fails unless it waits first.
    const DeviceBuffer<float> a_f32_late = need_a32 ? upload_rotated(h.A, 1) : DeviceBuffer<float>();
    const DeviceBuffer<ggml_half> a_f16_late = need_a16 ? upload_rotated(h.A16, 1) : DeviceBuffer<ggml_half>();
    std::printf("reference: float64 on %u CPU threads, %s\n", reference_threads(),
                describe_rows(ReferenceRows{h.rows, {}, {}, (int64_t)h.rows.size() < c.M}, c.M).c_str());
    if (!opt.check_only) print_l2_rotation(rot, gpu);

    auto download_rows = [&] { return gather_rows(d.c.to_host(), c.N, h.rows); };
    std::vector<ResultRow> rows;
    for (const Step3Kernel* k : kernels) {
        KernelRun run = kernel_run_for(k->info);
        run.arch = k->arch;
        run.pipe = k->pipe;
        run.unsupported = kernel_why_not(*k, c, gpu);
        run.must_run = c.expects(k->info.name);
        run.launch = [&, launch = k->launch](int i) { launch(d.args(i), gpu.stream); };
        run.poison_output = [&](uint8_t pattern) { poison(d.c.get(), d.c.bytes(), pattern, gpu.stream); };
        run.late_inputs = [&, acts = k->reads.acts] {
            if (acts == Acts::F32) deliver_late({{d.a_f32.get(), a_f32_late.get(), a_f32_late.bytes()}}, gpu.stream);
            else deliver_late({{d.a_f16.get(), a_f16_late.get(), a_f16_late.bytes()}}, gpu.stream);
        };
        run.check = [&, name = k->info.name, reads = k->reads] {
            const ReferenceRows& ref = h.reference(reads.weights, reads.acts);
            const std::vector<float> got = download_rows();
            return check_close(name.c_str(), got.data(), ref.c.data(), got.size(),
                               Tolerance{0.0, kSumOrderTolerance, ref.abs_sum.data()}, c.N);
        };
        run.quantization_nmse = [&] { return nmse(download_rows(), h.unquantized().c); };
        run.error_metric = "err/sum|aw|";
        rows.push_back(evaluate_kernel(gpu, opt, run, workload(k->reads.weights, k->reads.acts, c.M, c.N, c.K)));
    }
    print_table(rows, "naive", {kCublasHgemm, kCublasSgemm});
    append_csv(opt.csv_path, "step3_w4a16", c.name, c.M, c.N, c.K, rows, gpu, l2_state(rot, opt.check_only));
    return rows;
}

// ---------------------------------------------------------------------------------------------
// The batch sweep
// ---------------------------------------------------------------------------------------------

const std::vector<int64_t> kSweepM = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
const std::vector<std::pair<int64_t, int64_t>> kSweepShapes = {{4096, 4096}, {4096, 14336}};

bool run_sweep(const Gpu& gpu, Options opt) {
    opt.kernels = {"gemv_g128", "gemv_resident_g128", "gemv_mma_g128", "gemv_tma_g128", "mma_g128", "wgmma_g128", kCublasHgemm};
    std::vector<GemmCase> cases;
    for (const auto& [N, K] : kSweepShapes)
        for (int64_t M : kSweepM) cases.push_back(GemmCase{"sweep M=" + std::to_string(M), M, N, K});
    const std::vector<CaseRows> results = run_cases(cases, [&](const GemmCase& c) { return run_case(gpu, opt, c); });

    std::printf("\n== the sweep: our best W4A16 kernel (group-128) against cuBLAS HGEMM (fp16 weights) ==\n");
    std::printf("  %6s %6s %6s  %-18s %10s %10s %9s %10s %10s  %s\n", "M", "N", "K", "ours", "ours(us)", "hgemm(us)", "speedup",
                "ours GB/s", "ours TFLOPS", "auto_g128 picks");
    for (const auto& [c, rows] : results) {
        const ResultRow* best = nullptr;
        for (const auto& r : rows)
            if (r.kernel != kCublasHgemm && r.status == Status::Pass && std::isfinite(r.time_ms) && (!best || r.time_ms < best->time_ms))
                best = &r;
        const ResultRow* hgemm = find_timed_row(rows, kCublasHgemm);
        const G128Kernel picked = choose_g128_kernel(c, gpu);
        std::printf("  %6lld %6lld %6lld  %-18s %10s %10s %9s %10s %10s  %s\n", (long long)c.M, (long long)c.N, (long long)c.K,
                    best ? best->kernel.c_str() : "-", fmt_or_dash(best ? best->time_ms * 1e3 : NAN, "%.1f").c_str(),
                    fmt_or_dash(hgemm ? hgemm->time_ms * 1e3 : NAN, "%.1f").c_str(),
                    fmt_or_dash(best && hgemm ? hgemm->time_ms / best->time_ms : NAN, "%.2fx").c_str(),
                    fmt_or_dash(best ? best->gbps : NAN, "%.0f").c_str(), fmt_or_dash(best ? best->tera_ops : NAN, "%.1f").c_str(),
                    picked.name);
    }
    return all_passed(results);
}

// The read floor under decoding (step4_w4a8/README.md, "The floor under decoding"): the weights of the
// sweep's two matrices, in both formats, streamed with no math. Step 3 has no quantizer before its
// kernels, so only the read alone is timed.
bool run_read_floor(const Gpu& gpu, const Options& opt) {
    std::vector<read_floor::FloorCase> cases;
    for (const auto& [N, K] : kSweepShapes)
        for (Weights w : {Weights::G128, Weights::Q4_0})
            cases.push_back({std::string(w == Weights::G128 ? "group-128" : "Q4_0") + " weights N=" + std::to_string(N) + " K=" +
                                 std::to_string(K),
                             (size_t)weight_bytes(w, N, K)});
    return read_floor::run(gpu, opt, cases);
}

int main(int argc, char** argv) {
    ProgramInfo info{"step3_w4a16", "W4A16: 4-bit weights x fp16 activations, dequantized in registers, GEMV to tensor cores",
                     "step3_w4a16 --m 1 --n 4096 --k 14336 --kernel gemv_g128,mma_g128,cublas_hgemm", QK4_0, {},
                     {{"sweep", false, "our best W4A16 kernel against HGEMM for M = 1..512, N = 4096, K = 4096 and 14336"},
                      {"read-floor", false, "a microbenchmark: the sweep's weights read with no math, a floor under decoding"}}};
    for (const auto& k : kKernels) info.kernels.push_back(k.info);
    const Options opt = parse_options(argc, argv, info);
    const bool sweep = opt.has("sweep"), read_floor_run = opt.has("read-floor");
    if (sweep && (opt.has_shape || !opt.kernels.empty()))
        usage_error("--sweep runs its own shapes and kernels; leave out --m/--n/--k and --kernel");
    if (read_floor_run && (sweep || opt.has_shape || !opt.kernels.empty() || opt.check_only))
        usage_error("--read-floor times one microbenchmark of its own; leave out --sweep, --m/--n/--k, --kernel and --check-only");
    const std::vector<GemmCase> cases = cases_to_run(opt, kLessonCases);
    if (!expected_kernels_fit(sweep ? std::vector<GemmCase>{} : cases, [](const std::string& name, const GemmCase& c, const Gpu& gpu) {
            const Step3Kernel* k = find_kernel(kKernels, name);
            return k ? kernel_why_not(*k, c, gpu) : std::string();
        }))
        return EXIT_CHECK_FAILED;

    const bool lesson_run = !sweep && !read_floor_run && !opt.has_shape && opt.kernels.empty();  // part 1 is the lesson's alone
    if (lesson_run) {
        std::printf("== 1. the formats and their error, on the CPU ==\n");
        compare_formats(opt.seed);
        show_half_trick();
        std::printf("\n");
    }
    if (lesson_run) std::printf("== 2. the kernels ==\n");
    Gpu gpu = open_gpu(/*measure_bandwidth=*/!opt.check_only);
    if (!gpu.available) {
        std::printf("SKIP step3_w4a16: no usable CUDA device; %s\n", sweep ? "the sweep needs one" : read_floor_run ? "the microbenchmark needs one" : lesson_run ? "part 1 ran, no kernel did" : "no kernel ran");
        return EXIT_NO_GPU;
    }
    print_run_header(gpu, opt);
    if (sweep) return finish_run(run_sweep(gpu, opt));
    if (read_floor_run) return finish_run(run_read_floor(gpu, opt));
    return finish_run(all_passed(run_cases(cases, [&](const GemmCase& c) { return run_case(gpu, opt, c); })));
}
