// buffers.cuh - device memory: an owning buffer, poisoning, the memory-fit check, and the copies
// that keep L2 cold while timing.
#pragma once

#include "errors.cuh"
#include "gpu.cuh"
#include "launch.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

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
    // Waits for all device work first: our streams are non-blocking, and a plain cudaMemcpy does
    // not wait for them (a download right after a launch would race with the kernel).
    void download(T* host) const {
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(host, ptr_, bytes(), cudaMemcpyDeviceToHost));
    }
    std::vector<T> to_host() const { std::vector<T> h(count_); download(h.data()); return h; }

  private:
    T* ptr_ = nullptr;
    size_t count_ = 0;
};

// Fills a kernel's output with one byte value before a checked run, so that an element the
// kernel forgot to write holds garbage, not a correct value left by the previous kernel. Every
// checked run happens twice, under both patterns (see driver.cuh): 0xFF makes every float a NaN,
// which no tolerance accepts, but it is also a correct int8 code (-1); 0x00 is a correct code
// and a correct float too, just not where 0xFF is. No byte can be correct under both.
constexpr uint8_t kPoisonPatterns[] = {0xFF, 0x00};

inline void poison(void* device_ptr, size_t bytes, uint8_t pattern, cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(device_ptr, pattern, bytes, stream));
}

// A problem that cannot fit is an input error (exit 2), not a crash.
inline void require_device_memory(const Gpu& gpu, size_t bytes) {
    if (bytes > gpu.free_bytes * 0.9)
        usage_error("this problem needs %.2f GB of device memory, the GPU has %.2f GB free; choose a smaller size",
                    bytes / 1e9, gpu.free_bytes / 1e9);
}

// Cold-L2 timing: every launch must read its inputs from HBM, not from L2 where the previous
// launch left them. So the inputs (everything a launch reads: weights, activations, scales) are
// kept in several copies and launch i reads copy i % copies; together the copies span at least
// three L2 sizes, so a copy is long evicted before it comes round again. Small problems would
// need too many copies (at most kMaxL2Copies): they are timed warm, and the case says so.
constexpr int kMaxL2Copies = 64;

struct L2Rotation {
    int copies = 1;
    bool cold = false;
    size_t bytes_per_copy = 0;
};

inline L2Rotation plan_l2_rotation(const Gpu& gpu, size_t bytes_read_per_launch, bool timing) {
    L2Rotation r;
    r.bytes_per_copy = std::max<size_t>(1, bytes_read_per_launch);
    if (!timing) return r;  // --check-only: one copy is enough
    const size_t target = 3 * gpu.l2_bytes;
    r.copies = (int)std::min<int64_t>(kMaxL2Copies, std::max<int64_t>(2, ceil_div(target, r.bytes_per_copy)));
    r.cold = (size_t)r.copies * r.bytes_per_copy >= target;
    return r;
}

inline void print_l2_rotation(const L2Rotation& r, const Gpu& gpu) {
    std::printf("timing: each launch reads %.1f MB; %d copies rotated (%.0f MB = %.1fx L2): %s\n", r.bytes_per_copy / 1e6,
                r.copies, (double)r.copies * r.bytes_per_copy / 1e6, (double)r.copies * r.bytes_per_copy / gpu.l2_bytes,
                r.cold ? "cold L2, inputs come from HBM" : "WARM L2, the inputs are too small to evict it (< 3x L2)");
}

// Uploads `count` host elements into copy 0 of dst, then fills the other copies on the device.
template <class T>
void upload_copies(DeviceBuffer<T>& dst, const T* host, size_t count, int copies) {
    CUDA_CHECK(cudaMemcpy(dst.get(), host, count * sizeof(T), cudaMemcpyHostToDevice));
    for (int i = 1; i < copies; ++i)
        CUDA_CHECK(cudaMemcpy(dst.get() + i * count, dst.get(), count * sizeof(T), cudaMemcpyDeviceToDevice));
}

// A host array on the device in `copies` equal copies, back to back (cold-L2 timing rotates them).
template <class T>
DeviceBuffer<T> upload_rotated(const std::vector<T>& host, int copies) {
    DeviceBuffer<T> d(host.size() * copies);
    upload_copies(d, host.data(), host.size(), copies);
    return d;
}
// Copy i % copies of such a buffer; null for a buffer that was never made.
template <class T>
const T* rotated_copy(const DeviceBuffer<T>& b, int copies, int i) {
    return b.get() ? b.get() + (b.count() / copies) * (size_t)(i % copies) : nullptr;
}

// The L2 column of the CSV: how the case was timed.
inline const char* l2_state(const L2Rotation& r, bool check_only) { return check_only ? "-" : r.cold ? "cold" : "warm"; }
