// Step 5: side by side with llama.cpp. What "compatible with llama.cpp" means, level by level.
//
// What it teaches: compatibility is not one thing. This program checks four levels, each PASS or
// FAIL, against what ggml itself produced (common/golden/, made by ggml at commit d99724f2):
//   1. layout   our block structs have ggml's sizes and field offsets (also static_asserts);
//   2. bytes    our quantizers, CPU and GPU, write ggml's bytes for every golden input;
//   3. numbers  our dot products, from our own blocks, reproduce the values ggml recorded: the
//               CPU ones bit for bit, the GPU kernel (step 4's) within FP32 summation order;
//   4. speed    steps 3 and 4, run at llama.cpp's shapes, beside llama.cpp's recorded H200 times
//               (speed_level.h; on a GPU, not with --check-only).
// Levels 1-3 run without a GPU (--cpu-only, a CTest in CI); --golden DIR runs levels 2-3 on any
// folder of cases in the golden layout, so that fresh vectors from your own ggml can be checked.
// Built with -DGGML_DIR (your own ggml checkout and build), it also compares bytes live: fresh
// data through ggml's library and ours (ggml_live.cpp, the only file that includes ggml.h).
//
// Build and run:   make step5          (or: build/step5_llama_compare [--cpu-only] [--golden DIR])
// Look for:        which levels are exact and which need a tolerance, and why (README.md).
#include "../common/common.cuh"
#include "../common/ggml_quants.h"
#include "../common/quantize_on_gpu.cuh"
#include "../common/ggml_quants_tensor.h"
#include "../common/golden.h"
#include "../common/golden_kquants.h"
#include "../common/q4_0_q8_1.h"
#include "../step4_w4a8/kernels/01_naive.cuh"
#include "exercises/ex1_dequant_q8_0.h"
#include "exercises/ex2_unquantized_dot.h"
#include "exercises/solutions/ex1_dequant_q8_0.h"
#include "exercises/solutions/ex2_unquantized_dot.h"
#include "speed_level.h"

#include <cstddef>

#ifdef QGF_WITH_GGML
#include "../common/ggml_kquants_tensor.h"
#include "ggml_live.h"

#include <functional>
#endif

#ifndef QGF_GOLDEN_DIR
#define QGF_GOLDEN_DIR "common/golden"
#endif

// ---------------------------------------------------------------------------------------------
// Level 1: layout
// ---------------------------------------------------------------------------------------------

// ggml's layout (src/ggml-common.h at d99724f2): packed blocks, fp16 scales, no padding.
struct FieldLayout {
    const char* type;
    const char* field;
    size_t ours_offset, ours_size, ggml_offset, ggml_size;
};

static_assert(sizeof(block_q4_0) == 18 && offsetof(block_q4_0, d) == 0 && offsetof(block_q4_0, qs) == 2, "block_q4_0 as ggml");
static_assert(sizeof(block_q8_0) == 34 && offsetof(block_q8_0, d) == 0 && offsetof(block_q8_0, qs) == 2, "block_q8_0 as ggml");
static_assert(sizeof(block_q8_1) == 36 && offsetof(block_q8_1, d) == 0 && offsetof(block_q8_1, s) == 2 &&
                  offsetof(block_q8_1, qs) == 4,
              "block_q8_1 as ggml");
static_assert(alignof(block_q8_1) == 4, "block_q8_1 is 4-byte aligned in ggml (its d and s form one half2)");

bool check_layout() {
    const FieldLayout fields[] = {
        {"block_q4_0", "(whole)", 0, sizeof(block_q4_0), 0, 18},
        {"block_q4_0", "d", offsetof(block_q4_0, d), sizeof(ggml_half), 0, 2},
        {"block_q4_0", "qs[16]", offsetof(block_q4_0, qs), sizeof(block_q4_0::qs), 2, 16},
        {"block_q8_0", "(whole)", 0, sizeof(block_q8_0), 0, 34},
        {"block_q8_0", "d", offsetof(block_q8_0, d), sizeof(ggml_half), 0, 2},
        {"block_q8_0", "qs[32]", offsetof(block_q8_0, qs), sizeof(block_q8_0::qs), 2, 32},
        {"block_q8_1", "(whole)", 0, sizeof(block_q8_1), 0, 36},
        {"block_q8_1", "d", offsetof(block_q8_1, d), sizeof(ggml_half), 0, 2},
        {"block_q8_1", "s", offsetof(block_q8_1, s), sizeof(ggml_half), 2, 2},
        {"block_q8_1", "qs[32]", offsetof(block_q8_1, qs), sizeof(block_q8_1::qs), 4, 32},
        {"block_q4_K", "(whole)", 0, sizeof(block_q4_K), 0, 144},
        {"block_q4_K", "d", offsetof(block_q4_K, d), sizeof(ggml_half), 0, 2},
        {"block_q4_K", "dmin", offsetof(block_q4_K, dmin), sizeof(ggml_half), 2, 2},
        {"block_q4_K", "scales", offsetof(block_q4_K, scales), sizeof(block_q4_K::scales), 4, 12},
        {"block_q4_K", "qs[128]", offsetof(block_q4_K, qs), sizeof(block_q4_K::qs), 16, 128},
        {"block_q6_K", "(whole)", 0, sizeof(block_q6_K), 0, 210},
        {"block_q6_K", "ql[128]", offsetof(block_q6_K, ql), sizeof(block_q6_K::ql), 0, 128},
        {"block_q6_K", "qh[64]", offsetof(block_q6_K, qh), sizeof(block_q6_K::qh), 128, 64},
        {"block_q6_K", "scales", offsetof(block_q6_K, scales), sizeof(block_q6_K::scales), 192, 16},
        {"block_q6_K", "d", offsetof(block_q6_K, d), sizeof(ggml_half), 208, 2},
        {"block_q8_K", "(whole)", 0, sizeof(block_q8_K), 0, 292},
        {"block_q8_K", "d", offsetof(block_q8_K, d), sizeof(float), 0, 4},
        {"block_q8_K", "qs[256]", offsetof(block_q8_K, qs), sizeof(block_q8_K::qs), 4, 256},
        {"block_q8_K", "bsums[16]", offsetof(block_q8_K, bsums), sizeof(block_q8_K::bsums), 260, 32},
    };
    bool ok = true;
    std::printf("  %-11s %-8s %18s %18s\n", "type", "field", "ours (offset+size)", "ggml (offset+size)");
    for (const auto& f : fields) {
        const bool same = f.ours_offset == f.ggml_offset && f.ours_size == f.ggml_size;
        ok = ok && same;
        std::printf("  %-11s %-8s %12zu + %-3zu %12zu + %-3zu %s\n", f.type, f.field, f.ours_offset, f.ours_size,
                    f.ggml_offset, f.ggml_size, same ? "" : "  DIFFERENT");
    }
    std::printf("  level 1, layout: %s\n", ok ? "PASS" : "FAIL");
    return ok;
}

// ---------------------------------------------------------------------------------------------
// Level 2: bytes
// ---------------------------------------------------------------------------------------------

// The four quantizers ggml has an answer for, and which golden file holds it.
struct QuantizerCase {
    const char* name;
    QuantFormat format;
    Q81Sum sum_mode;
    QuantizerLauncher gpu;
    const std::vector<uint8_t>& (*expected)(const GoldenCase&);
};
const QuantizerCase kQuantizerCases[] = {
    {"q4_0", QuantFormat::Q4_0, Q81Sum::DTimesSumQ, launch_q4_0, [](const GoldenCase& c) -> const std::vector<uint8_t>& { return c.q4_0; }},
    {"q8_0", QuantFormat::Q8_0, Q81Sum::DTimesSumQ, launch_q8_0, [](const GoldenCase& c) -> const std::vector<uint8_t>& { return c.q8_0; }},
    {"q8_1 (s = d*sum q)", QuantFormat::Q8_1, Q81Sum::DTimesSumQ, launch_q8_1,
     [](const GoldenCase& c) -> const std::vector<uint8_t>& { return c.q8_1; }},
    {"q8_1 (s = sum x)*", QuantFormat::Q8_1, Q81Sum::SumX, launch_q8_1_sumx,
     [](const GoldenCase& c) -> const std::vector<uint8_t>& { return c.q8_1_cudaemu; }},
};

size_t differing_bytes(const std::vector<uint8_t>& got, const std::vector<uint8_t>& expected, QuantFormat f) {
    if (got.size() != expected.size()) return SIZE_MAX;
    return check_bytes("", got.data(), expected.data(), got.size(), block_bytes(f), 0).bad;
}

// Differing bytes per quantizer over every case, CPU (and GPU when one is given).
bool check_bytes_level(const std::vector<GoldenCase>& cases, const Gpu* gpu) {
    bool ok = true;
    std::printf("  %-20s %16s %16s   (bytes that differ from ggml's, over %zu cases)\n", "quantizer", "CPU", "GPU",
                cases.size());
    for (const auto& q : kQuantizerCases) {
        size_t cpu = 0, gpu_diffs = 0, total = 0;
        std::string differing;  // the cases whose bytes differ, and where
        for (const auto& c : cases) {
            const std::vector<uint8_t>& expected = q.expected(c);
            const QuantizedTensor t = quantize_cpu(c.x.data(), (int64_t)c.x.size(), q.format, q.sum_mode);
            const size_t case_cpu = differing_bytes(t.bytes, expected, q.format);
            size_t case_gpu = 0;
            if (gpu)
                for (uint8_t pattern : kPoisonPatterns)
                    case_gpu += differing_bytes(quantize_on_gpu(*gpu, q.gpu, q.format, c.x, pattern), expected, q.format);
            if (case_cpu + case_gpu > 0)
                differing += (differing.empty() ? "" : ", ") + c.name + " (" + std::to_string(case_cpu) + " CPU, " +
                             (gpu ? std::to_string(case_gpu) : std::string("-")) + " GPU)";
            cpu += case_cpu;
            gpu_diffs += case_gpu;
            total += expected.size();
        }
        ok = ok && cpu == 0 && gpu_diffs == 0;
        std::printf("  %-20s %16zu %16s   of %zu bytes%s\n", q.name, cpu, gpu ? std::to_string(gpu_diffs).c_str() : "(no GPU)",
                    total, cpu == 0 && gpu_diffs == 0 ? "" : "   FAIL");
        if (!differing.empty()) std::printf("    differ in: %s\n", differing.c_str());
    }
    std::printf("  * against q8_1_cudaemu.bin: an emulation of llama.cpp's CUDA quantizer in IEEE fp32, not ggml output\n");
    std::printf("  level 2, bytes: %s\n", ok ? "PASS" : "FAIL");
    return ok;
}

// ---------------------------------------------------------------------------------------------
// Level 3: numbers
// ---------------------------------------------------------------------------------------------

// The values ggml recorded (golden README, dots.f64), recomputed on the CPU from *our* blocks:
// common/q4_0_q8_1.h's count_golden_dots says which variants are bit for bit and why one is not.
void cpu_numbers(const GoldenCase& c, GoldenDotCounts& counts) {
    const int64_t count = c.rows * c.k;
    const QuantizedTensor w = quantize_cpu(c.x.data(), count, QuantFormat::Q4_0);
    const QuantizedTensor a8_0 = quantize_cpu(c.x.data(), count, QuantFormat::Q8_0);
    const QuantizedTensor a8_1 = quantize_cpu(c.x.data(), count, QuantFormat::Q8_1);
    const QuantizedTensor a_sumx = quantize_cpu(c.x.data(), count, QuantFormat::Q8_1, Q81Sum::SumX);
    count_golden_dots(c.dots.data(), c.rows, c.k / 32, reinterpret_cast<const block_q4_0*>(w.bytes.data()),
                      reinterpret_cast<const block_q8_0*>(a8_0.bytes.data()), reinterpret_cast<const block_q8_1*>(a8_1.bytes.data()),
                      reinterpret_cast<const block_q8_1*>(a_sumx.bytes.data()), counts);
}

// Step 4's naive W4A8 kernel on the golden weights and activations (every row against every
// row), against v4 (s = d*sum q) and v5 (s = sum x). The GPU contracts multiplies and adds into
// FMAs, so it is not bit-identical: the tolerance is step 4's, 3e-6 of sum |deq(w)·deq(a)|.
// Where ggml's value is not finite (an fp16 overflow of s or d), ours must not be finite either,
// as inf or NaN (which one depends on the order of the additions): gpu_dot_matches_golden.
struct GpuNumberCounts {
    size_t compared = 0, bad = 0, not_finite = 0;  // not_finite: of those compared, ggml's overflowed
    double worst = 0;  // largest |got - ggml| / sum |deq(w)·deq(a)|
};

void gpu_numbers(const Gpu& gpu, const GoldenCase& c, GpuNumberCounts& out) {
    const int64_t nb = c.k / 32, rows = c.rows;
    const auto* w = reinterpret_cast<const block_q4_0*>(c.q4_0.data());
    DeviceBuffer<block_q4_0> dw(rows * nb);
    DeviceBuffer<block_q8_1> da(rows * nb);
    DeviceBuffer<float> dc(rows * rows);
    dw.upload(w);
    std::vector<double> scale(rows * rows, 0.0);  // sum |deq(w)·deq(a)| per (i, j), from ggml's dequantized files
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < rows; ++j)
            for (int64_t k = 0; k < c.k; ++k)
                scale[i * rows + j] += std::fabs((double)c.deq_q4_0[i * c.k + k] * (double)c.deq_q8_0[j * c.k + k]);
    const std::pair<const std::vector<uint8_t>*, int> activations[] = {{&c.q8_1, 4}, {&c.q8_1_cudaemu, 5}};
    for (const auto& [bytes, variant] : activations) {
        da.upload(reinterpret_cast<const block_q8_1*>(bytes->data()));
        W4A8Args p{};
        p.w_blocks = dw.get();
        p.a = da.get();
        p.c = dc.get();
        p.M = (int)rows, p.N = (int)rows, p.K = (int)c.k;
        for (uint8_t pattern : kPoisonPatterns) {
            poison(dc.get(), dc.bytes(), pattern, gpu.stream);
            launch_w4a8_naive(p, gpu.stream);
            CUDA_CHECK_LAST();
            const std::vector<float> got = dc.to_host();  // got[m * N + n]: activation row m, weight row n
            for (int64_t i = 0; i < rows; ++i)
                for (int64_t j = 0; j < rows; ++j) {
                    const double expected = c.dots[(i * rows + j) * 8 + variant], g = got[j * rows + i];
                    ++out.compared;
                    out.bad += !gpu_dot_matches_golden(g, expected, scale[i * rows + j]);
                    if (!std::isfinite(expected)) {
                        ++out.not_finite;
                        continue;
                    }
                    const double err = std::fabs(g - expected) / std::max(scale[i * rows + j], 1e-300);
                    out.worst = std::max(out.worst, std::isfinite(err) ? err : INFINITY);
                }
        }
    }
}

bool check_numbers_level(const std::vector<GoldenCase>& cases, const Gpu* gpu) {
    GoldenDotCounts total;
    for (const auto& c : cases) cpu_numbers(c, total);
    bool ok = true;
    std::printf("  CPU, from our own blocks (%zu dot products per variant):\n", total.compared);
    for (int v = 0; v < GoldenDotCounts::kVariants; ++v) {
        ok = ok && total.bad[v] == 0;
        std::printf("    %-32s %-12s %8zu differ%s\n", GoldenDotCounts::kNames[v], GoldenDotCounts::kRules[v], total.bad[v],
                    total.bad[v] ? "   FAIL" : "");
    }
    if (gpu) {
        GpuNumberCounts g;
        for (const auto& c : cases) gpu_numbers(*gpu, c, g);
        ok = ok && g.bad == 0;
        std::printf("  GPU, step 4's naive kernel, v4 and v5, both poison patterns: %zu compared, %zu beyond %.0e of sum|aw| "
                    "(worst %.1e) or finite where ggml's is not (%zu not finite in ggml's file)%s\n",
                    g.compared, g.bad, kSumOrderTolerance, g.worst, g.not_finite, g.bad ? "   FAIL" : "");
    } else {
        std::printf("  GPU: not run (no GPU, or --cpu-only)\n");
    }
    std::printf("  level 3, numbers: %s\n", ok ? "PASS" : "FAIL");
    return ok;
}

// ---------------------------------------------------------------------------------------------
// Live: the reader's own ggml library (built in with -DGGML_DIR), on fresh data
// ---------------------------------------------------------------------------------------------

#ifdef QGF_WITH_GGML
// Fresh data: N(0,1); the same with 1 value in 97 times 20; and exact ties: each 32-block holds
// one value of magnitude 127 (so Q8's d is 1 and id is 1) and otherwise multiples of 0.5, so that
// x·id lands exactly half-way between two codes: round-half-away and round-half-even disagree.
std::vector<std::pair<std::string, std::vector<float>>> live_data(uint64_t seed, int64_t n) {
    std::vector<float> normal(n);
    fill_normal(normal, seed, 51);
    std::vector<float> outliers = normal, ties(n);
    for (int64_t i = 0; i < n; i += 97) outliers[i] *= 20.f;
    fill_uniform(ties, seed, 52, -126.f, 126.f);
    for (int64_t i = 0; i < n; ++i)
        ties[i] = i % 32 == 0 ? ((i / 32) % 2 ? 127.f : -127.f) : std::round(ties[i] * 2.f) / 2.f;
    return {{"N(0,1)", normal}, {"outliers x20", outliers}, {"exact ties", ties}};
}

// One format of the live comparison: ggml's type, and our CPU code's bytes and values.
struct LiveRow {
    const char* name;
    LiveFormat theirs;
    size_t block_bytes;
    std::function<std::vector<uint8_t>(const std::vector<float>&)> quantize;
    std::function<std::vector<float>(const std::vector<uint8_t>&)> dequantize;
};
LiveRow live_row(QuantFormat f, LiveFormat theirs) {
    return {format_name(f), theirs, block_bytes(f),
            [f](const std::vector<float>& x) { return quantize_cpu(x.data(), (int64_t)x.size(), f).bytes; },
            [f](const std::vector<uint8_t>& bytes) { return dequantize_cpu(QuantizedTensor{f, bytes}); }};
}
LiveRow live_row(const char* kquant, LiveFormat theirs) {
    const KQuantFormat* k = kquant_format(kquant);
    return {k->name, theirs, k->block_bytes, k->quantize, k->dequantize};
}

bool check_live(uint64_t seed) {
    constexpr int64_t kValues = 64 * 4096;  // whole super-blocks of 256 for the K-quants
    std::printf("  linked: %s\n", ggml_live_version().c_str());
    std::printf("  %-20s %-6s %22s %24s\n", "data", "format", "bytes differing", "dequantized differing");
    const LiveRow rows[] = {live_row(QuantFormat::Q4_0, LiveFormat::Q4_0), live_row(QuantFormat::Q8_0, LiveFormat::Q8_0),
                            live_row(QuantFormat::Q8_1, LiveFormat::Q8_1), live_row("q4_k", LiveFormat::Q4_K),
                            live_row("q6_k", LiveFormat::Q6_K)};
    bool ok = true;
    for (const auto& [name, x] : live_data(seed, kValues))
        for (const LiveRow& f : rows) {
            const std::vector<uint8_t> theirs = ggml_live_quantize(f.theirs, x.data(), kValues);
            const std::vector<uint8_t> mine = f.quantize(x);
            const size_t bytes = mine.size() == theirs.size()  // SIZE_MAX: ggml has no quantizer
                                     ? check_bytes("", mine.data(), theirs.data(), mine.size(), f.block_bytes, 0).bad
                                     : SIZE_MAX;
            const std::vector<float> their_values = ggml_live_dequantize(f.theirs, theirs, kValues);
            const bool dequantizes = !their_values.empty();
            const size_t values = dequantizes ? count_float_diffs(f.dequantize(mine), their_values) : 0;
            const bool pass = bytes == 0 && values == 0;
            ok = ok && pass;
            const std::string value_cell = dequantizes ? std::to_string(values) + " of " + std::to_string(kValues)
                                                       : "(ggml has no dequantizer)";
            std::printf("  %-20s %-6s %14zu of %-7zu %24s%s\n", name.c_str(), f.name, bytes, mine.size(), value_cell.c_str(),
                        pass ? "" : "   FAIL");
        }
    std::printf("  live, ggml's own library: %s\n", ok ? "PASS" : "FAIL");
    return ok;
}
#endif

// ---------------------------------------------------------------------------------------------
// The exercise slots: compatibility checks the learner writes (exercises/), run on every case
// ---------------------------------------------------------------------------------------------

struct ExerciseCheck {
    KernelInfo info;
    size_t (*differences)(const GoldenCase&);  // kUnsolvedCheck while it is the shipped stub
};

const std::vector<ExerciseCheck> kExerciseChecks = {
    {{"ex1", "exercise 1: Q8_0 dequantization against deq_q8_0.f32, bit for bit", KernelRole::Exercise, "",
      "step5_llama_compare/exercises/ex1_dequant_q8_0.h", kEx1Written},
     exercise1_dequant_q8_0_diffs},
    {{"ex1_solution", "solution of exercise 1", KernelRole::Solution}, exercise1_solution_dequant_q8_0_diffs},
    {{"ex2", "exercise 2: the unquantized dot product (v7) in float64, bit for bit", KernelRole::Exercise, "",
      "step5_llama_compare/exercises/ex2_unquantized_dot.h", kEx2Written},
     exercise2_unquantized_dot_diffs},
    {{"ex2_solution", "solution of exercise 2", KernelRole::Solution}, exercise2_solution_unquantized_dot_diffs},
};

bool run_exercise_checks(const Options& opt, const std::vector<GoldenCase>& cases) {
    bool ok = true;
    for (const auto& e : kExerciseChecks) {
        if (!opt.wants(e.info) || (opt.kernels.empty() && !opt.exercises)) continue;
        size_t diffs = 0;
        bool unsolved = false;
        for (const auto& c : cases) {
            const size_t d = e.differences(c);
            unsolved = unsolved || d == kUnsolvedCheck;
            if (d != kUnsolvedCheck) diffs += d;
        }
        const bool pass = !unsolved && diffs == 0;
        ok = ok && pass;
        std::printf("  %-14s %s: %s\n", e.info.name.c_str(), e.info.description.c_str(),
                    unsolved ? "FAIL (not written yet)" : (std::to_string(diffs) + " differ, " + (pass ? "PASS" : "FAIL")).c_str());
        if (unsolved) print_unsolved_exercise(e.info.name, e.info.exercise_file);
    }
    return ok;
}

int main(int argc, char** argv) try {
    ProgramInfo info{"step5_llama_compare", "compatibility with llama.cpp, level by level: layout, bytes, numbers, speed",
                     "step5_llama_compare --cpu-only", 32, {},
                     {{"cpu-only", false, "levels 1-3 on the CPU only (no GPU needed; what CI runs)"},
                      {"golden", true, "levels 2-3 on this golden case directory, or a folder of them", "DIR"},
                      {"live-only", false, "only the live comparison with your ggml (a build with -DGGML_DIR)"}}};
    info.uses_m = false, info.only_checks = true;
    for (const auto& e : kExerciseChecks) info.kernels.push_back(e.info);
    const Options opt = parse_options(argc, argv, info);
    // --check-only is accepted (every step takes it; this one only checks anyway), nothing else.
    reject_flags_except(opt, {"cpu-only", "golden", "check-only", "kernel", "exercises", "live-only", "seed"}, "step5_llama_compare");
    if (opt.has("cpu-only") && opt.was_given("check-only"))
        usage_error("--check-only turns off timing, which --cpu-only never does; leave it out");
#ifndef QGF_WITH_GGML
    if (opt.was_given("seed")) usage_error("--seed seeds the live comparison, which this build leaves out (-DGGML_DIR); leave it out");
#endif
#ifndef QGF_WITH_GGML
    if (opt.has("live-only")) usage_error("--live-only needs a build with -DGGML_DIR=<your ggml checkout> (README.md)");
#else
    if (opt.has("live-only")) {
        std::printf("== live: your ggml against our quantizers, on fresh data ==\n");
        bool live_ok = check_live(opt.seed);
#ifdef QGF_WITH_GGML_CUDA
        const Gpu gpu = open_gpu(/*measure_bandwidth=*/false);
        std::printf("\n== live: your ggml's CUDA MUL_MAT beside step 4, on this GPU ==\n");
        if (!gpu.available || opt.check_only) std::printf("  SKIP: needs a GPU, and timing (no --check-only)\n");
        else live_ok = run_live_speed(argv[0], gpu) && live_ok;
#endif
        return live_ok ? EXIT_ALL_PASSED : EXIT_CHECK_FAILED;
    }
#endif
    const std::string golden_dir = opt.has("golden") ? *opt.extra_value("golden") : std::string(QGF_GOLDEN_DIR);
    const std::vector<GoldenCase> cases = load_golden_cases(golden_dir);

    const bool cpu_only = opt.has("cpu-only");
    Gpu gpu;
    if (!cpu_only) gpu = open_gpu(/*measure_bandwidth=*/false);
    const Gpu* on_gpu = gpu.available ? &gpu : nullptr;
    if (on_gpu) print_gpu_header(gpu);

    bool ok = true;
    if (!opt.has("golden")) {
        std::printf("== level 1: layout (sizes and offsets against ggml's src/ggml-common.h) ==\n");
        ok = check_layout() && ok;
    }
    std::printf("\n== level 2: bytes (%zu golden cases at %s) ==\n", cases.size(), golden_dir.c_str());
    ok = check_bytes_level(cases, on_gpu) && ok;
    if (!opt.has("golden")) {  // the K-quants' golden cases, CPU (common/golden_kquants/)
        std::printf("\n  the K-quants (%s):\n", QGF_KQUANTS_GOLDEN_DIR);
        ok = check_kquant_golden(QGF_KQUANTS_GOLDEN_DIR) && ok;
    }
    std::printf("\n== level 3: numbers (the dot products ggml recorded, dots.f64) ==\n");
    ok = check_numbers_level(cases, on_gpu) && ok;
    std::printf("\n== live: your own ggml library, on fresh data ==\n");
#ifdef QGF_WITH_GGML
    ok = check_live(opt.seed) && ok;
#else
    std::printf("  not built in: configure with -DGGML_DIR=<a ggml checkout with a build> (README.md, 'The live comparison')\n");
#endif
    if (!opt.kernels.empty() || opt.exercises) {
        std::printf("\n== exercises: your own compatibility checks (README.md, Exercises) ==\n");
        ok = run_exercise_checks(opt, cases) && ok;
    }
    std::printf("\n== level 4: speed ==\n");
    if (!on_gpu) std::printf("  SKIP: needs a GPU\n");
    else if (opt.check_only) std::printf("  SKIP: --check-only (no timing)\n");
    else if (opt.has("golden")) std::printf("  SKIP: --golden checks bytes and numbers only\n");
    else ok = run_speed_level(argv[0], gpu.name) && ok;
#ifdef QGF_WITH_GGML_CUDA
    std::printf("\n== live: your ggml's CUDA MUL_MAT beside step 4, on this GPU ==\n");
    if (!on_gpu || opt.check_only || opt.has("golden")) std::printf("  SKIP: with level 4 only (a GPU, no --check-only)\n");
    else ok = run_live_speed(argv[0], gpu) && ok;
#endif

    if (!cpu_only && !on_gpu) {
        std::printf("\nSKIP step5_llama_compare: no usable CUDA device; levels 1-3 ran on the CPU only (%s)\n",
                    ok ? "all passed" : "SOME FAILED");
        return ok ? EXIT_NO_GPU : EXIT_CHECK_FAILED;
    }
    return finish_run(ok);
} catch (const std::bad_alloc&) {  // a golden case too large for this machine's memory: an input error
    usage_error("not enough host memory for this input");
}
