// driver.cuh - one kernel on one case: gate, poison, run, check, time; one table row.
//
// The order matters. A kernel the GPU or the build cannot run, or that cannot run this shape,
// becomes a SKIP row with the reason and never launches. Otherwise its output is poisoned, it
// runs once, and the result is checked against the reference, outside any timed region, under
// each poison pattern in turn (buffers.cuh). Then, unless --check-only, it is timed.
//
// Two optional hooks serve the quantized steps:
//   prepass  timed with the kernel, before it: the activation quantization of a W4A8 GEMM,
//            because llama.cpp's figures time the whole operation;
//   setup    untimed, before each launch: zeroing an accumulator that a split-K kernel adds
//            into. Its cost is measured on its own and subtracted (the row says so).
// And one for the checked runs only:
//   late_inputs  between the pre-pass and the launch: the inputs the kernel reads poisoned and
//            delivered late by a kernel that lets its dependents start first (deliver_late,
//            below): a kernel launched as a programmatic dependent that reads them before it
//            waits gets the poison, and fails its check.
#pragma once

#include "buffers.cuh"
#include "check.h"
#include "cli.h"
#include "gemm_case.h"
#include "gpu.cuh"
#include "pdl.cuh"
#include "report.h"
#include "timing.cuh"

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

struct KernelRun {
    std::string name;
    ArchNeed arch;                           // hardware and compiled code it needs
    std::string unsupported;                 // non-empty: why this shape cannot run (a SKIP row)
    bool must_run = false;                   // the case exists for this kernel: a SKIP for its shape fails
    Pipe pipe = Pipe::Fp32;                  // the peak its arithmetic is measured against
    std::function<void(int)> prepass;        // optional, timed: enqueue the pre-pass of run i
    std::string prepass_name;                // what it does, for the row's note
    std::function<void(int)> setup;          // optional, untimed: enqueue the setup of run i
    std::function<void(int)> launch;         // enqueue run i on gpu.stream
    std::function<void(uint8_t)> poison_output;  // fill the output with this byte
    std::function<void()> late_inputs;       // optional: enqueue the poisoning of what run 0's kernel reads and
                                             // its late delivery (deliver_late: a dependent that does not wait fails)
    std::function<CheckResult()> check;      // download the output, compare, return the verdict
    std::function<double()> quantization_nmse;  // optional: the output's NMSE against the unquantized product
    std::string error_metric;                // the name shown in the table
    enum class Report { MaxScaled, Nmse, BadCount } report = Report::MaxScaled;  // which CheckResult field
    std::string unsolved_exercise;           // non-empty: the shipped stub of an exercise, this file to edit
};

// A check that a programmatic dependent really waits (KernelRun::late_inputs, pdl.cuh): the
// input a kernel reads is poisoned, then this kernel lets its dependents start at once and writes
// the true bytes (from `src`) only kLateDeliveryNs later. A kernel launched next as a programmatic
// dependent that reads the input before its wait_for_prerequisite_grids() reads the poison, and
// its check fails; one launched normally, or one that waits, is simply started later.
constexpr unsigned long long kLateDeliveryNs = 200000;  // 0.2 ms: longer than any checked launch reads

__device__ __forceinline__ unsigned long long global_timer_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// One input delivered late: `bytes` from src (the true bytes) to dst (what the kernel reads).
struct LateCopy {
    void* dst;
    const void* src;
    size_t bytes;
};
// The inputs of one launch (step 4's quantized activations: codes and up to two scale arrays),
// delivered by one kernel: the dependent depends on the last kernel before it only.
constexpr int kMaxLateCopies = 3;
struct LateCopies {
    LateCopy part[kMaxLateCopies];
    int count;
};

__global__ void deliver_late_kernel(LateCopies copies) {
    allow_dependent_launch();
    const unsigned long long start = global_timer_ns();
    while (global_timer_ns() - start < kLateDeliveryNs) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
        __nanosleep(1000);
#endif
    }
    for (int c = 0; c < copies.count; ++c) {
        uint8_t* dst = static_cast<uint8_t*>(copies.part[c].dst);
        const uint8_t* src = static_cast<const uint8_t*>(copies.part[c].src);
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < copies.part[c].bytes; i += (size_t)gridDim.x * blockDim.x)
            dst[i] = src[i];
    }
}

// Poisons each part's dst (NaN for any float), then enqueues their late delivery. A few small
// CTAs, so that the dependent's CTAs find room beside them on the SMs.
inline void deliver_late(std::initializer_list<LateCopy> parts, cudaStream_t stream) {
    if (parts.size() == 0 || parts.size() > (size_t)kMaxLateCopies)
        throw std::logic_error("deliver_late: 1 to " + std::to_string(kMaxLateCopies) + " parts");
    LateCopies copies{};
    for (const LateCopy& part : parts) {
        poison(part.dst, part.bytes, 0xFF, stream);
        copies.part[copies.count++] = part;
    }
    deliver_late_kernel<<<16, 256, 0, stream>>>(copies);
    CUDA_CHECK_LAST();
}

// What a launcher throws when it finds, only when called, that it cannot run a shape (a library
// that refuses one: cuBLAS int8). The check run, a row's first launch, turns it into a SKIP row.
struct LaunchRefused : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What a stub's FAIL says: it is an unsolved exercise, not a bug.
inline void print_unsolved_exercise(const std::string& name, const std::string& file) {
    std::printf("    %s: an unsolved exercise, not a bug: write it in %s (README.md, Exercises)\n", name.c_str(), file.c_str());
}

// The file to edit when a kernel is an exercise still in its shipped stub, else "".
inline std::string unsolved_exercise_file(const KernelInfo& info) {
    return info.role == KernelRole::Exercise && !info.written ? info.exercise_file : "";
}

// The run of one kernel of a step's table: name, and for an exercise that is still the shipped
// stub, the file to edit (its FAIL then says so).
inline KernelRun kernel_run_for(const KernelInfo& info) {
    KernelRun run;
    run.name = info.name;
    run.unsolved_exercise = unsolved_exercise_file(info);
    return run;
}

// The GPU the tests' shapes were chosen on (H200: sm_90, 227 KB of shared memory per CTA), as the
// shape limits see it: every architecture compiled in.
inline Gpu gpu_for_shape_limits() {
    Gpu g;
    g.name = "H200 (shape limits only)";
    g.cc = g.code_sm = 90;
    g.code_arch_specific = true;
    g.sms = 132;
    g.smem_per_block_optin = 227 * 1024;
    return g;
}

// The row of a step's kernel table with this name (each row has a KernelInfo `info`), or nullptr.
template <class Kernel>
const Kernel* find_kernel(const std::vector<Kernel>& table, const std::string& name) {
    for (const auto& k : table)
        if (k.info.name == name) return &k;
    return nullptr;
}

// Before any GPU is opened: the kernels each case exists for (GemmCase::expected) against their
// shape limits, why_not(kernel, case, gpu) ("" when it runs), on gpu_for_shape_limits(). A limit
// that would SKIP one of them fails the run here, so that the test which names it fails on any
// machine, a CI machine without a GPU too. Prints one FAIL line per such kernel.
inline bool expected_kernels_fit(const std::vector<GemmCase>& cases,
                                 const std::function<std::string(const std::string&, const GemmCase&, const Gpu&)>& why_not) {
    const Gpu gpu = gpu_for_shape_limits();
    bool fit = true;
    for (const auto& c : cases)
        for (const auto& name : c.expected) {
            const std::string reason = why_not(name, c, gpu);
            if (reason.empty()) continue;
            std::printf("FAIL %s: the case M=%lld N=%lld K=%lld exists for it, but it cannot run that shape on %s: %s\n",
                        name.c_str(), (long long)c.M, (long long)c.N, (long long)c.K, gpu.name.c_str(), reason.c_str());
            fit = false;
        }
    return fit;
}

// What every step prints before its cases: the GPU, its peaks and bandwidth, how timing is done.
inline void print_run_header(const Gpu& gpu, const Options& opt) {
    print_gpu_header(gpu);
    print_timing_method(opt.check_only, opt.warmup, opt.iters);
}

// The last line of every step's run, and its exit code.
inline int finish_run(bool all_pass) {
    std::printf("\n%s\n", all_pass ? "ALL CHECKS PASSED" : "SOME CHECKS FAILED");
    return all_pass ? EXIT_ALL_PASSED : EXIT_CHECK_FAILED;
}

inline ResultRow evaluate_kernel(const Gpu& gpu, const Options& opt, const KernelRun& k, const Workload& w) {
    ResultRow row;
    row.kernel = k.name;
    row.pipe = k.pipe;
    const std::string arch_reason = arch_shortfall(gpu, k.arch);
    if (!arch_reason.empty()) {
        std::printf("SKIP %s: %s\n", k.name.c_str(), arch_reason.c_str());
        row.note = arch_reason;
        return row;
    }
    if (!k.unsupported.empty()) {
        row.note = k.unsupported;
        if (k.must_run) {
            std::printf("FAIL %s: this case exists for it, but it cannot run the shape: %s\n", k.name.c_str(), k.unsupported.c_str());
            row.status = Status::Fail;
        }
        return row;
    }
    auto enqueue = [&](int i) {
        if (k.prepass) k.prepass(i);
        k.launch(i);
    };
    auto enqueue_checked = [&] {  // run 0, its inputs late (late_inputs): they are the pre-pass's output too
        if (k.prepass) k.prepass(0);
        if (k.late_inputs) k.late_inputs();
        k.launch(0);
    };

    CheckResult verdict;
    for (uint8_t pattern : kPoisonPatterns) {
        k.poison_output(pattern);
        if (k.setup) k.setup(0);
        try {
            enqueue_checked();
        } catch (const LaunchRefused& refusal) {
            std::printf("SKIP %s: %s\n", k.name.c_str(), refusal.what());
            row.note = refusal.what();
            return row;
        }
        CUDA_CHECK_LAST();
        CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
        const CheckResult c = k.check();
        if (pattern == kPoisonPatterns[0]) verdict = c;
        if (!c.pass) {
            if (pattern != kPoisonPatterns[0]) std::printf("    %s: wrong only with the output poisoned to 0x%02x\n", k.name.c_str(), pattern);
            verdict.pass = false;
            break;
        }
    }
    row.status = verdict.pass ? Status::Pass : Status::Fail;
    if (!verdict.pass && !k.unsolved_exercise.empty()) {
        print_unsolved_exercise(k.name, k.unsolved_exercise);
        row.note = "unsolved exercise: " + k.unsolved_exercise;
    }
    row.error_metric = k.error_metric;
    row.error_value = k.report == KernelRun::Report::MaxScaled ? verdict.max_scaled_err
                      : k.report == KernelRun::Report::Nmse    ? verdict.nmse
                                                               : (double)verdict.bad;
    row.error_is_count = k.report == KernelRun::Report::BadCount;
    if (k.quantization_nmse && verdict.pass) row.quant_nmse = k.quantization_nmse();
    if (k.prepass && !k.prepass_name.empty()) row.note += (row.note.empty() ? "" : "; ") + ("incl. " + k.prepass_name);
    if (opt.check_only) return row;

    if (!k.setup) {
        fill_speed(row, w, gpu, time_launches(gpu, enqueue, opt.warmup, opt.iters));
        return row;
    }
    const TimingStats with_setup = time_launches(gpu, [&](int i) { k.setup(i); enqueue(i); }, opt.warmup, opt.iters);
    const TimingStats setup_only = time_launches(gpu, k.setup, opt.warmup, opt.iters);
    TimingStats t;
    t.median_ms = with_setup.median_ms - setup_only.median_ms;
    t.min_ms = with_setup.min_ms - setup_only.min_ms;
    fill_speed(row, w, gpu, t);
    row.note += std::string(row.note.empty() ? "" : "; ") + "setup untimed: time with it minus time of it alone";
    return row;
}

// The cases of a run, each with the rows its table printed: the lesson's cases, a sweep's or a
// summit's all go through run_cases, with the step's run_case (one case: prepare, run every
// selected row, print the table, return the rows).
struct CaseRows {
    GemmCase c;
    std::vector<ResultRow> rows;
};
template <class RunCase>
std::vector<CaseRows> run_cases(const std::vector<GemmCase>& cases, RunCase&& run_case) {
    std::vector<CaseRows> all;
    all.reserve(cases.size());
    for (const GemmCase& c : cases) all.push_back({c, run_case(c)});
    return all;
}
inline bool all_passed(const std::vector<CaseRows>& cases) {
    return std::none_of(cases.begin(), cases.end(), [](const CaseRows& c) { return any_failed(c.rows); });
}
