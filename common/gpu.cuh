// gpu.cuh - what we run on: name, compute capability, the code this build runs on it, SMs, L2,
// measured HBM bandwidth, and nominal peaks for each arithmetic pipe.
//
// Two facts decide whether a kernel can run: the GPU's compute capability, and the code this
// build holds for it. A build for sm_75 runs on an H200 through PTX compiled at start-up, and
// that code has no sm_80 instructions in it; a wgmma kernel needs sm_90a code, not sm_90. A
// one-thread probe kernel reports __CUDA_ARCH__ from the code the driver picked, so the gates
// below check what was compiled in, not only the device.
#pragma once

#include "errors.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

// The arithmetic pipes a kernel's speed is measured against.
enum class Pipe { Fp32, Fp16Tensor, Int8Tensor, Dp4a };

inline const char* pipe_name(Pipe p) {
    switch (p) {
        case Pipe::Fp32: return "FP32";
        case Pipe::Fp16Tensor: return "FP16 tensor";
        case Pipe::Int8Tensor: return "INT8 tensor";
        default: return "DP4A";
    }
}
inline bool pipe_is_integer(Pipe p) { return p == Pipe::Int8Tensor || p == Pipe::Dp4a; }
inline const char* pipe_unit(Pipe p) { return pipe_is_integer(p) ? "TOPS" : "TFLOPS"; }

// Nominal dense operations per clock per SM (a multiply-add counts 2), from NVIDIA's architecture
// whitepapers for the data-center part of each generation; 0 where the pipe does not exist or we
// have no number. FP16 tensor is with FP32 accumulation. DP4A is not in NVIDIA's throughput
// tables: we assume it issues at the 32-bit integer multiply-add rate (64 lanes per SM from
// sm_70 on, 128 on sm_61), 4 multiply-adds each.
inline double ops_per_clock_per_sm(int cc, Pipe p) {
    switch (p) {
        case Pipe::Fp32: return (cc == 60 || (cc >= 70 && cc <= 80)) ? 128 : 256;
        case Pipe::Fp16Tensor:
            if (cc == 70 || cc == 72 || cc == 75 || cc == 86 || cc == 87 || cc == 89 || cc >= 120) return 1024;
            if (cc == 80) return 2048;
            if (cc == 90) return 4096;
            if (cc >= 100) return 8192;
            return 0;
        case Pipe::Int8Tensor:
            if (cc < 75 || cc == 87) return 0;
            return 2 * ops_per_clock_per_sm(cc, Pipe::Fp16Tensor);
        case Pipe::Dp4a:
            if (cc == 61 || cc == 62) return 128 * 8;
            return cc >= 70 ? 64 * 8 : 0;
    }
    return 0;
}

struct Gpu {
    bool available = false;
    int device = 0;
    std::string name;
    int cc = 0;                    // compute capability as 10*major+minor: 90 for sm_90
    int code_sm = 0;               // the architecture of the code this build runs here (90, or 75 via PTX)
    bool code_arch_specific = false;  // that code was built for sm_XXa (wgmma, setmaxnreg)
    int sms = 0;
    double clock_ghz = 0;          // peak SM clock reported by the driver
    size_t l2_bytes = 0;
    size_t smem_per_block_optin = 0;  // the most shared memory one CTA may ask for
    size_t free_bytes = 0;
    double hbm_gbs = NAN;          // measured: streaming read of a 1 GiB buffer (NaN: not measured)
    cudaStream_t stream = nullptr;

    // Nominal peak of a pipe, in tera-operations per second (0: none), at `clock` GHz (default:
    // the peak clock the driver reports).
    double peak_tera(Pipe p, double clock = 0) const {
        return sms * ops_per_clock_per_sm(cc, p) * (clock > 0 ? clock : clock_ghz) * 1e-3;
    }
};

// NVIDIA's datasheet figures for a GPU whose datasheet we have checked: the same peaks at the
// clock the datasheet uses, which is below the peak clock the driver reports, and its HBM
// bandwidth. Printed beside ours so that a reader can match either set of numbers. {0, 0}: unknown.
struct Datasheet {
    double clock_ghz = 0, hbm_tbs = 0;
};
inline Datasheet datasheet_of(const std::string& gpu_name) {
    if (gpu_name.find("H200") != std::string::npos) return {1.83, 4.8};  // 989 TFLOPS fp16, 1979 TOPS int8, dense
    return {};
}

// A streaming read: each thread keeps four 16-byte loads in flight; the sum is written only in
// an impossible case so the compiler cannot drop the loads.
__global__ void bandwidth_probe_kernel(const float4* __restrict__ data, size_t n4, float* sink) {
    constexpr int kUnroll = 4;
    float acc = 0.f;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
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

// Writes the __CUDA_ARCH__ of the code the driver chose for this GPU, and whether it is the
// architecture-specific variant (sm_90a and the like).
__global__ void code_arch_probe_kernel(int* out) {
#if defined(__CUDA_ARCH__)
    out[0] = __CUDA_ARCH__ / 10;
#if defined(__CUDA_ARCH_SPECIFIC__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
    out[1] = 1;
#else
    out[1] = 0;
#endif
#endif
}

// Why there is no usable device, in words a user can act on.
inline std::string no_device_reason(cudaError_t err) {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
    if (driver == 0) return "no NVIDIA driver found: this machine has no GPU, or its driver is not installed";
    if (err == cudaErrorInsufficientDriver)
        return "the NVIDIA driver supports CUDA " + version(driver) + ", this program needs " + version(runtime) +
               ": update the driver";
    if (err == cudaErrorNoDevice || err == cudaSuccess) return "the NVIDIA driver is installed but sees no GPU";
    return cudaGetErrorString(err);
}

// The GPU that open_gpu opened, for launchers that choose a kernel by what it runs (an entry
// point such as step 3's auto_g128): its capability, the code this build runs on it, its limits.
inline Gpu& opened_gpu_record() {
    static Gpu gpu;
    return gpu;
}
inline const Gpu& opened_gpu() { return opened_gpu_record(); }

// Opens device 0. Returns a Gpu with available=false (and prints why) when there is none.
// measure_bandwidth=false skips the 1 GiB probe (--check-only needs no roofline).
inline Gpu open_gpu(bool measure_bandwidth) {
    Gpu gpu;
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        std::printf("no usable CUDA device: %s\n", no_device_reason(err).c_str());
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
    gpu.smem_per_block_optin = prop.sharedMemPerBlockOptin;
    size_t total = 0;
    CUDA_CHECK(cudaMemGetInfo(&gpu.free_bytes, &total));
    CUDA_CHECK(cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking));

    int* probe = nullptr;
    CUDA_CHECK(cudaMalloc(&probe, 2 * sizeof(int)));
    code_arch_probe_kernel<<<1, 1, 0, gpu.stream>>>(probe);
    if (cudaPeekAtLastError() == cudaErrorNoKernelImageForDevice) {
        std::fprintf(stderr, "error: this build has no code for sm_%d (%s); rebuild with make CUDA_ARCH=sm_%d\n", gpu.cc,
                     gpu.name.c_str(), gpu.cc);
        std::exit(EXIT_CUDA_ERROR);
    }
    CUDA_CHECK_LAST();
    CUDA_CHECK(cudaStreamSynchronize(gpu.stream));  // the copy below does not wait for a non-blocking stream
    int code[2] = {0, 0};
    CUDA_CHECK(cudaMemcpy(code, probe, sizeof code, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(probe));
    gpu.code_sm = code[0];
    gpu.code_arch_specific = code[1] != 0;

    if (measure_bandwidth) gpu.hbm_gbs = measure_read_bandwidth_gbs(gpu);
    opened_gpu_record() = gpu;
    return gpu;
}

inline std::string sm_name(int sm, bool arch_specific = false) {
    return "sm_" + std::to_string(sm) + (arch_specific ? "a" : "");
}

inline void print_gpu_header(const Gpu& gpu) {
    std::printf("GPU      %s | %s (running %s code) | %d SMs | %.2f GHz | L2 %.0f MB | %.1f GB free\n",
                gpu.name.c_str(), sm_name(gpu.cc).c_str(), sm_name(gpu.code_sm, gpu.code_arch_specific).c_str(),
                gpu.sms, gpu.clock_ghz, gpu.l2_bytes / 1e6, gpu.free_bytes / 1e9);
    if (std::isfinite(gpu.hbm_gbs))
        std::printf("roofline HBM read %.0f GB/s (measured, 1 GiB stream)", gpu.hbm_gbs);
    else
        std::printf("roofline HBM read not measured (--check-only)");
    std::printf(" | nominal peaks (SMs x ops/clock/SM x %.2f GHz):", gpu.clock_ghz);
    const char* sep = " ";
    for (Pipe p : {Pipe::Fp32, Pipe::Fp16Tensor, Pipe::Int8Tensor, Pipe::Dp4a}) {
        if (gpu.peak_tera(p) <= 0) continue;
        std::printf("%s%s %.0f %s", sep, pipe_name(p), gpu.peak_tera(p), pipe_unit(p));
        sep = ", ";
    }
    const Datasheet sheet = datasheet_of(gpu.name);
    if (sheet.clock_ghz > 0)
        std::printf("\n         NVIDIA's datasheet (the same peaks at %.2f GHz): FP16 tensor %.0f TFLOPS, INT8 tensor %.0f TOPS, "
                    "HBM %.1f TB/s; %%roof uses the peaks above and the measured bandwidth",
                    sheet.clock_ghz, gpu.peak_tera(Pipe::Fp16Tensor, sheet.clock_ghz), gpu.peak_tera(Pipe::Int8Tensor, sheet.clock_ghz),
                    sheet.hbm_tbs);
    std::printf("\n");
}

// An attribute of the current device, read once (for launchers that size their grid by it).
template <cudaDeviceAttr kAttribute>
inline int current_device_attribute() {
    static const int value = [] {
        int device = 0, v = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&v, kAttribute, device));
        return v;
    }();
    return value;
}
inline int current_sm_count() { return current_device_attribute<cudaDevAttrMultiProcessorCount>(); }
// Shared memory per SM, all its CTAs together (for launchers that choose how many CTAs may share
// an SM by how much each asks for).
inline int current_smem_per_sm() { return current_device_attribute<cudaDevAttrMaxSharedMemoryPerMultiprocessor>(); }

// How many CTAs of `kernel` (`threads` each, `smem` bytes of dynamic shared memory) the GPU runs
// at once: its SMs times the CTAs that fit on one (at least one). Persistent launchers size by it.
template <class Kernel>
inline int64_t ctas_in_one_wave(Kernel kernel, int threads, size_t smem) {
    int per_sm = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    return (int64_t)std::max(1, per_sm) * current_sm_count();
}

// What a kernel needs: at least sm_<min_sm> hardware and code; arch_specific: exactly that
// architecture, built as sm_<min_sm>a. {0, false} needs nothing.
struct ArchNeed {
    int min_sm = 0;
    bool arch_specific = false;
};

// "" when the kernel can run here, else the reason for its SKIP line.
inline std::string arch_shortfall(const Gpu& gpu, ArchNeed need) {
    const std::string wanted = sm_name(need.min_sm, need.arch_specific);
    if (gpu.cc < need.min_sm) return "needs " + wanted + ", this GPU is " + sm_name(gpu.cc);
    if (need.arch_specific && gpu.cc != need.min_sm) return "needs " + wanted + " code, which runs only on " + sm_name(need.min_sm);
    if (gpu.code_sm < need.min_sm || (need.arch_specific && !gpu.code_arch_specific))
        return "needs " + wanted + " code, this build runs " + sm_name(gpu.code_sm, gpu.code_arch_specific) +
               " code here (make CUDA_ARCH=" + wanted + ")";
    return "";
}
