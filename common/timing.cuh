// timing.cuh - how every kernel is timed: CUDA events around replays of a CUDA graph.
//
// launch(i) enqueues one run on gpu.stream; i counts up, so the caller can rotate input copies
// with i % copies (buffers.cuh). A short kernel is timed as a CUDA graph of back-to-back launches
// (at least kMinReplayMs of work per replay, time divided per launch), so launch latency stays
// out of the number. Warm-up first; the median and the minimum of the replays are reported.
#pragma once

#include "errors.cuh"
#include "gpu.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

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
    const double single_ms = elapsed_ms();
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

inline void print_timing_method(bool check_only, int warmup, int iters) {
    if (check_only) {
        std::printf("timing   off (--check-only)\n");
        return;
    }
    std::printf("timing   CUDA events, %d warm-up launches, median and minimum of %d replays of a CUDA graph of\n"
                "         back-to-back launches (>= %.1f ms per replay, time divided per launch); each case says\n"
                "         whether its inputs are rotated through enough copies to read them from HBM (cold L2)\n",
                warmup, iters, kMinReplayMs);
}
