// GPU unit tests of common/: the poison patterns and the per-kernel driver (both patterns, the
// architecture gate, a launcher's refusal, the setup and prepass hooks). Exit 77 without a GPU. Ends with
// "N passed, M failed".
#include "common.cuh"
#include "unit_test.h"

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

int main() {
    Gpu gpu = open_gpu(/*measure_bandwidth=*/false);
    if (!gpu.available) {
        std::printf("SKIP test_gpu_driver: no usable CUDA device\n");
        return EXIT_NO_GPU;
    }
    test_poison(gpu);
    test_driver(gpu);
    return unit_test_summary();
}
