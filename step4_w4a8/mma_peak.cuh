// mma_peak.cuh - how fast mma.sync's int8 tensor cores run on this GPU with nothing else to do, and
// with Q4_0's FP32 epilogue after every mma (both ways of making its scale products): the ceilings
// that TENSOR_CORES.md ("The ceiling") holds rung 09 against. `step4_w4a8 --mma-peak` prints them.
//
// Each warp keeps kChains independent accumulator tiles in registers and issues kIters rounds of
// kChains mma.sync m16n8k32 (s8 x s8 -> s32) on register operands: no memory and no shared memory,
// only the tensor pipe and its dependences. The epilogue variant pays, after each mma, what a
// Q4_0 block costs rung 09: the mma starts from zero (a block is one k-step of 32), and each of its
// four int32 results is converted to FP32, scaled by the product of its two block scales and added
// into an FP32 accumulator (convert, multiply, FMA: 12 FP32-pipe instructions per mma, and the
// two adds per mma that make its new weight scales, where rung 09 reads them from shared memory).
// The third variant makes the four scale products as rung 09 does now, with one TF32 mma per
// int8 mma (outer_product_times4): 8 FP32-pipe instructions and two mmas per block.
// The nominal int8 peak counts the dense tensor-core rate of the SM; mma.sync, a warp-level
// instruction from the Ampere generation, reaches only part of it on Hopper (wgmma is the
// instruction that the peak is quoted for).
#pragma once

#include "../common/common.cuh"
#include "../common/mma.cuh"

namespace mma_peak {

constexpr int kChains = 8;           // independent mma per round and warp
constexpr int kIters = 2048;         // rounds per launch
constexpr int kThreads = 128;        // 4 warps per CTA
constexpr int kCtasPerSm = 4;        // 16 warps per SM, 4 per scheduler
constexpr double kOpsPerMma = 2.0 * 16 * 8 * 32;

// What follows each mma: nothing; the epilogue with its scale products by FMUL; or by a TF32 mma.
enum class Epilogue { None, Fp32Products, TensorProducts };

// Operands from the launch's arguments (unknown to the compiler); results reach memory only under
// a condition the arguments never meet, so that nothing is optimized away and nothing is stored.
template <Epilogue EPILOGUE>
__global__ void __launch_bounds__(kThreads) mma_peak_kernel(uint32_t seed, float* sink) {
    uint32_t a[4], b[2];
#pragma unroll
    for (int i = 0; i < 4; ++i) a[i] = seed * (threadIdx.x + 7 * i + 1);
    b[0] = seed ^ threadIdx.x, b[1] = seed + threadIdx.x;
    int d[kChains][4] = {};
    float acc[kChains][4] = {}, block_scale = 1.0f;
    const float a_scale[2] = {__uint_as_float(0x3c000000u | (seed & 0xff)), __uint_as_float(0x3b800000u | (seed & 0xff))};
    for (int it = 0; it < kIters; ++it) {
        block_scale += 1.0f;  // a new weight scale every round: the scale products cannot be hoisted
#pragma unroll
        for (int c = 0; c < kChains; ++c) {
            if constexpr (EPILOGUE != Epilogue::None) {
                int z[4] = {0, 0, 0, 0};
                mma_m16n8k32_s8_s32(z, a, b);
                // results i: rows g (i < 2) and g + 8, tokens 2t and 2t + 1: four scale products
                const float w_scale[2] = {block_scale + (float)c, block_scale - (float)c};
                float product[4];
                if constexpr (EPILOGUE == Epilogue::TensorProducts) {
                    outer_product_times4(product, w_scale[0], w_scale[1], a_scale[threadIdx.x / 4 % 2]);
                } else {
#pragma unroll
                    for (int i = 0; i < 4; ++i) product[i] = w_scale[i / 2] * a_scale[i % 2];
                }
#pragma unroll
                for (int i = 0; i < 4; ++i) acc[c][i] = fmaf((float)z[i], product[i], acc[c][i]);
            } else {
                mma_m16n8k32_s8_s32(d[c], a, b);
            }
        }
    }
    float total = 0.f;
#pragma unroll
    for (int c = 0; c < kChains; ++c)
#pragma unroll
        for (int i = 0; i < 4; ++i) total += EPILOGUE != Epilogue::None ? acc[c][i] : (float)d[c][i];
    if (seed == 0 && total == 1.0f) sink[threadIdx.x] = total;  // seed is never 0
}

// Prints the three rates and their share of the GPU's nominal int8 tensor peak. Returns false when
// the GPU cannot run it (a SKIP line says why).
inline bool run(const Gpu& gpu, const Options& opt) {
    std::printf("\n== mma.sync m16n8k32 int8 on register operands, no memory (TENSOR_CORES.md, \"The ceiling\") ==\n");
    const std::string shortfall = arch_shortfall(gpu, ArchNeed{80});
    if (!shortfall.empty()) {
        std::printf("SKIP mma_peak: %s\n", shortfall.c_str());
        return false;
    }
    const int ctas = gpu.sms * kCtasPerSm;
    const double ops = kOpsPerMma * kChains * kIters * (kThreads / 32) * ctas;
    DeviceBuffer<float> sink(kThreads);
    const double peak = gpu.peak_tera(Pipe::Int8Tensor);
    std::printf("%d CTAs of %d warps, each warp %d rounds of %d independent mma (%.1f Tera-ops per launch)\n", ctas,
                kThreads / 32, kIters, kChains, ops * 1e-12);
    std::printf("  %-34s %10s %10s %10s\n", "variant", "median(ms)", "TOPS", "% of peak");
    auto row = [&](const char* name, auto kernel) {
        const TimingStats t = time_launches(gpu, [&](int) { kernel<<<ctas, kThreads, 0, gpu.stream>>>(0x9e3779b9u, sink.get()); },
                                            opt.warmup, opt.iters);
        const double tops = ops / (t.median_ms * 1e-3) * 1e-12;
        std::printf("  %-34s %10.4f %10.0f %9.0f%%\n", name, t.median_ms, tops, 100.0 * tops / peak);
    };
    row("mma alone", mma_peak_kernel<Epilogue::None>);
    row("mma + Q4_0 epilogue (12 FP32 ops)", mma_peak_kernel<Epilogue::Fp32Products>);
    row("mma + epilogue, TF32 products (8)", mma_peak_kernel<Epilogue::TensorProducts>);
    std::printf("(peak: the nominal INT8 tensor figure of the header line, %.0f TOPS)\n", peak);
    return true;
}

}  // namespace mma_peak
