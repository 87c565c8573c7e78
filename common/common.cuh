// common.cuh - the small toolbox every step program shares.
//
// Sections, in the order a step uses them:
//   1. errors and exit codes      CUDA_CHECK, CUDA_CHECK_LAST, CUBLAS_CHECK, CURAND_CHECK, usage_error
//   2. command line               Options, parse_options (the contract of docs: repo-design.md)
//   3. data                       fill_normal / fill_uniform: cuRAND's Philox generator run on the host,
//                                 so a seed gives the same numbers with or without a GPU
//   4. device                     Gpu: name, cc, SMs, L2, measured HBM bandwidth, nominal peaks
//   5. buffers                    DeviceBuffer<T>, poison (0xFF bytes = NaN floats), memory-fit check
//   6. timing                     time_launches: warm-up, CUDA graph of back-to-back launches, median/min
//   7. checking                   check_close: NaN-safe, prints the first mismatches, max error, NMSE
//   8. reporting                  ResultRow, print_table, append_csv
//   9. the per-kernel driver      evaluate_kernel: poison -> launch -> check -> time, one table row
//
// Everything is header-only and host code except the bandwidth probe kernel.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <curand.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

// ---------------------------------------------------------------------------------------------
// 1. Errors and exit codes
// ---------------------------------------------------------------------------------------------

enum ExitCode : int {
    EXIT_ALL_PASSED = 0,   // every check that ran passed
    EXIT_CHECK_FAILED = 1, // a correctness check failed
    EXIT_USAGE = 2,        // bad command line or input
    EXIT_NO_GPU = 77,      // CPU-side checks passed, no usable CUDA device (CTest SKIP_RETURN_CODE)
};

#define CUDA_CHECK(call)                                                                       \
    do {                                                                                       \
        cudaError_t err_ = (call);                                                             \
        if (err_ != cudaSuccess) {                                                             \
            std::fprintf(stderr, "CUDA error %s (%s) at %s:%d: %s\n", cudaGetErrorName(err_),  \
                         cudaGetErrorString(err_), __FILE__, __LINE__, #call);                 \
            std::exit(EXIT_CHECK_FAILED);                                                      \
        }                                                                                      \
    } while (0)

// After a kernel launch: catches bad launch configurations at once (asynchronous faults show up
// at the next synchronizing call, which is itself checked).
#define CUDA_CHECK_LAST() CUDA_CHECK(cudaGetLastError())

// cuBLAS and cuRAND report a status enum; anything but `success` is fatal.
#define LIBRARY_STATUS_CHECK(call, success, library)                                           \
    do {                                                                                       \
        auto st_ = (call);                                                                     \
        if (st_ != (success)) {                                                                \
            std::fprintf(stderr, "%s error %d at %s:%d: %s\n", library, (int)st_, __FILE__,    \
                         __LINE__, #call);                                                     \
            std::exit(EXIT_CHECK_FAILED);                                                      \
        }                                                                                      \
    } while (0)
#define CUBLAS_CHECK(call) LIBRARY_STATUS_CHECK(call, CUBLAS_STATUS_SUCCESS, "cuBLAS")
#define CURAND_CHECK(call) LIBRARY_STATUS_CHECK(call, CURAND_STATUS_SUCCESS, "cuRAND")

// Bad input: one line that says what is wrong and how to fix it, then exit 2.
[[noreturn]] inline void usage_error(const char* fmt, ...) {
    std::fprintf(stderr, "error: ");
    va_list args;
    va_start(args, fmt);
    std::vfprintf(stderr, fmt, args);
    va_end(args);
    std::fprintf(stderr, " (see --help)\n");
    std::exit(EXIT_USAGE);
}

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// ---------------------------------------------------------------------------------------------
// 2. Command line
// ---------------------------------------------------------------------------------------------

// A flag that one step adds to the common ones (step 2's --quantize FORMAT, say).
struct ExtraFlag {
    std::string name;      // without the leading "--"
    bool takes_value;      // "--name VALUE" or "--name=VALUE"; otherwise a switch
    std::string help;
};

struct KernelInfo {
    std::string name;
    std::string description;
};

struct Options {
    bool has_shape = false;
    int64_t m = 0, n = 0, k = 0;
    std::vector<std::string> kernels;  // empty: all
    int iters = 20;
    int warmup = 5;
    uint64_t seed = 1234;
    bool check_only = false;
    std::string csv_path;
    std::vector<std::pair<std::string, std::string>> extra;  // step-specific flags that were given

    bool wants(const std::string& kernel) const {
        return kernels.empty() || std::find(kernels.begin(), kernels.end(), kernel) != kernels.end();
    }
    bool has(const std::string& flag) const { return extra_value(flag) != nullptr; }
    const std::string* extra_value(const std::string& flag) const {
        for (const auto& kv : extra)
            if (kv.first == flag) return &kv.second;
        return nullptr;
    }
};

// Strict integer parsing: the whole string must be a number within [lo, hi].
inline int64_t parse_int_flag(const std::string& flag, const std::string& text, int64_t lo, int64_t hi) {
    if (text.empty()) usage_error("--%s needs a value", flag.c_str());
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE)
        usage_error("--%s expects an integer, got '%s'", flag.c_str(), text.c_str());
    if (v < lo || v > hi)
        usage_error("--%s must be between %lld and %lld, got %lld", flag.c_str(), (long long)lo,
                    (long long)hi, v);
    return v;
}

struct ProgramInfo {
    const char* name;         // "step1_fp32"
    const char* summary;      // one line
    const char* example;      // an example command line
    int64_t k_multiple;       // K must be a multiple of this (1 for FP32, 32 for ggml blocks)
    std::vector<KernelInfo> kernels;
    std::vector<ExtraFlag> extra_flags;
    bool uses_m = true;       // false: the step's problem is a [N, K] tensor, given by --n --k alone
};

inline void print_help(const ProgramInfo& info) {
    std::printf("%s: %s\n\n", info.name, info.summary);
    std::printf("usage: %s [options]\n\n", info.name);
    if (info.uses_m)
        std::printf("  --m M --n N --k K   problem C[M,N] = A[M,K] * W[N,K]^T (all three; default: the lesson cases)\n");
    else
        std::printf("  --n N --k K         a tensor of N rows of K values (both; default: the lesson case)\n");
    std::printf("  --kernel A[,B...]   run only these kernels (--list shows them)\n");
    std::printf("  --list              list the kernels, one line each\n");
    std::printf("  --iters N           timed repetitions, median reported (default 20)\n");
    std::printf("  --warmup N          untimed warm-up launches (default 5)\n");
    std::printf("  --seed S            data seed: same seed, same data, on any machine (default 1234)\n");
    std::printf("  --check-only        correctness only, no timing\n");
    std::printf("  --csv FILE          append one row per (case, kernel)\n");
    for (const auto& f : info.extra_flags)
        std::printf("  --%-17s %s\n", (f.name + (f.takes_value ? " X" : "")).c_str(), f.help.c_str());
    std::printf("  --help              this text\n\n");
    std::printf("exit codes: 0 all checks passed, 1 a check failed, 2 bad input, 77 no usable GPU\n");
    std::printf("example: %s\n", info.example);
}

inline std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t comma = s.find(',', start);
        if (comma == std::string::npos) comma = s.size();
        out.push_back(s.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

// Largest size we accept in any one dimension; products are checked separately.
constexpr int64_t kMaxDim = int64_t(1) << 24;

// Parses argv into Options. Exits 0 after --help / --list, 2 on any bad input.
inline Options parse_options(int argc, char** argv, const ProgramInfo& info) {
    Options o;
    bool seen_m = false, seen_n = false, seen_k = false;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg.rfind("--", 0) != 0) usage_error("unexpected argument '%s'", arg.c_str());
        std::string flag = arg.substr(2), value;
        bool has_inline_value = false;
        size_t eq = flag.find('=');
        if (eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
            has_inline_value = true;
        }
        auto take_value = [&]() -> std::string {
            if (has_inline_value) return value;
            if (i + 1 >= argc) usage_error("--%s needs a value", flag.c_str());
            return argv[++i];
        };
        auto no_value = [&]() {
            if (has_inline_value) usage_error("--%s takes no value", flag.c_str());
        };
        if (flag == "help") { no_value(); print_help(info); std::exit(EXIT_ALL_PASSED); }
        else if (flag == "list") {
            no_value();
            for (const auto& kern : info.kernels)
                std::printf("%-24s %s\n", kern.name.c_str(), kern.description.c_str());
            std::exit(EXIT_ALL_PASSED);
        }
        else if (flag == "m") { o.m = parse_int_flag(flag, take_value(), 1, kMaxDim); seen_m = true; }
        else if (flag == "n") { o.n = parse_int_flag(flag, take_value(), 1, kMaxDim); seen_n = true; }
        else if (flag == "k") { o.k = parse_int_flag(flag, take_value(), 1, kMaxDim); seen_k = true; }
        else if (flag == "iters") o.iters = (int)parse_int_flag(flag, take_value(), 1, 100000);
        else if (flag == "warmup") o.warmup = (int)parse_int_flag(flag, take_value(), 0, 100000);
        else if (flag == "seed") o.seed = (uint64_t)parse_int_flag(flag, take_value(), 0, INT64_MAX);
        else if (flag == "check-only") { no_value(); o.check_only = true; }
        else if (flag == "csv") { o.csv_path = take_value(); if (o.csv_path.empty()) usage_error("--csv needs a file name"); }
        else if (flag == "kernel") {
            for (const auto& name : split_commas(take_value())) {
                bool known = std::any_of(info.kernels.begin(), info.kernels.end(),
                                         [&](const KernelInfo& kern) { return kern.name == name; });
                if (!known) usage_error("unknown kernel '%s'; --list shows the names", name.c_str());
                o.kernels.push_back(name);
            }
        } else {
            auto extra = std::find_if(info.extra_flags.begin(), info.extra_flags.end(),
                                      [&](const ExtraFlag& f) { return f.name == flag; });
            if (extra == info.extra_flags.end()) usage_error("unknown option '%s'", arg.c_str());
            if (extra->takes_value) o.extra.emplace_back(flag, take_value());
            else { no_value(); o.extra.emplace_back(flag, ""); }
        }
    }
    if (seen_m && !info.uses_m) usage_error("%s takes no --m: its problem is one [N, K] tensor (--n, --k)", info.name);
    if (!info.uses_m) o.m = 1;
    if (seen_m || seen_n || seen_k) {
        if (info.uses_m && !(seen_m && seen_n && seen_k)) usage_error("give --m, --n and --k together");
        if (!info.uses_m && !(seen_n && seen_k)) usage_error("give --n and --k together");
        o.has_shape = true;
        if (o.k % info.k_multiple != 0)
            usage_error("K must be a multiple of %lld (the block size), got %lld",
                        (long long)info.k_multiple, (long long)o.k);
        // The teaching kernels index with 32-bit ints: every matrix must have < 2^31 elements.
        const int64_t limit = int64_t(1) << 31;
        if (o.m * o.k >= limit || o.n * o.k >= limit || o.m * o.n >= limit)
            usage_error("M*K, N*K and M*N must each be below 2^31 elements (32-bit indexing)");
    }
    return o;
}

// ---------------------------------------------------------------------------------------------
// 3. Data: cuRAND's Philox generator, run on the host
// ---------------------------------------------------------------------------------------------
// The host generator needs no GPU and produces the sequence the device generator would, so the
// same --seed gives the same matrices on every machine. Each tensor of a step gets its own
// stream id, so A and W are independent even with one seed.

inline curandGenerator_t make_host_generator(uint64_t seed, uint64_t stream_id) {
    curandGenerator_t gen;
    CURAND_CHECK(curandCreateGeneratorHost(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(gen, seed * 1000003ull + stream_id));
    return gen;
}

// N(mean, stddev). cuRAND's Box-Muller makes values in pairs, so an odd count is rounded up.
inline void fill_normal(std::vector<float>& out, uint64_t seed, uint64_t stream_id, float mean = 0.f,
                        float stddev = 1.f) {
    curandGenerator_t gen = make_host_generator(seed, stream_id);
    std::vector<float> tmp(out.size() + (out.size() & 1));
    CURAND_CHECK(curandGenerateNormal(gen, tmp.data(), tmp.size(), mean, stddev));
    std::copy(tmp.begin(), tmp.begin() + out.size(), out.begin());
    CURAND_CHECK(curandDestroyGenerator(gen));
}

// U(lo, hi).
inline void fill_uniform(std::vector<float>& out, uint64_t seed, uint64_t stream_id, float lo, float hi) {
    curandGenerator_t gen = make_host_generator(seed, stream_id);
    CURAND_CHECK(curandGenerateUniform(gen, out.data(), out.size()));  // (0, 1]
    for (float& v : out) v = lo + (hi - lo) * v;
    CURAND_CHECK(curandDestroyGenerator(gen));
}

// ---------------------------------------------------------------------------------------------
// 4. Device: what we run on, its measured bandwidth and its nominal peaks
// ---------------------------------------------------------------------------------------------

struct Gpu {
    bool available = false;
    int device = 0;
    std::string name;
    int cc = 0;              // compute capability as 10*major+minor: 90 for sm_90
    int sms = 0;
    double clock_ghz = 0;    // peak SM clock reported by the driver
    size_t l2_bytes = 0;
    size_t free_bytes = 0;
    double hbm_gbs = 0;      // measured: streaming read of a 1 GiB buffer
    double fp32_tflops = 0;  // nominal: SMs x FP32 lanes x 2 (FMA) x clock
    cudaStream_t stream = nullptr;
};

// FP32 lanes per SM, by architecture (CUDA programming guide, "arithmetic instructions").
inline int fp32_lanes_per_sm(int cc) {
    if (cc == 60 || (cc >= 70 && cc < 80) || cc == 80) return 64;
    return 128;  // 6.1, 6.2, 8.6, 8.7, 8.9, 9.0, 10.x, 12.x
}

// A streaming read: each thread keeps four 16-byte loads in flight; the sum is written only in
// an impossible case so the compiler cannot drop the loads.
__global__ void bandwidth_probe_kernel(const float4* __restrict__ data, size_t n4, float* sink) {
    constexpr int kUnroll = 4;
    float acc = 0.f;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (kUnroll - 1) * stride < n4; i += kUnroll * stride) {
        float4 v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) v[u] = __ldcs(data + i + u * stride);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
    }
    for (; i < n4; i += stride) acc += __ldcs(data + i).x;
    if (acc == -1.2345f) *sink = acc;
}

inline double measure_read_bandwidth_gbs(const Gpu& gpu) {
    const size_t bytes = size_t(1) << 30;
    float4* data = nullptr;
    float* sink = nullptr;
    CUDA_CHECK(cudaMalloc(&data, bytes));
    CUDA_CHECK(cudaMalloc(&sink, sizeof(float)));
    CUDA_CHECK(cudaMemset(data, 0x3c, bytes));  // finite, nonzero floats
    const int blocks = gpu.sms * 8, threads = 512;
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<float> ms;
    for (int rep = 0; rep < 12; ++rep) {
        CUDA_CHECK(cudaEventRecord(start, gpu.stream));
        bandwidth_probe_kernel<<<blocks, threads, 0, gpu.stream>>>(data, bytes / 16, sink);
        CUDA_CHECK_LAST();
        CUDA_CHECK(cudaEventRecord(stop, gpu.stream));
        CUDA_CHECK(cudaEventSynchronize(stop));
        float t;
        CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
        if (rep >= 2) ms.push_back(t);  // the first two are warm-up
    }
    std::sort(ms.begin(), ms.end());
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    CUDA_CHECK(cudaFree(data));
    CUDA_CHECK(cudaFree(sink));
    return bytes / (ms[ms.size() / 2] * 1e-3) / 1e9;
}

// Opens device 0. Returns a Gpu with available=false (and prints why) when there is none.
inline Gpu open_gpu() {
    Gpu gpu;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        std::printf("no usable CUDA device (%s)\n",
                    err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
        cudaGetLastError();  // clear the sticky error so later host-only code is unaffected
        return gpu;
    }
    CUDA_CHECK(cudaSetDevice(gpu.device));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, gpu.device));
    int clock_khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, gpu.device));
    gpu.available = true;
    gpu.name = prop.name;
    gpu.cc = prop.major * 10 + prop.minor;
    gpu.sms = prop.multiProcessorCount;
    gpu.clock_ghz = clock_khz * 1e-6;
    gpu.l2_bytes = prop.l2CacheSize;
    size_t total = 0;
    CUDA_CHECK(cudaMemGetInfo(&gpu.free_bytes, &total));
    CUDA_CHECK(cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking));
    gpu.fp32_tflops = gpu.sms * fp32_lanes_per_sm(gpu.cc) * 2.0 * gpu.clock_ghz * 1e-3;
    gpu.hbm_gbs = measure_read_bandwidth_gbs(gpu);
    return gpu;
}

inline void print_gpu_header(const Gpu& gpu) {
    std::printf("GPU      %s | sm_%d | %d SMs | %.2f GHz | L2 %.0f MB | %.1f GB free\n", gpu.name.c_str(),
                gpu.cc, gpu.sms, gpu.clock_ghz, gpu.l2_bytes / 1e6, gpu.free_bytes / 1e9);
    std::printf("roofline HBM read %.0f GB/s (measured, 1 GiB stream) | FP32 %.1f TFLOPS (nominal: %d SMs x %d lanes x 2 x %.2f GHz)\n",
                gpu.hbm_gbs, gpu.fp32_tflops, gpu.sms, fp32_lanes_per_sm(gpu.cc), gpu.clock_ghz);
}

// The current device's SM count, read once (for launchers that size their grid by it).
inline int current_sm_count() {
    static const int sms = [] {
        int device = 0, count = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
        return count;
    }();
    return sms;
}

// Prints the standard SKIP line for a kernel whose hardware needs are above this GPU's.
inline bool gpu_supports(const Gpu& gpu, int min_cc, const std::string& kernel) {
    if (gpu.cc >= min_cc) return true;
    std::printf("SKIP %s: needs sm_%d, this GPU is sm_%d\n", kernel.c_str(), min_cc, gpu.cc);
    return false;
}

// ---------------------------------------------------------------------------------------------
// 5. Buffers
// ---------------------------------------------------------------------------------------------

template <class T>
class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t count) : count_(count) {
        if (count_) CUDA_CHECK(cudaMalloc(&ptr_, count_ * sizeof(T)));
    }
    ~DeviceBuffer() { if (ptr_) cudaFree(ptr_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr; o.count_ = 0; }
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(count_, o.count_);
        return *this;
    }
    T* get() const { return ptr_; }
    size_t count() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }
    void upload(const T* host) { CUDA_CHECK(cudaMemcpy(ptr_, host, bytes(), cudaMemcpyHostToDevice)); }
    void download(T* host) const { CUDA_CHECK(cudaMemcpy(host, ptr_, bytes(), cudaMemcpyDeviceToHost)); }
    std::vector<T> to_host() const { std::vector<T> h(count_); download(h.data()); return h; }

  private:
    T* ptr_ = nullptr;
    size_t count_ = 0;
};

// Fills with 0xFF bytes: every float becomes NaN, so an element a kernel forgot to write fails
// the NaN-safe check below.
inline void poison(void* device_ptr, size_t bytes, cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(device_ptr, 0xFF, bytes, stream));
}

// A problem that cannot fit is an input error (exit 2), not a crash.
inline void require_device_memory(const Gpu& gpu, size_t bytes) {
    if (bytes > gpu.free_bytes * 0.9)
        usage_error("this problem needs %.2f GB of device memory, the GPU has %.2f GB free; choose a smaller size",
                    bytes / 1e9, gpu.free_bytes / 1e9);
}

// How many copies of a weight tensor to rotate through so that each timed launch reads it from
// HBM, not from L2: together the copies span at least three L2 sizes.
inline int cold_l2_copies(const Gpu& gpu, size_t bytes_per_copy) {
    return (int)std::min<size_t>(64, std::max<size_t>(2, ceil_div(3 * gpu.l2_bytes, bytes_per_copy)));
}

// ---------------------------------------------------------------------------------------------
// 6. Timing
// ---------------------------------------------------------------------------------------------
// launch(i) enqueues one run on gpu.stream; i counts up, so the caller can rotate buffers with
// i % copies. A short kernel is timed as a CUDA graph of back-to-back launches (at least
// kMinReplayMs of work per replay), so launch latency stays out of the number.

struct TimingStats {
    double median_ms = 0, min_ms = 0;
    int launches_per_replay = 1;
};

constexpr double kMinReplayMs = 0.5;
constexpr int kMaxLaunchesPerReplay = 1000;

inline TimingStats time_launches(const Gpu& gpu, const std::function<void(int)>& launch, int warmup, int iters) {
    cudaStream_t s = gpu.stream;
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    auto elapsed_ms = [&]() {
        float ms = 0;
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        return (double)ms;
    };

    for (int i = 0; i < warmup; ++i) launch(i);
    CUDA_CHECK_LAST();
    CUDA_CHECK(cudaStreamSynchronize(s));

    // One launch alone, to size the batch.
    CUDA_CHECK(cudaEventRecord(start, s));
    launch(0);
    CUDA_CHECK(cudaEventRecord(stop, s));
    double single_ms = elapsed_ms();
    TimingStats st;
    st.launches_per_replay = (int)std::min<double>(kMaxLaunchesPerReplay,
                                                   std::max(1.0, std::ceil(kMinReplayMs / std::max(single_ms, 1e-4))));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < st.launches_per_replay; ++i) launch(i);
    CUDA_CHECK(cudaStreamEndCapture(s, &graph));
    CUDA_CHECK(cudaGraphInstantiateWithFlags(&exec, graph, 0));  // same call on CUDA 11.4+ and 12+
    CUDA_CHECK(cudaGraphLaunch(exec, s));  // warm the graph itself
    std::vector<double> samples;
    for (int it = 0; it < iters; ++it) {
        CUDA_CHECK(cudaEventRecord(start, s));
        CUDA_CHECK(cudaGraphLaunch(exec, s));
        CUDA_CHECK(cudaEventRecord(stop, s));
        samples.push_back(elapsed_ms() / st.launches_per_replay);
    }
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    std::sort(samples.begin(), samples.end());
    st.median_ms = samples[samples.size() / 2];
    st.min_ms = samples.front();
    return st;
}

inline void print_timing_method(const Options& opt) {
    if (opt.check_only) {
        std::printf("timing   off (--check-only)\n");
        return;
    }
    std::printf("timing   CUDA events, %d warm-up launches, median of %d replays of a CUDA graph of back-to-back\n"
                "         launches (>= %.1f ms per replay, time divided per launch); weights rotated across copies\n"
                "         spanning >= 3x L2 so every launch reads them from HBM (cold L2)\n",
                opt.warmup, opt.iters, kMinReplayMs);
}

// ---------------------------------------------------------------------------------------------
// 7. Checking
// ---------------------------------------------------------------------------------------------
// Element i passes when |got - ref| <= atol * scale[i] + rtol * |ref|, written as !(err <= bound)
// so that a NaN fails. scale is optional (nullptr = 1). A non-finite reference passes only when
// got is the same non-finite value (both NaN, or the same infinity).

struct Tolerance {
    double rtol = 0;
    double atol = 0;
    const double* scale = nullptr;
};

struct CheckResult {
    bool pass = true;
    size_t checked = 0, bad = 0;
    double max_abs_err = 0;
    double max_scaled_err = 0;  // max of |got - ref| / scale (or / 1)
    double nmse = 0;            // sum (got - ref)^2 / sum ref^2 over finite references
};

inline CheckResult check_close(const char* what, const float* got, const double* ref, size_t n, Tolerance tol,
                               size_t row_len = 0, int max_print = 5) {
    CheckResult r;
    double err2 = 0, ref2 = 0;
    r.checked = n;
    for (size_t i = 0; i < n; ++i) {
        double g = got[i], e = ref[i], s = tol.scale ? tol.scale[i] : 1.0;
        bool ok;
        double err = std::fabs(g - e);
        if (!std::isfinite(e)) {
            ok = (std::isnan(e) && std::isnan(g)) || g == e;
        } else {
            double bound = tol.atol * s + tol.rtol * std::fabs(e);
            ok = err <= bound;
            if (std::isfinite(err)) {
                err2 += err * err;
                ref2 += e * e;
                r.max_abs_err = std::max(r.max_abs_err, err);
                if (s > 0) r.max_scaled_err = std::max(r.max_scaled_err, err / s);
            } else {
                r.max_abs_err = r.max_scaled_err = INFINITY;
            }
            if (!ok && !std::isfinite(err)) err2 = INFINITY;
        }
        if (!ok) {
            if ((int)r.bad < max_print) {
                if (row_len)
                    std::printf("    %s mismatch at [%zu, %zu]: got %.9g, expected %.9g (|diff| %.3g, allowed %.3g)\n", what,
                                i / row_len, i % row_len, g, e, err, tol.atol * s + tol.rtol * std::fabs(e));
                else
                    std::printf("    %s mismatch at [%zu]: got %.9g, expected %.9g (|diff| %.3g, allowed %.3g)\n", what, i,
                                g, e, err, tol.atol * s + tol.rtol * std::fabs(e));
            }
            ++r.bad;
        }
    }
    r.pass = (r.bad == 0);
    r.nmse = ref2 > 0 ? err2 / ref2 : (err2 > 0 ? INFINITY : 0);
    if (r.bad > (size_t)max_print) std::printf("    %s: %zu of %zu elements wrong\n", what, r.bad, n);
    return r;
}

// Byte-exact comparison (quantized blocks): passes only when every byte matches; prints the
// first max_print differing bytes as (unit, byte within unit), and nothing when max_print is 0.
inline CheckResult check_bytes(const char* what, const void* got, const void* expected, size_t n, size_t unit_bytes,
                               int max_print = 5) {
    const uint8_t* g = static_cast<const uint8_t*>(got);
    const uint8_t* e = static_cast<const uint8_t*>(expected);
    CheckResult r;
    r.checked = n;
    for (size_t i = 0; i < n; ++i) {
        if (g[i] == e[i]) continue;
        if ((int)r.bad < max_print)
            std::printf("    %s: block %zu byte %zu: got 0x%02x, expected 0x%02x\n", what, i / unit_bytes, i % unit_bytes,
                        g[i], e[i]);
        ++r.bad;
    }
    r.pass = r.bad == 0;
    if (max_print > 0 && r.bad > (size_t)max_print) std::printf("    %s: %zu of %zu bytes differ\n", what, r.bad, n);
    return r;
}

// ---------------------------------------------------------------------------------------------
// 8. Reporting
// ---------------------------------------------------------------------------------------------

enum class Status { Pass, Fail, Skip };
inline const char* status_name(Status s) { return s == Status::Pass ? "PASS" : s == Status::Fail ? "FAIL" : "SKIP"; }

struct ResultRow {
    std::string kernel;
    Status status = Status::Skip;
    std::string note;                   // why a kernel was skipped
    double time_ms = NAN;               // NaN: not timed
    double tflops = NAN, gbps = NAN, pct_roofline = NAN;
    std::string error_metric;
    double error_value = NAN;
    bool error_is_count = false;        // print error_value as a whole number
};

// The numbers a case needs to turn a time into TFLOPS, GB/s and % of roofline.
struct Workload {
    double flops = 0;        // arithmetic operations (2 per multiply-add)
    double min_bytes = 0;    // fewest bytes that must cross HBM: inputs read once, output written once
    double peak_tflops = 0;  // the compute ceiling for this kernel's arithmetic
};

inline void fill_speed(ResultRow& row, const Workload& w, const Gpu& gpu, double ms) {
    row.time_ms = ms;
    row.tflops = w.flops > 0 ? w.flops / (ms * 1e-3) / 1e12 : NAN;
    row.gbps = w.min_bytes / (ms * 1e-3) / 1e9;
    const double compute_ms = w.flops > 0 ? w.flops / (w.peak_tflops * 1e12) * 1e3 : 0.0;
    double floor_ms = std::max(compute_ms, w.min_bytes / (gpu.hbm_gbs * 1e9) * 1e3);
    row.pct_roofline = 100.0 * floor_ms / ms;
}

inline std::string fmt_or_dash(double v, const char* fmt) {
    if (!std::isfinite(v)) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

inline const ResultRow* find_row(const std::vector<ResultRow>& rows, const std::string& name) {
    for (const auto& r : rows)
        if (r.kernel == name && std::isfinite(r.time_ms)) return &r;
    return nullptr;
}

// Prints a case's table. first_kernel is the ladder's start (for "x first"), baseline the
// library reference (for "% base"); either may be absent when --kernel filtered it out, and an
// empty name drops its column.
inline void print_table(const std::vector<ResultRow>& rows, const std::string& first_kernel,
                        const std::string& baseline) {
    const ResultRow* first = find_row(rows, first_kernel);
    const ResultRow* base = find_row(rows, baseline);
    std::printf("  %-22s %9s %8s %8s %6s", "kernel", "time(ms)", "TFLOPS", "GB/s", "%roof");
    if (!first_kernel.empty()) std::printf(" %8s", ("x " + first_kernel.substr(0, 6)).c_str());
    if (!baseline.empty()) std::printf(" %7s", ("%" + baseline.substr(0, 6)).c_str());
    std::printf("  %-26s %s\n", "error (metric)", "check");
    for (const auto& r : rows) {
        std::string err = r.error_metric.empty()
                              ? "-"
                              : r.error_metric + " " + fmt_or_dash(r.error_value, r.error_is_count ? "%.0f" : "%.2e");
        std::printf("  %-22s %9s %8s %8s %6s", r.kernel.c_str(), fmt_or_dash(r.time_ms, "%.4f").c_str(),
                    fmt_or_dash(r.tflops, "%.2f").c_str(), fmt_or_dash(r.gbps, "%.0f").c_str(),
                    fmt_or_dash(r.pct_roofline, "%.1f").c_str());
        if (!first_kernel.empty()) std::printf(" %8s", fmt_or_dash(first ? first->time_ms / r.time_ms : NAN, "%.2f").c_str());
        if (!baseline.empty()) std::printf(" %7s", fmt_or_dash(base ? 100.0 * base->time_ms / r.time_ms : NAN, "%.1f").c_str());
        std::printf("  %-26s %s%s\n", err.c_str(), status_name(r.status), r.note.empty() ? "" : (" (" + r.note + ")").c_str());
    }
}

// CSV fields here are plain: a comma inside a name would shift the columns, so it becomes ';'.
inline std::string csv_field(std::string s) {
    std::replace(s.begin(), s.end(), ',', ';');
    return s;
}

inline void append_csv(const std::string& path, const char* step, const std::string& case_name,
                       int64_t m, int64_t n, int64_t k, const std::vector<ResultRow>& rows, const Gpu& gpu) {
    if (path.empty()) return;
    FILE* f = std::fopen(path.c_str(), "a+");
    if (!f) usage_error("cannot open --csv file '%s'", path.c_str());
    std::fseek(f, 0, SEEK_END);
    if (std::ftell(f) == 0)
        std::fprintf(f, "step,case,kernel,M,N,K,time_ms,tflops,gbps,pct_roofline,error_metric,error_value,status,gpu,cc\n");
    for (const auto& r : rows)
        std::fprintf(f, "%s,%s,%s,%lld,%lld,%lld,%.6f,%.4f,%.2f,%.2f,%s,%.6g,%s,%s,%d\n", step, csv_field(case_name).c_str(),
                     r.kernel.c_str(), (long long)m, (long long)n, (long long)k, r.time_ms, r.tflops, r.gbps,
                     r.pct_roofline, r.error_metric.c_str(), r.error_value, status_name(r.status), csv_field(gpu.name).c_str(),
                     gpu.cc);
    std::fclose(f);
}

// ---------------------------------------------------------------------------------------------
// 9. The per-kernel driver
// ---------------------------------------------------------------------------------------------
// One kernel, one case: poison the output, launch once, check against the reference (outside any
// timed region), then time it unless --check-only. check() downloads the output and returns the
// verdict; the caller keeps a row per kernel and prints the table.

struct KernelRun {
    std::string name;
    int min_cc = 0;                         // needs at least this compute capability
    std::string unsupported;                // non-empty: why this shape cannot run (shown as SKIP)
    std::function<void(int)> launch;        // enqueue run i on gpu.stream
    std::function<void()> poison_output;
    std::function<CheckResult()> check;
    std::string error_metric;               // the name shown in the table
    enum class Report { MaxScaled, Nmse, BadCount } report = Report::MaxScaled;  // which CheckResult field
};

inline ResultRow evaluate_kernel(const Gpu& gpu, const Options& opt, const KernelRun& k, const Workload& w) {
    ResultRow row;
    row.kernel = k.name;
    if (!gpu_supports(gpu, k.min_cc, k.name)) {
        row.note = "needs sm_" + std::to_string(k.min_cc);
        return row;
    }
    if (!k.unsupported.empty()) {
        row.note = k.unsupported;
        return row;
    }
    k.poison_output();
    k.launch(0);
    CUDA_CHECK_LAST();
    CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
    CheckResult c = k.check();
    row.status = c.pass ? Status::Pass : Status::Fail;
    row.error_metric = k.error_metric;
    row.error_value = k.report == KernelRun::Report::MaxScaled ? c.max_scaled_err
                      : k.report == KernelRun::Report::Nmse    ? c.nmse
                                                               : (double)c.bad;
    row.error_is_count = k.report == KernelRun::Report::BadCount;
    if (!opt.check_only) fill_speed(row, w, gpu, time_launches(gpu, k.launch, opt.warmup, opt.iters).median_ms);
    return row;
}
