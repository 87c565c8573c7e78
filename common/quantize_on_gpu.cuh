// quantize_on_gpu.cuh - any GPU quantizer behind one function type, and a checked run of one on
// a host vector: what steps 2 and 5 compare, byte for byte, with ggml's and the CPU's blocks.
#pragma once

#include "buffers.cuh"
#include "ggml_quants_gpu.cuh"

#include <vector>

// A GPU quantizer: n values (a multiple of 32) from x into blocks at y, on stream s.
using QuantizerLauncher = void (*)(const float* x, void* y, int64_t n, cudaStream_t s);

inline void launch_q4_0(const float* x, void* y, int64_t n, cudaStream_t s) { quantize_q4_0_gpu(x, static_cast<block_q4_0*>(y), n, s); }
inline void launch_q8_0(const float* x, void* y, int64_t n, cudaStream_t s) { quantize_q8_0_gpu(x, static_cast<block_q8_0*>(y), n, s); }
inline void launch_q8_1(const float* x, void* y, int64_t n, cudaStream_t s) {
    quantize_q8_1_gpu(x, static_cast<block_q8_1*>(y), n, Q81Sum::DTimesSumQ, s);
}
inline void launch_q8_1_sumx(const float* x, void* y, int64_t n, cudaStream_t s) {
    quantize_q8_1_gpu(x, static_cast<block_q8_1*>(y), n, Q81Sum::SumX, s);
}

// The blocks `launch` makes of x on the GPU (format f), its output poisoned with `pattern` first.
inline std::vector<uint8_t> quantize_on_gpu(const Gpu& gpu, QuantizerLauncher launch, QuantFormat f, const std::vector<float>& x,
                                            uint8_t pattern) {
    const int64_t n = (int64_t)x.size();
    DeviceBuffer<float> dx(n);
    DeviceBuffer<uint8_t> dy(n / 32 * block_bytes(f));
    dx.upload(x.data());
    poison(dy.get(), dy.bytes(), pattern, gpu.stream);
    launch(dx.get(), dy.get(), n, gpu.stream);
    CUDA_CHECK_LAST();
    CUDA_CHECK(cudaStreamSynchronize(gpu.stream));
    return dy.to_host();
}
