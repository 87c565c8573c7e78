// Step 1: FP32 GEMM and GEMV, from a naive kernel to cuBLAS speed.
//
// What it teaches: C[M,N] = A[M,K] * W[N,K]^T (llama.cpp's convention: A holds M tokens, W holds
// N weight rows of length K), computed by a ladder of kernels in kernels/01_...10_..., each one
// optimization over its neighbour, checked against a double-precision CPU reference and timed
// against cuBLAS in the same run.
//
// Build and run:   make step1            (or: build/step1_fp32 [--m M --n N --k K] [--kernel NAME])
// Look for:        the "x naive" column (what each idea bought), "%cublas" (how close the ladder
//                  gets), and on the M = 1 cases GB/s against the measured HBM bandwidth: there
//                  the roofline is memory, not arithmetic.
#include "../common/common.cuh"
#include "../common/cublas_baseline.cuh"
#include "../common/kernel_spec.h"
#include "../common/reference_gemm.h"

#include "exercises/ex1_row_blocking.cuh"
#include "exercises/ex2_gemv_warp.cuh"
#include "exercises/solutions/ex1_row_blocking.cuh"
#include "exercises/solutions/ex2_gemv_warp.cuh"
#include "kernels/01_naive.cuh"
#include "kernels/02_coalesced.cuh"
#include "kernels/03_smem_tiling.cuh"
#include "kernels/04_blocktile_1d.cuh"
#include "kernels/05_blocktile_2d.cuh"
#include "kernels/06_vectorized.cuh"
#include "kernels/07_warptiling.cuh"
#include "kernels/08_double_buffered.cuh"
#include "kernels/09_gemv_warp_rows.cuh"
#include "kernels/10_gemv_split_k.cuh"
#include "canaries.cuh"

// Tile shapes (BM, BN, BK, warps along M, warps along N), chosen by measurement on the H200.
using WarpTileShape = warptiling::WarpTileConfig<128, 128, 8, 4, 2>;       // 07
using PipelinedTileShape = warptiling::WarpTileConfig<128, 128, 16, 4, 2>; // 08

// ---------------------------------------------------------------------------------------------
// The cases and the kernels
// ---------------------------------------------------------------------------------------------

const std::vector<GemmCase> kLessonCases = {
    {"single token N=K=4096", 1, 4096, 4096, {"gemv_warp_rows", "gemv_split_k"}},
    {"single token LLaMA FFN K=14336", 1, 4096, 14336, {"gemv_warp_rows"}},
    {"prompt of 512 tokens N=K=4096", 512, 4096, 4096, {"warptiling", "double_buffered"}},
};

// Everything a kernel needs: A [M,K], W [N,K] (one of the rotated copies), C [M,N].
struct GemmBuffers {
    const float* A;
    const float* W;
    float* C;
    int M, N, K;
};

using GemmLauncher = void (*)(const float*, const float*, float*, int, int, int, cudaStream_t);

// Every step-1 kernel reads the FP32 A and W: its row has nothing to say about inputs.
struct Fp32Inputs {};
using Step1Kernel = KernelSpec<GemmLauncher, Fp32Inputs>;

// The exercises' limits (their files are the learner's: the table says them here).
std::string ex1_why_not(const GemmCase& c, const Gpu&) { return grid_limit_reason('y', ceil_div(c.M, ex1::kTile)); }
std::string ex2_why_not(const GemmCase& c, const Gpu&) { return c.M == 1 ? "" : "GEMV: needs M = 1"; }

// The GEMV kernels take the GEMM signature so one table drives them all (M is 1 for them).
void launch_gemv_warp_rows_gemm(const float* A, const float* W, float* C, int, int N, int K, cudaStream_t s) {
    launch_gemv_warp_rows(A, W, C, N, K, s);
}
void launch_gemv_split_k_gemm(const float* A, const float* W, float* C, int, int N, int K, cudaStream_t s) {
    launch_gemv_split_k(A, W, C, N, K, current_sm_count(), s);
}

// The baseline is a row like the others: cuBLAS SGEMM on the same matrices, true FP32.
void launch_cublas_sgemm(const float* A, const float* W, float* C, int M, int N, int K, cudaStream_t s) {
    cublas_sgemm_rowmajor(cublas_on(s), A, W, C, M, N, K);
}
const char* const kCublasName = "cublas_sgemm";

const std::vector<Step1Kernel> kKernels = {
    {{"naive", "01 one thread per output, straight from global memory"}, launch_gemm_naive, gemm_naive_why_not},
    {{"coalesced", "02 one warp per output, lanes along K: coalesced loads, no reuse"}, launch_gemm_coalesced, runs_any_shape},
    {{"smem_tiling", "03 32x32 tiles staged in shared memory"}, launch_gemm_smem_tiling, gemm_smem_tiling_why_not},
    {{"blocktile_1d", "04 each thread computes 8 outputs of a column"}, launch_gemm_blocktile_1d, gemm_blocktile_1d_why_not},
    {{"blocktile_2d", "05 each thread computes an 8x8 patch (outer products)"}, launch_gemm_blocktile_2d, gemm_blocktile_2d_why_not},
    {{"vectorized", "06 float4 loads from global and shared memory"}, launch_gemm_vectorized, gemm_vectorized_why_not},
    {{"warptiling", "07 warp-level sub-tiles, 4x8 lane grid"}, launch_gemm_warptiling<WarpTileShape>,
     gemm_warptiling_why_not<WarpTileShape>},
    {{"double_buffered", "08 next tile loads overlap this tile's math, BK=16"}, launch_gemm_double_buffered<PipelinedTileShape>,
     gemm_double_buffered_why_not<PipelinedTileShape>},
    {{"gemv_warp_rows", "09 M=1: warp per 2 rows, float4 streaming loads"}, launch_gemv_warp_rows_gemm, gemv_warp_rows_why_not},
    {{"gemv_split_k", "10 M=1: warps per row chosen to fill the GPU (small N)"}, launch_gemv_split_k_gemm, gemv_split_k_why_not},
    {{kCublasName, "cuBLAS SGEMM, FP32 (TF32 off): the baseline"}, launch_cublas_sgemm, runs_any_shape},
    {{"canary_skip_last_k_tile", "stops one 16-wide K tile early", KernelRole::Canary}, launch_gemm_canary<Canary::SkipLastKTile>,
     runs_any_shape},
    {{"canary_skip_one_store", "never writes C[M-1][N-1]", KernelRole::Canary}, launch_gemm_canary<Canary::SkipOneStore>,
     runs_any_shape},
    {{"canary_store_twice", "writes C[M-1][N-2]'s value into C[M-1][N-1] too", KernelRole::Canary},
     launch_gemm_canary<Canary::StoreTwice>, canary_store_twice_why_not},
    {{"canary_tf32_inputs", "rounds A and W to TF32 before multiplying", KernelRole::Canary}, launch_gemm_canary<Canary::Tf32Inputs>,
     runs_any_shape},
    {{"ex1", "exercise 1: register blocking along a row, 4 outputs per thread", KernelRole::Exercise, "smem_tiling",
      "step1_fp32/exercises/ex1_row_blocking.cuh", kEx1Written},
     launch_gemm_ex1, ex1_why_not},
    {{"ex1_solution", "solution of exercise 1", KernelRole::Solution, "smem_tiling"}, launch_gemm_ex1_solution, ex1_why_not},
    {{"ex2", "exercise 2: GEMV, one warp per row, shuffle reduction", KernelRole::Exercise, "gemv_warp_rows",
      "step1_fp32/exercises/ex2_gemv_warp.cuh", kEx2Written},
     launch_gemv_ex2, ex2_why_not},
    {{"ex2_solution", "solution of exercise 2", KernelRole::Solution, "gemv_warp_rows"}, launch_gemv_ex2_solution, ex2_why_not},
};

// ---------------------------------------------------------------------------------------------
// One case: data, reference, every selected kernel, the table
// ---------------------------------------------------------------------------------------------

// Error metric: |got - ref| / sum_k |A[m][k] W[n][k]| (see reference_gemm.h). A correct FP32
// kernel lands near 3e-7 on it, whatever K. Rounding the inputs to TF32, what tensor cores do in
// TF32 mode, is an order of magnitude more (--kernel canary_tf32_inputs prints it), and one
// missing product of a K = 4096 dot product is ~2e-4. The tolerance, kSumOrderTolerance (check.h),
// sits between; test_common checks on the CPU that TF32 inputs fail it.
const char* const kErrorMetric = "err/sum|aw|";

std::vector<ResultRow> run_case(const Gpu& gpu, const Options& opt, const GemmCase& c) {
    std::printf("\n== %s: M=%lld N=%lld K=%lld ==\n", c.name.c_str(), (long long)c.M, (long long)c.N, (long long)c.K);
    const size_t a_elems = c.M * c.K, w_elems = c.N * c.K, c_elems = c.M * c.N;
    const L2Rotation rot = plan_l2_rotation(gpu, (a_elems + w_elems) * sizeof(float), !opt.check_only);
    require_device_memory(gpu, (rot.copies * (a_elems + w_elems) + c_elems) * sizeof(float));

    std::vector<float> A(a_elems), W(w_elems);
    fill_normal(A, opt.seed, /*stream_id=*/1);
    fill_normal(W, opt.seed, /*stream_id=*/2);

    ReferenceRows ref = reference_gemm(A.data(), W.data(), c.M, c.N, c.K, reference_row_choice(c.M, c.N, c.K));
    std::printf("reference: float64 on %u CPU threads, %s\n", reference_threads(), describe_rows(ref, c.M).c_str());
    if (!opt.check_only) print_l2_rotation(rot, gpu);

    const DeviceBuffer<float> dA = upload_rotated(A, rot.copies), dW = upload_rotated(W, rot.copies);
    DeviceBuffer<float> dC(c_elems);
    auto buffers = [&](int i) {
        return GemmBuffers{rotated_copy(dA, rot.copies, i), rotated_copy(dW, rot.copies, i), dC.get(), (int)c.M, (int)c.N, (int)c.K};
    };

    const Workload work{2.0 * c.M * c.N * c.K, 4.0 * (a_elems + w_elems + c_elems)};
    std::vector<ResultRow> rows;
    for (const auto& k : kKernels) {
        if (!opt.wants(k.info)) continue;
        KernelRun run = kernel_run_for(k.info);
        run.unsupported = k.why_not(c, gpu);
        run.must_run = c.expects(k.info.name);
        run.launch = [&, launch = k.launch](int i) {
            const GemmBuffers b = buffers(i);
            launch(b.A, b.W, b.C, b.M, b.N, b.K, gpu.stream);
        };
        run.poison_output = [&](uint8_t pattern) { poison(dC.get(), dC.bytes(), pattern, gpu.stream); };
        run.check = [&, name = k.info.name] {
            const std::vector<float> got = gather_rows(dC.to_host(), c.N, ref.rows);
            return check_close(name.c_str(), got.data(), ref.c.data(), got.size(),
                               Tolerance{0.0, kSumOrderTolerance, ref.abs_sum.data()}, c.N);
        };
        run.error_metric = kErrorMetric;
        rows.push_back(evaluate_kernel(gpu, opt, run, work));
    }
    print_table(rows, "naive", {kCublasName});
    append_csv(opt.csv_path, "step1_fp32", c.name, c.M, c.N, c.K, rows, gpu, l2_state(rot, opt.check_only));
    return rows;
}

int main(int argc, char** argv) {
    ProgramInfo info{"step1_fp32", "FP32 GEMM/GEMV ladder, C = A * W^T, checked against a CPU reference and timed against cuBLAS",
                     "step1_fp32 --m 512 --n 4096 --k 4096 --kernel vectorized,double_buffered,cublas_sgemm", 1, {}, {}};
    for (const auto& k : kKernels) info.kernels.push_back(k.info);
    const Options opt = parse_options(argc, argv, info);
    const std::vector<GemmCase> cases = cases_to_run(opt, kLessonCases);
    if (!expected_kernels_fit(cases, [](const std::string& name, const GemmCase& c, const Gpu& gpu) {
            const Step1Kernel* k = find_kernel(kKernels, name);
            return k ? k->why_not(c, gpu) : std::string();
        }))
        return EXIT_CHECK_FAILED;

    Gpu gpu = open_gpu(/*measure_bandwidth=*/!opt.check_only);
    if (!gpu.available) {
        std::printf("SKIP step1_fp32: no usable CUDA device; the options were valid, no kernel ran\n");
        return EXIT_NO_GPU;
    }
    print_run_header(gpu, opt);

    const auto results = run_cases(cases, [&](const GemmCase& c) { return run_case(gpu, opt, c); });
    return finish_run(all_passed(results));
}
