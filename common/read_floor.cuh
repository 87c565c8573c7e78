// read_floor.cuh - a floor under a decoding GEMV's time in this project's timing harness: its
// weight bytes streamed from HBM by a kernel that does nothing else. `--read-floor` of steps 3 and
// 4 prints it (step4_w4a8/README.md, "The floor under decoding").
//
// A decoding GEMV (M <= 8) reads each weight byte once and does little with it, so it cannot be
// faster than reading those bytes with the best loads we know how to write. The header's HBM figure
// is not that time for a 10-35 MB matrix: it is the rate of a 1 GiB read, where the start of a
// launch (every SM's first loads wait a whole trip to HBM before the stream reaches full rate) and
// its end (the last loads drain, then the next launch starts) are a sliver. In a graph of
// back-to-back launches of a few microseconds they are not. So this kernel is timed exactly as the
// rows are (timing.cuh, inputs rotated for a cold L2): 16-byte streaming loads (__ldcs), kUnroll in
// flight per thread, a grid of 4 or 8 CTAs per SM (the faster is printed). The second variant runs
// a kernel before each read (step 4: the activation quantizer) and launches the read as its PDL
// dependent, as the GEMVs are: the read starts at once and waits for the kernel only before it
// writes, as a GEMV that needs the activations late would.
// What it reads is checked: each CTA writes the XOR of its words, and the XOR of those must equal
// the XOR of the buffer worked out on the CPU.
// Limit: it is a floor for this access pattern and this harness, not a law: a kernel that lets the
// next launch start before its own end (PDL on every launch) would overlap two operations, and the
// time would no longer be one operation's.
#pragma once

#include "buffers.cuh"
#include "cli.h"
#include "errors.cuh"
#include "gpu.cuh"
#include "pdl.cuh"
#include "timing.cuh"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace read_floor {

constexpr int kThreads = 256;
constexpr int kUnroll = 4;                     // 16-byte loads in flight per thread
constexpr int kCtasPerSmChoices[] = {4, 8};    // both timed, the faster printed
static_assert(kThreads % 32 == 0, "the CTA's XOR is reduced per warp");

// Word i of the buffer read (any fixed words that differ from place to place would do).
__host__ __device__ inline uint32_t pattern_word(size_t i) {
    const uint32_t x = (uint32_t)i * 2654435761u;
    return x ^ (x >> 15) ^ (uint32_t)(i >> 32);
}
__global__ void fill_pattern_kernel(uint32_t* words, size_t count) {
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        words[i] = pattern_word(i);
}

__device__ __forceinline__ uint32_t xor_of(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

// Streams `pieces` 16-byte pieces, kUnroll loads in flight per thread, and writes the CTA's XOR.
template <bool AFTER_KERNEL>
__global__ void __launch_bounds__(kThreads) read_floor_kernel(const uint4* __restrict__ bytes, size_t pieces, uint32_t* cta_xor) {
    const size_t stride = (size_t)gridDim.x * kThreads;
    size_t i = (size_t)blockIdx.x * kThreads + threadIdx.x;
    uint32_t x = 0;
    for (; i + (kUnroll - 1) * stride < pieces; i += kUnroll * stride) {
        uint4 v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) v[u] = __ldcs(bytes + i + u * stride);  // all issued before any is used
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) x ^= xor_of(v[u]);
    }
    for (; i < pieces; i += stride) x ^= xor_of(__ldcs(bytes + i));
    for (int offset = 16; offset > 0; offset >>= 1) x ^= __shfl_xor_sync(0xffffffffu, x, offset);
    __shared__ uint32_t warp_xor[kThreads / 32];
    if (threadIdx.x % 32 == 0) warp_xor[threadIdx.x / 32] = x;
    __syncthreads();
    if (AFTER_KERNEL) wait_for_prerequisite_grids();  // where a GEMV would need the kernel's output at the latest
    if (threadIdx.x == 0) {
        uint32_t total = 0;
        for (int w = 0; w < kThreads / 32; ++w) total ^= warp_xor[w];
        cta_xor[blockIdx.x] = total;
    }
}

// A matrix's bytes, and the kernels that may run before each read (each timed as its own line,
// after the read alone). A launcher gets the launch's index, as the rows' launchers do.
struct Before {
    std::string label;
    std::function<void(int)> launch;
};
struct FloorCase {
    std::string name;  // what the bytes are, as the lesson's rows name them
    size_t bytes;      // read as whole 16-byte pieces (rounded up)
    std::vector<Before> befores = {};
};

struct Timed {
    TimingStats t;
    int ctas = 0;
    bool correct = false;
};

// Times the read of `data` (copies of `pieces` pieces) at each grid of kCtasPerSmChoices, checks
// the fastest one's XOR, and returns it.
inline Timed time_read(const Gpu& gpu, const Options& opt, const DeviceBuffer<uint4>& data, int copies, size_t pieces,
                       uint32_t expected_xor, const std::function<void(int)>& before) {
    Timed best;
    for (int per_sm : kCtasPerSmChoices) {
        const int ctas = gpu.sms * per_sm;
        DeviceBuffer<uint32_t> cta_xor(ctas);
        auto launch = [&](int i) {
            const uint4* copy = data.get() + pieces * (size_t)(i % copies);
            if (before) {
                before(i);
                launch_with_pdl(read_floor_kernel<true>, dim3(ctas), dim3(kThreads), 0, gpu.stream, copy, pieces, cta_xor.get());
            } else {
                read_floor_kernel<false><<<ctas, kThreads, 0, gpu.stream>>>(copy, pieces, cta_xor.get());
            }
        };
        poison(cta_xor.get(), cta_xor.bytes(), kPoisonPatterns[0], gpu.stream);
        launch(0);
        CUDA_CHECK_LAST();
        uint32_t got = 0;
        for (uint32_t w : cta_xor.to_host()) got ^= w;
        const TimingStats t = time_launches(gpu, launch, opt.warmup, opt.iters);
        if (best.ctas == 0 || t.median_ms < best.t.median_ms) best = {t, ctas, got == expected_xor};
    }
    return best;
}

// Prints, for each case, the read alone and after each of its `befores` (PDL). Returns whether
// every read was checked correct.
inline bool run(const Gpu& gpu, const Options& opt, const std::vector<FloorCase>& cases) {
    std::printf("\n== the read floor: each matrix's bytes streamed from HBM with nothing else to do, timed as the rows are ==\n");
    std::printf("%d threads a CTA, %d 16-byte streaming loads in flight per thread, %d or %d CTAs per SM (the faster shown)\n",
                kThreads, kUnroll, kCtasPerSmChoices[0], kCtasPerSmChoices[1]);
    std::printf("  %-34s %-22s %8s %10s %9s %8s %7s %6s %6s\n", "matrix", "before each read", "MB", "median(us)", "min(us)", "GB/s",
                "%HBM", "CTAs", "check");
    bool all_correct = true;
    for (const FloorCase& c : cases) {
        const size_t pieces = (c.bytes + 15) / 16, bytes = pieces * 16;
        const L2Rotation rot = plan_l2_rotation(gpu, bytes, /*timing=*/true);
        require_device_memory(gpu, (size_t)rot.copies * bytes);
        DeviceBuffer<uint4> data(pieces * rot.copies);
        fill_pattern_kernel<<<gpu.sms * 4, 256, 0, gpu.stream>>>(reinterpret_cast<uint32_t*>(data.get()), pieces * 4);
        CUDA_CHECK_LAST();
        for (int i = 1; i < rot.copies; ++i)
            CUDA_CHECK(cudaMemcpyAsync(data.get() + pieces * i, data.get(), bytes, cudaMemcpyDeviceToDevice, gpu.stream));
        uint32_t expected = 0;
        for (size_t w = 0; w < pieces * 4; ++w) expected ^= pattern_word(w);
        auto line = [&](const std::string& before_label, const std::function<void(int)>& before) {
            const Timed r = time_read(gpu, opt, data, rot.copies, pieces, expected, before);
            const double us = r.t.median_ms * 1e3, gbs = bytes / (r.t.median_ms * 1e-3) / 1e9;
            std::printf("  %-34s %-22s %8.1f %10.2f %9.2f %8.0f %6.0f%% %6d %6s\n", c.name.c_str(), before_label.c_str(), bytes / 1e6, us,
                        r.t.min_ms * 1e3, gbs, 100.0 * gbs / gpu.hbm_gbs, r.ctas, r.correct ? "PASS" : "FAIL");
            all_correct = all_correct && r.correct;
        };
        line("nothing", {});
        for (const Before& b : c.befores) line(b.label + " (PDL)", b.launch);
        if (!rot.cold) std::printf("  (WARM L2: %.1f MB x %d copies is less than 3x L2)\n", bytes / 1e6, rot.copies);
    }
    std::printf("(%%HBM: of the header's measured %.0f GB/s, a 1 GiB read; check: the XOR of every word read, against the CPU's)\n",
                gpu.hbm_gbs);
    return all_correct;
}

}  // namespace read_floor
