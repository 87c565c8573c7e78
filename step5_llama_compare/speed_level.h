// speed_level.h - level 4 of step 5: speed. Our own step programs (steps 3 and 4) are run at the
// shapes where llama.cpp's MUL_MAT was timed on an H200 (results/llama_cpp_h200.csv), each
// writing its timings to a CSV, and their fastest passing kernels are printed beside llama.cpp's
// recorded times. Nothing is timed twice and no kernel is copied here: the steps time themselves,
// as a reader would run them.
#pragma once

#include "../common/csv_table.h"
#include "../common/llama_times.h"
#include "../common/report.h"
#include "../common/gpu.cuh"
#ifdef QGF_WITH_GGML_CUDA
#include "ggml_live.h"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <unistd.h>
#include <vector>

// The shapes of level 4: llama.cpp's three matrices at these batch sizes.
const std::vector<long long> kSpeedLevelM = {1, 4, 16, 128, 512};
// The kernels whose fastest passing time stands for each step (GEMVs for small M, tensor cores
// above; the Hopper rungs say SKIP on other GPUs and where M is too small for their tiles).
const std::vector<std::string> kStep3Contenders = {"gemv_g128",     "gemv_resident_g128", "gemv_mma_g128", "gemv_tma_g128",
                                                   "mma_g128",      "wgmma_g128",         "auto_g128"};
const std::vector<std::string> kStep4Contenders = {"gemv_pdl", "gemv_resident", "gemv_mma", "mma_int8", "mma_int8_tma", "wgmma_int8"};
// Step 4's Q4_K kernels (KQUANTS.md), against llama.cpp's recorded Q4_K times: GEMVs for decoding,
// tensor cores for prompts.
const std::vector<std::string> kStep4Q4KContenders = {"gemv_q4_k", "gemv_mma_q4_k", "mma_q4_k"};

struct StepTiming {
    double time_us = NAN;  // NaN: nothing passed, or the step did not run
    std::string kernel;
    int exit_code = -1;
};

// The directory of this program: the step programs are built next to it.
inline std::string program_dir(const char* argv0) {
    char path[4096];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    std::string self = n > 0 ? std::string(path, (size_t)n) : std::string(argv0);
    const size_t slash = self.rfind('/');
    return slash == std::string::npos ? std::string(".") : self.substr(0, slash);
}

// The fastest PASS row among `kernels` in a step's --csv file (report.h's append_csv).
inline StepTiming fastest_in_csv(const std::string& csv_path, const std::vector<std::string>& kernels) {
    const CsvTable table = read_csv(csv_path);
    const int kernel = table.column("kernel"), time_ms = table.column("time_ms"), status = table.column("status");
    StepTiming best;
    for (size_t r = 0; r < table.rows.size(); ++r) {
        const std::string *name = table.field(r, kernel), *ms = table.field(r, time_ms), *st = table.field(r, status);
        if (!name || !ms || !st || *st != "PASS" || std::find(kernels.begin(), kernels.end(), *name) == kernels.end()) continue;
        const double us = std::atof(ms->c_str()) * 1e3;
        if (us > 0 && !(us >= best.time_us)) best.time_us = us, best.kernel = *name;
    }
    return best;
}

// Runs one step program at one shape, its output to a log; its fastest kernel from its CSV. `tag`
// tells apart two runs of one step at one shape (their logs and CSVs).
inline StepTiming time_step(const std::string& dir, const std::string& step, const std::vector<std::string>& kernels,
                            long long M, long long N, long long K, const std::string& scratch, const std::string& tag = "") {
    const std::string shape = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + tag;
    const std::string csv = scratch + "/" + step + "-" + shape + ".csv", log = scratch + "/" + step + "-" + shape + ".log";
    std::string list;
    for (const auto& k : kernels) list += (list.empty() ? "" : ",") + k;
    const std::string command = "'" + dir + "/" + step + "' --m " + std::to_string(M) + " --n " + std::to_string(N) + " --k " +
                                std::to_string(K) + " --kernel " + list + " --iters 10 --warmup 3 --csv '" + csv + "' > '" + log +
                                "' 2>&1";
    const int status = std::system(command.c_str());
    StepTiming t = fastest_in_csv(csv, kernels);
    t.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return t;
}

// Where the step programs run from (beside this one) and a fresh folder for their logs; false,
// after a SKIP line, when one of `steps` is not built or /tmp refuses the folder.
struct StepRuns {
    std::string dir, scratch;
};
inline bool prepare_step_runs(const char* argv0, std::initializer_list<const char*> steps, const char* scratch_name,
                              StepRuns& runs) {
    runs.dir = program_dir(argv0);
    for (const char* step : steps)
        if (access((runs.dir + "/" + step).c_str(), X_OK) != 0) {
            std::printf("  SKIP: %s/%s is not built (make)\n", runs.dir.c_str(), step);
            return false;
        }
    std::string scratch = std::string("/tmp/") + scratch_name + "_XXXXXX";
    if (!mkdtemp(scratch.data())) {
        std::printf("  SKIP: cannot make a scratch directory in /tmp\n");
        return false;
    }
    runs.scratch = scratch;
    return true;
}

// A step's table cell: its time and fastest kernel, or its exit code.
inline std::string timing_cell(const StepTiming& s) {
    if (s.exit_code != 0) return "exit " + std::to_string(s.exit_code) + " (see log)";
    return fmt_or_dash(s.time_us, "%.1f us") + " " + s.kernel;
}

#ifdef QGF_WITH_GGML_CUDA
// One weight format of the live speed comparison: ggml's type and step 4's kernels for it.
struct LiveSpeedFormat {
    const char* name;  // as the table heads it
    LiveFormat ggml;
    const std::vector<std::string>* ours;
    const char* tag;  // tells its step 4 runs apart from the other format's (time_step)
};

// The live speed comparison: the reader's ggml CUDA MUL_MAT (ggml_live_cuda.cpp) and step 4, run
// here and now on the same GPU and shapes, both whole operations with cold L2, for Q4_0 and Q4_K
// weights. Returns false when step 4 failed a check or ggml could not run.
inline bool run_live_speed(const char* argv0, const Gpu& gpu) {
    StepRuns runs;
    if (!prepare_step_runs(argv0, {"step4_w4a8"}, "step5_live", runs)) return true;
    std::printf("  both timed here: a graph of back-to-back operations, weights rotated through copies spanning 3x L2,\n"
                "  median of 20 replays; ggml's replay is timed on the host (its graph compute synchronizes), ours\n"
                "  with CUDA events (step 4's own timing; logs in %s)\n", runs.scratch.c_str());
    bool ok = true;
    const LiveSpeedFormat formats[] = {{"Q4_0", LiveFormat::Q4_0, &kStep4Contenders, ""},
                                       {"Q4_K", LiveFormat::Q4_K, &kStep4Q4KContenders, "-q4_k"}};
    for (const LiveSpeedFormat& f : formats) {
        std::printf("  %s weights:\n  %5s %6s %6s  %-24s %16s %10s\n", f.name, "M", "N", "K", "ours (step 4)", "ggml CUDA, live",
                    "ggml/ours");
        for (long long m : kSpeedLevelM)
            for (const auto& [n, k] : {std::pair<long long, long long>{4096, 14336}, {14336, 4096}, {4096, 4096}}) {
                const double weight_bytes = (double)n * k / 32 * 18;  // 4.5 bits per weight, both formats
                const int copies = std::max(1, (int)std::ceil(3.0 * (double)gpu.l2_bytes / weight_bytes));
                const double theirs = ggml_live_cuda_mul_mat_us(f.ggml, m, n, k, copies, 20, 5, 1234);
                const StepTiming ours = time_step(runs.dir, "step4_w4a8", *f.ours, m, n, k, runs.scratch, f.tag);
                ok = ok && ours.exit_code == 0 && std::isfinite(theirs);
                std::printf("  %5lld %6lld %6lld  %-24s %16s %10s\n", m, n, k, timing_cell(ours).c_str(),
                            fmt_or_dash(theirs, "%.1f us").c_str(), fmt_or_dash(theirs / ours.time_us, "%.2fx").c_str());
            }
    }
    return ok;
}
#endif

// Level 4. Returns false when a step program failed a check (or could not run) at some shape.
inline bool run_speed_level(const char* argv0, const std::string& gpu_name) {
    const std::vector<LlamaTime> llama = read_llama_times();
    if (llama.empty()) {
        std::printf("  SKIP: no recorded llama.cpp times at %s\n", QGF_LLAMA_TIMES);
        return true;
    }
    StepRuns runs;
    if (!prepare_step_runs(argv0, {"step3_w4a16", "step4_w4a8"}, "step5_speed", runs)) return true;
    const LlamaTime& source = llama.front();
    const bool same_gpu = gpu_name == source.gpu;
    std::printf("  steps 3 and 4 run as you would run them (--m --n --k --kernel ... --csv; logs in %s),\n"
                "  cold L2, activation quantization included; llama.cpp: %s, ggml %s, %s, weights reused (warm L2)%s\n",
                runs.scratch.c_str(), source.gpu.c_str(), source.ggml_commit.c_str(), source.date.c_str(),
                same_gpu ? "" : "; another GPU than this one, so no ratio");
    std::printf("  %5s %6s %6s  %-27s %-22s %11s %14s\n", "M", "N", "K", "W4A16 (step 3)", "W4A8 (step 4)", "llama.cpp",
                "W4A8 vs llama");
    bool ok = true;
    auto wanted = [](const LlamaTime& t, const char* weights) {
        return t.weights == weights && std::find(kSpeedLevelM.begin(), kSpeedLevelM.end(), t.M) != kSpeedLevelM.end();
    };
    for (const auto& t : llama) {
        if (!wanted(t, "q4_0")) continue;
        const StepTiming w4a16 = time_step(runs.dir, "step3_w4a16", kStep3Contenders, t.M, t.N, t.K, runs.scratch);
        const StepTiming w4a8 = time_step(runs.dir, "step4_w4a8", kStep4Contenders, t.M, t.N, t.K, runs.scratch);
        ok = ok && w4a16.exit_code == 0 && w4a8.exit_code == 0;
        std::printf("  %5lld %6lld %6lld  %-27s %-22s %11s %14s\n", t.M, t.N, t.K, timing_cell(w4a16).c_str(), timing_cell(w4a8).c_str(),
                    fmt_or_dash(t.time_us, "%.1f us").c_str(),
                    same_gpu ? fmt_or_dash(t.time_us / w4a8.time_us, "%.2fx").c_str() : "-");
    }
    std::printf("  (W4A8 is llama.cpp's own scheme: its MUL_MAT quantizes the F32 activations to Q8_1 first; W4A16\n"
                "   keeps them in fp16 with group-128 weights, a different format shown for scale)\n");
    std::printf("  Q4_K weights (step 4's K-quant chapter, KQUANTS.md):\n");
    std::printf("  %5s %6s %6s  %-22s %11s %14s\n", "M", "N", "K", "W4A8 Q4_K (step 4)", "llama.cpp", "W4A8 vs llama");
    for (const auto& t : llama) {
        if (!wanted(t, "q4_k")) continue;
        const StepTiming q4_k = time_step(runs.dir, "step4_w4a8", kStep4Q4KContenders, t.M, t.N, t.K, runs.scratch, "-q4_k");
        ok = ok && q4_k.exit_code == 0;
        std::printf("  %5lld %6lld %6lld  %-22s %11s %14s\n", t.M, t.N, t.K, timing_cell(q4_k).c_str(), fmt_or_dash(t.time_us, "%.1f us").c_str(),
                    same_gpu ? fmt_or_dash(t.time_us / q4_k.time_us, "%.2fx").c_str() : "-");
    }
    return ok;
}
