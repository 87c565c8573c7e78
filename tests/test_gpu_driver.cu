// GPU unit tests of common/: the poison patterns, the per-kernel driver (both patterns, the
// architecture gate, a launcher's refusal, the setup and prepass hooks), and the tensor cores'
// outer product of scales (mma.cuh) for every pair of fp16 values. Exit 77 without a GPU. Ends with
// "N passed, M failed".
#include "common.cuh"
#include "mma.cuh"
#include "unit_test.h"

#include <cuda_fp16.h>

// Copies expected into out, except the elements equal to `skipped`: a kernel with a missing store.
__global__ void copy_all_but(float* out, const float* expected, int n, float skipped) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && expected[i] != skipped) out[i] = expected[i];
}

static void test_poison(const Gpu& gpu) {
    DeviceBuffer<float> d(1000);
    poison(d.get(), d.bytes(), 0xFF, gpu.stream);
    std::vector<float> h = d.to_host();
    EXPECT(std::all_of(h.begin(), h.end(), [](float v) { return std::isnan(v); }));
    poison(d.get(), d.bytes(), 0x00, gpu.stream);
    h = d.to_host();
    EXPECT(std::all_of(h.begin(), h.end(), [](float v) { return v == 0.f; }));
    EXPECT(sizeof(kPoisonPatterns) == 2 && kPoisonPatterns[0] != kPoisonPatterns[1]);
}

static void test_driver(const Gpu& gpu) {
    constexpr int n = 1000;
    std::vector<float> expected(n);
    for (int i = 0; i < n; ++i) expected[i] = i % 10 == 0 ? 0.f : (float)i;  // some correct values are 0
    const std::vector<double> ref(expected.begin(), expected.end());
    DeviceBuffer<float> out(n), dexp(n);
    dexp.upload(expected.data());
    int setups = 0, prepasses = 0;
    auto make_run = [&](float skipped) {
        KernelRun run;
        run.name = "unit";
        run.launch = [&, skipped](int) { copy_all_but<<<4, 256, 0, gpu.stream>>>(out.get(), dexp.get(), n, skipped); };
        run.poison_output = [&](uint8_t pattern) { poison(out.get(), out.bytes(), pattern, gpu.stream); };
        run.check = [&] {
            const std::vector<float> got = out.to_host();
            return check_close("unit", got.data(), ref.data(), n, Tolerance{0.0, 0.0}, 0, 0);
        };
        return run;
    };
    Options opt;
    opt.check_only = true;
    const Workload work{2.0 * n, 8.0 * n};
    EXPECT(evaluate_kernel(gpu, opt, make_run(-1.f), work).status == Status::Pass);
    // Missing stores of zeros: correct under poison 0x00, caught by 0xFF (the order does not matter).
    EXPECT(evaluate_kernel(gpu, opt, make_run(0.f), work).status == Status::Fail);
    EXPECT(evaluate_kernel(gpu, opt, make_run(5.f), work).status == Status::Fail);

    // The hooks run before every checked launch, one per poison pattern.
    KernelRun hooked = make_run(-1.f);
    hooked.setup = [&](int) { ++setups; };
    hooked.prepass = [&](int) { ++prepasses; };
    hooked.prepass_name = "a pre-pass";
    const ResultRow row = evaluate_kernel(gpu, opt, hooked, work);
    EXPECT(row.status == Status::Pass && setups == 2 && prepasses == 2 && row.note == "incl. a pre-pass");

    // Timed with an untimed setup: the time stays finite and the row says how it was taken.
    opt.check_only = false;
    opt.iters = 3;
    opt.warmup = 1;
    hooked.setup = [&](int) { CUDA_CHECK(cudaMemsetAsync(out.get(), 0, out.bytes(), gpu.stream)); };
    const ResultRow timed = evaluate_kernel(gpu, opt, hooked, work);
    EXPECT(timed.status == Status::Pass && std::isfinite(timed.time_ms) && timed.note.find("setup untimed") != std::string::npos);

    // A kernel the GPU cannot run is a SKIP row with the reason, and never launches.
    KernelRun too_new = make_run(-1.f);
    too_new.arch = {999, false};
    too_new.launch = [](int) { std::abort(); };
    const ResultRow skipped = evaluate_kernel(gpu, opt, too_new, work);
    EXPECT(skipped.status == Status::Skip && skipped.note.find("needs sm_999") != std::string::npos);

    // A launcher that refuses the shape when called (a library's refusal, LaunchRefused) is a SKIP
    // row with its reason, never timed; and a pre-pass with no name adds no note.
    KernelRun refused = make_run(-1.f);
    int launches = 0;
    refused.launch = [&](int) {
        ++launches;
        throw LaunchRefused("the library refuses this shape");
    };
    const ResultRow refusal = evaluate_kernel(gpu, opt, refused, work);
    EXPECT(refusal.status == Status::Skip && refusal.note == "the library refuses this shape" && launches == 1 &&
           !std::isfinite(refusal.time_ms));
    KernelRun unnamed = make_run(-1.f);
    unnamed.prepass = [](int) {};
    opt.check_only = true;
    EXPECT(evaluate_kernel(gpu, opt, unnamed, work).note.empty());
}

// Every finite fp16 value, i < kFiniteHalves: the positive ones by their bits, then the negative.
constexpr int kFiniteHalves = 2 * 0x7C00;
__device__ float finite_half(int i) {
    const unsigned short bits = (unsigned short)(i < 0x7C00 ? i : 0x8000 + (i - 0x7C00));
    return __half2float(__ushort_as_half(bits));
}

// Warp w takes the 16 values u of rows 16w..16w+15 and, 8 at a time, every value v: each product of
// outer_product_times4 must be 4·u·v (exact in FP32 for fp16 inputs). Counts those that are not.
__global__ void count_outer_product_mismatches(unsigned long long* mismatches) {
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int row0 = (blockIdx.x * blockDim.x + threadIdx.x) / 32 * 16;
    if (row0 >= kFiniteHalves) return;
    const float u_g = finite_half(row0 + g), u_g8 = finite_half(row0 + g + 8);
    unsigned long long bad = 0;
    for (int col0 = 0; col0 < kFiniteHalves; col0 += 8) {
        float d[4];
        outer_product_times4(d, u_g, u_g8, finite_half(col0 + g));
        const float v0 = finite_half(col0 + 2 * t), v1 = finite_half(col0 + 2 * t + 1);
        bad += (d[0] != 4.f * (u_g * v0)) + (d[1] != 4.f * (u_g * v1)) + (d[2] != 4.f * (u_g8 * v0)) + (d[3] != 4.f * (u_g8 * v1));
    }
    atomicAdd(mismatches, bad);
}

// Step 4's rung 09 takes its scale products d_w·d_a from outer_product_times4 and claims them exact:
// all 4e9 pairs of finite fp16 values, against the FP32 multiply (a zero's sign aside: == ).
static void test_outer_product_exact(const Gpu& gpu) {
    if (gpu.code_sm < 80) {
        std::printf("SKIP outer_product_times4: mma.sync with TF32 needs sm_80 (this GPU runs sm_%d code)\n", gpu.code_sm);
        return;
    }
    static_assert(kFiniteHalves % 16 == 0, "whole row tiles");
    DeviceBuffer<unsigned long long> mismatches(1);
    CUDA_CHECK(cudaMemsetAsync(mismatches.get(), 0, sizeof(unsigned long long), gpu.stream));
    constexpr int kThreads = 256, kWarps = kFiniteHalves / 16;
    count_outer_product_mismatches<<<kWarps * 32 / kThreads, kThreads, 0, gpu.stream>>>(mismatches.get());
    CUDA_CHECK_LAST();
    const unsigned long long bad = mismatches.to_host()[0];
    std::printf("outer_product_times4: %llu of %lld products differ from 4·u·v\n", bad, (long long)kFiniteHalves * kFiniteHalves);
    EXPECT(bad == 0);
}

int main() {
    Gpu gpu = open_gpu(/*measure_bandwidth=*/false);
    if (!gpu.available) {
        std::printf("SKIP test_gpu_driver: no usable CUDA device\n");
        return EXIT_NO_GPU;
    }
    test_poison(gpu);
    test_driver(gpu);
    test_outer_product_exact(gpu);
    return unit_test_summary();
}
