// Step 2: llama.cpp's Q4_0, Q8_0 and Q8_1 block formats, byte-exact with ggml, on CPU and GPU.
//
// What it teaches: how a block format stores 32 values in 18-36 bytes (common/ggml_quants.h),
// where every rounding comes from, and what it costs in accuracy. The program
//   1. quantizes the golden inputs that ggml itself quantized (common/golden/) and compares
//      every byte, dequantized value and reference dot product;
//   2. measures the quantization error (NMSE) on normal, uniform and outlier-heavy data;
//   3. shows why x * id + 8.5 must not become one fused multiply-add;
//   4. runs the GPU quantizers (common/ggml_quants_gpu.cuh), byte-compares them with the CPU
//      reference on the golden cases and on a large tensor, and times them against HBM bandwidth.
// It is also a small tool: --quantize / --dequantize a file of your own, --golden DIR.
//
// Build and run:   make step2          (or: build/step2_quant --quantize q4_0 --in x.f32 --out q.bin)
// Look for:        "ok" everywhere in part 1; the NMSE table (Q4_0 costs ~250-300x the error of
//                  Q8_0 on normal data); the bytes an FMA changes; GB/s of the GPU quantizers
//                  against the HBM roofline.
#include "../common/common.cuh"
#include "../common/ggml_kquants.h"
#include "../common/ggml_quants.h"
#include "../common/ggml_quants_tensor.h"
#include "../common/kernel_spec.h"
#include "../common/ggml_quants_gpu.cuh"
#include "../common/quantize_on_gpu.cuh"
#include "../common/golden.h"
#include "../common/ggml_kquants_tensor.h"
#include "../common/golden_kquants.h"
#include "../common/reference_gemm.h"
#include "canaries.cuh"
#include "exercises/ex1_q8_0_warp.cuh"
#include "exercises/ex2_q4_0_warp.cuh"
#include "exercises/solutions/ex1_q8_0_warp.cuh"
#include "exercises/solutions/ex2_q4_0_warp.cuh"

#include <csignal>

#ifndef QGF_GOLDEN_DIR
#define QGF_GOLDEN_DIR "common/golden"
#endif


// ---------------------------------------------------------------------------------------------
// Part 1: the CPU reference against ggml's own output
// ---------------------------------------------------------------------------------------------

std::string diff_cell(size_t diffs) { return diffs == 0 ? "ok" : std::to_string(diffs); }

// Differing bytes between a quantized tensor and ggml's file (same size: load_golden_case checked it).
size_t byte_diffs(const QuantizedTensor& q, const std::vector<uint8_t>& expected) {
    return check_bytes("", q.bytes.data(), expected.data(), q.bytes.size(), block_bytes(q.format), 0).bad;
}

// dots.f64 variant 3: sum over k of deq(q4_0)[i][k] * deq(q8_0)[j][k] in float64, in order,
// from ggml's blocks. We compute it from *our* quantizers' blocks, dequantized by our code:
// reproducing it bit for bit checks quantizer, dequantizer and our reading of rows and blocks.
size_t exact_dot_diffs(const GoldenCase& c, const QuantizedTensor& q4, const QuantizedTensor& q8) {
    const std::vector<float> w = dequantize_cpu(q4), a = dequantize_cpu(q8);
    size_t diffs = 0;
    for (int64_t i = 0; i < c.rows; ++i)
        for (int64_t j = 0; j < c.rows; ++j) {
            double sum = 0;
            for (int64_t k = 0; k < c.k; ++k) sum += (double)w[i * c.k + k] * (double)a[j * c.k + k];
            const double expected = c.dots[(i * c.rows + j) * 8 + 3];
            if (!(std::isnan(sum) && std::isnan(expected)) && std::memcmp(&sum, &expected, 8) != 0) ++diffs;
        }
    return diffs;
}


// Returns true when every case matches the golden files exactly.
bool check_golden_cpu(const std::vector<GoldenCase>& cases) {
    std::printf("  %-18s %8s  %6s %6s %6s %9s %9s %9s %6s\n", "case", "rows x k", "q4_0", "q8_0", "q8_1", "q8_1 sumx",
                "deq q4_0", "deq q8_0", "dot");
    bool all_ok = true;
    for (const auto& c : cases) {
        const int64_t n = c.rows * c.k;
        const QuantizedTensor q4 = quantize_cpu(c.x.data(), n, QuantFormat::Q4_0);
        const QuantizedTensor q8 = quantize_cpu(c.x.data(), n, QuantFormat::Q8_0);
        const QuantizedTensor q81 = quantize_cpu(c.x.data(), n, QuantFormat::Q8_1);
        const QuantizedTensor q81x = quantize_cpu(c.x.data(), n, QuantFormat::Q8_1, Q81Sum::SumX);
        const size_t d[] = {
            byte_diffs(q4, c.q4_0),
            byte_diffs(q8, c.q8_0),
            byte_diffs(q81, c.q8_1),
            byte_diffs(q81x, c.q8_1_cudaemu),
            count_float_diffs(dequantize_cpu({QuantFormat::Q4_0, c.q4_0}), c.deq_q4_0),
            count_float_diffs(dequantize_cpu({QuantFormat::Q8_0, c.q8_0}), c.deq_q8_0) +
                count_float_diffs(dequantize_cpu({QuantFormat::Q8_1, c.q8_1}), c.deq_q8_0),
            exact_dot_diffs(c, q4, q8)};
        bool ok = std::all_of(std::begin(d), std::end(d), [](size_t v) { return v == 0; });
        all_ok = all_ok && ok;
        std::printf("  %-18s %4lldx%-4lld %6s %6s %6s %9s %9s %9s %6s%s\n", c.name.c_str(), (long long)c.rows,
                    (long long)c.k, diff_cell(d[0]).c_str(), diff_cell(d[1]).c_str(), diff_cell(d[2]).c_str(),
                    diff_cell(d[3]).c_str(), diff_cell(d[4]).c_str(), diff_cell(d[5]).c_str(), diff_cell(d[6]).c_str(),
                    ok ? "" : "   FAIL");
    }
    std::printf("  %zu cases: %s\n", cases.size(),
                all_ok ? "every byte, value and dot product identical to the golden files (PASS)" : "MISMATCHES (FAIL)");
    return all_ok;
}

// ---------------------------------------------------------------------------------------------
// Part 2: what quantization costs
// ---------------------------------------------------------------------------------------------

struct Distribution {
    const char* name;
    std::vector<float> data;
};

// Normal, uniform, and normal with a few heavy "channels" (every 128th column x 50), the
// pattern LLM activations show.
std::vector<Distribution> error_study_data(uint64_t seed, int64_t n) {
    std::vector<Distribution> d = {{"N(0,1)", std::vector<float>(n)},
                                   {"U(-1,1)", std::vector<float>(n)},
                                   {"outliers", std::vector<float>(n)}};
    fill_normal(d[0].data, seed, 11);
    fill_uniform(d[1].data, seed, 12, -1.f, 1.f);
    fill_normal(d[2].data, seed, 13);
    constexpr int kOutlierEvery = 128;
    constexpr float kOutlierScale = 50.f;
    for (int64_t i = 0; i < n; i += kOutlierEvery) d[2].data[i] *= kOutlierScale;
    return d;
}

// A K-quant format's round trip (common/ggml_kquants.h): x to super-blocks of 256 and back.
template <class Block>
std::vector<float> kquant_round_trip(const std::vector<float>& x, void (*quantize)(const float*, Block*, int64_t),
                                     void (*dequantize)(const Block*, float*, int64_t)) {
    std::vector<Block> blocks(x.size() / QK_K);
    quantize(x.data(), blocks.data(), (int64_t)x.size());
    std::vector<float> y(x.size());
    dequantize(blocks.data(), y.data(), (int64_t)x.size());
    return y;
}

void print_error_study(uint64_t seed) {
    constexpr int64_t kValues = 256 * 4096;
    const std::vector<Distribution> dists = error_study_data(seed, kValues);
    std::printf("  %-6s %10s %10s %10s", "format", "bits/value", "vs FP32", "vs FP16");
    for (const auto& d : dists) std::printf("  NMSE %-9s", d.name);
    std::printf("\n");
    for (QuantFormat f : {QuantFormat::Q4_0, QuantFormat::Q8_0, QuantFormat::Q8_1}) {
        const double bits = block_bytes(f) * 8.0 / 32.0;
        std::printf("  %-6s %10.2f %9.2fx %9.2fx", format_name(f), bits, 32.0 / bits, 16.0 / bits);
        for (const auto& d : dists)
            std::printf("  %14.3e", nmse(dequantize_cpu(quantize_cpu(d.data.data(), kValues, f)), d.data));
        std::printf("\n");
    }
    // The K-quants that llama.cpp's Q4_K_M files hold: super-blocks of 256 with scales of scales.
    struct KQuant {
        const char* name;
        double bits;
        std::vector<float> (*round_trip)(const std::vector<float>&);
    };
    const KQuant kquants[] = {
        {"q4_k", sizeof(block_q4_K) * 8.0 / QK_K,
         [](const std::vector<float>& x) { return kquant_round_trip<block_q4_K>(x, quantize_row_q4_K_ref, dequantize_row_q4_K); }},
        {"q6_k", sizeof(block_q6_K) * 8.0 / QK_K,
         [](const std::vector<float>& x) { return kquant_round_trip<block_q6_K>(x, quantize_row_q6_K_ref, dequantize_row_q6_K); }},
    };
    for (const KQuant& k : kquants) {
        std::printf("  %-6s %10.2f %9.2fx %9.2fx", k.name, k.bits, 32.0 / k.bits, 16.0 / k.bits);
        for (const auto& d : dists) std::printf("  %14.3e", nmse(k.round_trip(d.data), d.data));
        std::printf("\n");
    }
    std::printf("  (%lld values each; NMSE = sum (x - deq(q(x)))^2 / sum x^2; Q8_1 holds Q8_0's values plus s;\n"
                "   q4_k and q6_k: super-blocks of 256, common/ggml_kquants.h, \"K-quants\" in README.md)\n",
                (long long)kValues);
}

// ---------------------------------------------------------------------------------------------
// Part 3: why x * id + 8.5f must stay two roundings
// ---------------------------------------------------------------------------------------------

// Values placed within 4e-6 (relative) of the x * id = k + 0.5 rounding boundaries, where a
// fused multiply-add, which skips the rounding of x * id, can land on the other side.
std::vector<float> rounding_boundary_data(uint64_t seed, int64_t n) {
    std::vector<float> u(n), scale(n / 32), code(n);
    fill_uniform(u, seed, 21, -1.f, 1.f);
    fill_uniform(scale, seed, 22, 0.01f, 10.f);
    fill_uniform(code, seed, 23, 0.f, 15.f);
    std::vector<float> x(n);
    for (int64_t b = 0; b < n / 32; ++b) {
        const float d = scale[b];
        x[b * 32] = -8.f * d;  // the block's max: fixes d
        for (int j = 1; j < 32; ++j) {
            const float k = std::floor(code[b * 32 + j]) - 8.f;  // -8 .. 6
            x[b * 32 + j] = (k + 0.5f) * d * (1.f + 4e-6f * u[b * 32 + j]);
        }
    }
    return x;
}

// quantize_row_q4_0_ref with the multiply-add fused, as a compiler with FMA contraction emits it.
size_t fused_q4_0_byte_diffs(const std::vector<float>& x) {
    const QuantizedTensor ref = quantize_cpu(x.data(), (int64_t)x.size(), QuantFormat::Q4_0);
    std::vector<block_q4_0> fused(x.size() / 32);
    for (size_t b = 0; b < fused.size(); ++b) {
        const float* xb = &x[b * 32];
        const float d = q4_0_scale(q4_0_block_max(xb)), id = inverse_or_zero(d);
        fused[b].d = fp32_to_fp16(d);
        auto nib = [&](float v) { return (uint8_t)std::min(15, (int)std::fma(v, id, 8.5f)); };
        for (int j = 0; j < 16; ++j) fused[b].qs[j] = (uint8_t)(nib(xb[j]) | nib(xb[j + 16]) << 4);
    }
    return check_bytes("", fused.data(), ref.bytes.data(), ref.bytes.size(), sizeof(block_q4_0), 0).bad;
}

void print_fma_demo(uint64_t seed) {
    constexpr int64_t kValues = 1 << 20;
    std::vector<float> normal(kValues);
    fill_normal(normal, seed, 24);
    const size_t bytes = kValues / 32 * sizeof(block_q4_0);
    const size_t on_boundaries = fused_q4_0_byte_diffs(rounding_boundary_data(seed, kValues));
    const size_t on_normal = fused_q4_0_byte_diffs(normal);
    std::printf("  q4_0 with fmaf(x, id, 8.5f): %zu of %zu bytes differ on values near rounding boundaries (%.2f%%),\n"
                "  %zu on N(0,1) data. The reference rounds x * id first; the code keeps it that way with\n"
                "  __fmul_rn/__fadd_rn on the GPU and -ffp-contract=off on the host.\n",
                on_boundaries, bytes, 100.0 * on_boundaries / bytes, on_normal);
}

// ---------------------------------------------------------------------------------------------
// Part 4: the GPU quantizers
// ---------------------------------------------------------------------------------------------

// What a quantizer writes, and so which CPU reference its bytes are checked against.
struct QuantizerOutput {
    QuantFormat format;
    Q81Sum sum_mode;
};
// A row of the table, the same kernel spec as the GEMM steps' (common/kernel_spec.h): a quantizer
// takes any length that whole blocks fill, so every row says runs_any_shape.
using GpuQuantizer = KernelSpec<QuantizerLauncher, QuantizerOutput>;

const std::vector<GpuQuantizer> kQuantizers = {
    {{"quantize_q4_0", "Q4_0 weights: signed scale max/-8, nibbles j | j+16"},
     launch_q4_0, runs_any_shape, {QuantFormat::Q4_0, Q81Sum::DTimesSumQ}},
    {{"quantize_q8_0", "Q8_0: scale amax/127, round half away from zero"},
     launch_q8_0, runs_any_shape, {QuantFormat::Q8_0, Q81Sum::DTimesSumQ}},
    {{"quantize_q8_1", "Q8_1, ggml's reference s = d * sum(q)"},
     launch_q8_1, runs_any_shape, {QuantFormat::Q8_1, Q81Sum::DTimesSumQ}},
    {{"quantize_q8_1_sumx", "Q8_1 as llama.cpp's CUDA kernel: q = round(x/d), s = sum(x)"},
     launch_q8_1_sumx, runs_any_shape, {QuantFormat::Q8_1, Q81Sum::SumX}},
    {{"canary_q8_1_skip_last_block", "Q8_1 that never writes the last block", KernelRole::Canary},
     launch_canary_q8_1_skip_last_block, runs_any_shape, {QuantFormat::Q8_1, Q81Sum::DTimesSumQ}},
    {{"canary_q8_0_skip_minus_one", "Q8_0 that stores no code equal to -1 (the byte 0xFF)", KernelRole::Canary},
     launch_canary_q8_0_skip_code<-1>, runs_any_shape, {QuantFormat::Q8_0, Q81Sum::DTimesSumQ}},
    {{"canary_q8_0_skip_zero", "Q8_0 that stores no code equal to 0", KernelRole::Canary},
     launch_canary_q8_0_skip_code<0>, runs_any_shape, {QuantFormat::Q8_0, Q81Sum::DTimesSumQ}},
    {{"ex1", "exercise 1: Q8_0, one warp per block, amax by shuffles", KernelRole::Exercise, "quantize_q8_0",
      "step2_quant/exercises/ex1_q8_0_warp.cuh", kEx1Written},
     launch_quantize_q8_0_ex1, runs_any_shape, {QuantFormat::Q8_0, Q81Sum::DTimesSumQ}},
    {{"ex1_solution", "solution of exercise 1", KernelRole::Solution, "quantize_q8_0"},
     launch_quantize_q8_0_ex1_solution, runs_any_shape, {QuantFormat::Q8_0, Q81Sum::DTimesSumQ}},
    {{"ex2", "exercise 2: Q4_0, one warp per block, ggml's tie rule", KernelRole::Exercise, "quantize_q4_0",
      "step2_quant/exercises/ex2_q4_0_warp.cuh", kEx2Written},
     launch_quantize_q4_0_ex2, runs_any_shape, {QuantFormat::Q4_0, Q81Sum::DTimesSumQ}},
    {{"ex2_solution", "solution of exercise 2", KernelRole::Solution, "quantize_q4_0"},
     launch_quantize_q4_0_ex2_solution, runs_any_shape, {QuantFormat::Q4_0, Q81Sum::DTimesSumQ}},
};

// Every golden case through every GPU quantizer, against ggml's bytes, under both poison patterns.
bool check_golden_gpu(const Gpu& gpu, const Options& opt) {
    bool ok = true;
    for (const auto& q : kQuantizers) {
        if (!opt.wants(q.info)) continue;
        size_t diffs = 0, total = 0;
        for (const auto& c : load_golden_cases(QGF_GOLDEN_DIR)) {
            const std::vector<uint8_t>& expected = q.reads.format == QuantFormat::Q4_0   ? c.q4_0
                                                   : q.reads.format == QuantFormat::Q8_0 ? c.q8_0
                                                   : q.reads.sum_mode == Q81Sum::SumX    ? c.q8_1_cudaemu
                                                                                   : c.q8_1;
            for (uint8_t pattern : kPoisonPatterns) {
                const std::vector<uint8_t> got = quantize_on_gpu(gpu, q.launch, q.reads.format, c.x, pattern);
                diffs += check_bytes((q.info.name + "/" + c.name).c_str(), got.data(), expected.data(), got.size(),
                                     block_bytes(q.reads.format)).bad;
                total += got.size();
            }
        }
        std::printf("  %-28s %zu of %zu bytes differ from the golden files (both poison patterns): %s\n",
                    q.info.name.c_str(), diffs, total, diffs == 0 ? "PASS" : "FAIL");
        const std::string stub = unsolved_exercise_file(q.info);
        if (diffs != 0 && !stub.empty()) print_unsolved_exercise(q.info.name, stub);
        ok = ok && diffs == 0;
    }
    return ok;
}

bool run_gpu_tensor_case(const Gpu& gpu, const Options& opt, int64_t rows, int64_t k) {
    const int64_t n = rows * k;
    std::printf("\n== GPU quantizers on a [%lld, %lld] tensor of N(0,1) values (%.0f MB of fp32) ==\n", (long long)rows,
                (long long)k, n * 4 / 1e6);
    const L2Rotation rot = plan_l2_rotation(gpu, n * sizeof(float), !opt.check_only);
    require_device_memory(gpu, (size_t)n * sizeof(float) * rot.copies + (size_t)(n / 32) * sizeof(block_q8_1));
    if (!opt.check_only) print_l2_rotation(rot, gpu);
    std::vector<float> x(n);
    fill_normal(x, opt.seed, 31);
    const DeviceBuffer<float> dx = upload_rotated(x, rot.copies);
    DeviceBuffer<uint8_t> dy(n / 32 * sizeof(block_q8_1));  // room for the largest format

    std::vector<ResultRow> rows_out;
    for (const auto& q : kQuantizers) {
        if (!opt.wants(q.info)) continue;
        const QuantizedTensor expected = quantize_cpu(x.data(), n, q.reads.format, q.reads.sum_mode);
        KernelRun run = kernel_run_for(q.info);
        run.launch = [&](int i) { q.launch(rotated_copy(dx, rot.copies, i), dy.get(), n, gpu.stream); };
        run.poison_output = [&](uint8_t pattern) { poison(dy.get(), dy.bytes(), pattern, gpu.stream); };
        run.check = [&] {
            std::vector<uint8_t> got(expected.bytes.size());
            CUDA_CHECK(cudaMemcpy(got.data(), dy.get(), got.size(), cudaMemcpyDeviceToHost));
            return check_bytes(q.info.name.c_str(), got.data(), expected.bytes.data(), got.size(), block_bytes(q.reads.format));
        };
        run.error_metric = "bytes_diff";
        run.report = KernelRun::Report::BadCount;
        const Workload work{0.0, n * 4.0 + (double)expected.bytes.size()};
        rows_out.push_back(evaluate_kernel(gpu, opt, run, work));
    }
    print_table(rows_out, "", {});
    std::printf("  (GB/s counts the fp32 read plus the blocks written; %%roof is against the measured HBM read rate)\n");
    append_csv(opt.csv_path, "step2_quant", "quantize " + std::to_string(rows) + "x" + std::to_string(k), 1, rows, k,
               rows_out, gpu, l2_state(rot, opt.check_only));
    return !any_failed(rows_out);
}

// ---------------------------------------------------------------------------------------------
// The file tool: --quantize / --dequantize
// ---------------------------------------------------------------------------------------------

QuantFormat parse_format(const std::string& s) {
    if (s == "q4_0") return QuantFormat::Q4_0;
    if (s == "q8_0") return QuantFormat::Q8_0;
    if (s == "q8_1") return QuantFormat::Q8_1;
    usage_error("unknown format '%s': use q4_0, q8_0, q8_1, q4_k or q6_k", s.c_str());
}

// The K-quants go their own way through the file tool: blocks of 256 values (ggml_kquants.h).
Q81Sum parse_sum_mode(const Options& opt) {
    const std::string* v = opt.extra_value("q8_1-s");
    if (!v || *v == "d_sum_q") return Q81Sum::DTimesSumQ;
    if (*v == "sum_x") return Q81Sum::SumX;
    usage_error("--q8_1-s must be d_sum_q (ggml's reference) or sum_x (llama.cpp's CUDA kernels), got '%s'", v->c_str());
}

const std::string& required_path(const Options& opt, const char* flag) {
    const std::string* v = opt.extra_value(flag);
    if (!v || v->empty()) usage_error("--quantize and --dequantize need --in FILE and --out FILE");
    return *v;
}

int run_quantize_file(const Options& opt) {
    const std::string& format = *opt.extra_value("quantize");
    const KQuantFormat* kquant = kquant_format(format);
    const QuantFormat f = kquant ? QuantFormat::Q4_0 : parse_format(format);  // f is not used for a K-quant
    if (opt.has("q8_1-s") && (kquant || f != QuantFormat::Q8_1)) usage_error("--q8_1-s goes with --quantize q8_1 only");
    const std::string &in = required_path(opt, "in"), &out = required_path(opt, "out");
    std::vector<uint8_t> raw;
    if (!read_file(in, raw)) usage_error("cannot read '%s'", in.c_str());
    if (raw.size() % 4 != 0) usage_error("'%s' has %zu bytes: not a whole number of float32 values", in.c_str(), raw.size());
    const std::vector<float> x = bytes_as<float>(raw);
    const size_t block_values = kquant ? QK_K : 32;
    if (x.empty() || x.size() % block_values != 0)
        usage_error("'%s' holds %zu values: %s blocks need a multiple of %zu (pad the rows)", in.c_str(), x.size(), format.c_str(),
                    block_values);
    for (size_t i = 0; i < x.size(); ++i)
        if (!std::isfinite(x[i]))
            usage_error("value %zu of '%s' is %s: ggml's reference quantizers have no defined result for it "
                        "(float-to-int of NaN/inf is undefined in C), so this tool refuses",
                        i, in.c_str(), std::isnan(x[i]) ? "NaN" : "infinite");
    if (kquant) {
        const std::vector<uint8_t> bytes = kquant->quantize(x);
        if (!write_file(out, bytes.data(), bytes.size())) usage_error("cannot write '%s'", out.c_str());
        std::printf("quantized %zu values into %zu %s super-blocks (%zu bytes, %.4f bits/value); NMSE of the round trip %.3e\n",
                    x.size(), x.size() / QK_K, format.c_str(), bytes.size(), kquant->block_bytes * 8.0 / QK_K,
                    nmse(kquant->dequantize(bytes), x));
        return EXIT_ALL_PASSED;
    }
    const QuantizedTensor q = quantize_cpu(x.data(), (int64_t)x.size(), f, parse_sum_mode(opt));
    if (!write_file(out, q.bytes.data(), q.bytes.size())) usage_error("cannot write '%s'", out.c_str());
    std::printf("quantized %zu values into %zu %s blocks (%zu bytes, %.2f bits/value); NMSE of the round trip %.3e\n",
                x.size(), x.size() / 32, format_name(f), q.bytes.size(), block_bytes(f) * 8.0 / 32, nmse(dequantize_cpu(q), x));
    return EXIT_ALL_PASSED;
}

int run_dequantize_file(const Options& opt) {
    const std::string& format = *opt.extra_value("dequantize");
    const std::string &in = required_path(opt, "in"), &out = required_path(opt, "out");
    if (const KQuantFormat* kquant = kquant_format(format)) {
        std::vector<uint8_t> bytes;
        if (!read_file(in, bytes)) usage_error("cannot read '%s'", in.c_str());
        if (bytes.empty() || bytes.size() % kquant->block_bytes != 0)
            usage_error("'%s' has %zu bytes: not a whole number of %zu-byte %s blocks (truncated?)", in.c_str(), bytes.size(),
                        kquant->block_bytes, format.c_str());
        const std::vector<float> y = kquant->dequantize(bytes);
        for (size_t i = 0; i < y.size(); ++i)
            if (!std::isfinite(y[i]))
                usage_error("value %zu of '%s' dequantizes to %s (a scale out of range), so this tool refuses", i, in.c_str(),
                            std::isnan(y[i]) ? "NaN" : "inf");
        if (!write_file(out, y.data(), y.size() * sizeof(float))) usage_error("cannot write '%s'", out.c_str());
        std::printf("dequantized %zu %s super-blocks into %zu float32 values\n", bytes.size() / kquant->block_bytes, format.c_str(),
                    y.size());
        return EXIT_ALL_PASSED;
    }
    const QuantFormat f = parse_format(format);
    QuantizedTensor q{f, {}};
    if (!read_file(in, q.bytes)) usage_error("cannot read '%s'", in.c_str());
    if (q.bytes.empty() || q.bytes.size() % block_bytes(f) != 0)
        usage_error("'%s' has %zu bytes: not a whole number of %zu-byte %s blocks (truncated?)", in.c_str(), q.bytes.size(),
                    block_bytes(f), format_name(f));
    for (size_t b = 0; b < q.bytes.size() / block_bytes(f); ++b) {  // every format starts its block with the fp16 d
        ggml_half d;
        std::memcpy(&d, &q.bytes[b * block_bytes(f)], sizeof d);
        if (!std::isfinite(fp16_to_fp32(d)))
            usage_error("block %zu of '%s' has a scale d that is %s: its values would be NaN or infinite, so this tool refuses", b,
                        in.c_str(), std::isnan(fp16_to_fp32(d)) ? "NaN" : "infinite");
    }
    const std::vector<float> y = dequantize_cpu(q);
    if (!write_file(out, y.data(), y.size() * sizeof(float))) usage_error("cannot write '%s'", out.c_str());
    std::printf("dequantized %zu %s blocks into %zu float32 values\n", q.bytes.size() / block_bytes(f), format_name(f),
                y.size());
    return EXIT_ALL_PASSED;
}

// ---------------------------------------------------------------------------------------------

int main(int argc, char** argv) try {
    ProgramInfo info{"step2_quant", "ggml's Q4_0 / Q8_0 / Q8_1 formats: byte-exact CPU and GPU quantizers, their error and speed",
                     "step2_quant --quantize q4_0 --in weights.f32 --out weights.q4_0", 32, {}, {}};
    info.uses_m = false;
    for (const auto& q : kQuantizers) info.kernels.push_back(q.info);
    info.extra_flags = {
        {"quantize", true, "q4_0, q8_0, q8_1, q4_k or q6_k: quantize the float32 file --in into --out, then exit", "FORMAT"},
        {"dequantize", true, "dequantize the block file --in (FORMAT as above) into float32 --out, then exit", "FORMAT"},
        {"in", true, "input file for --quantize / --dequantize", "FILE"},
        {"out", true, "output file for --quantize / --dequantize", "FILE"},
        {"q8_1-s", true, "d_sum_q (default, ggml's reference) or sum_x (llama.cpp's CUDA kernels)", "SUM"},
        {"golden", true, "check a golden case directory (or a folder of them) against the CPU reference, then exit", "DIR"},
    };
    const Options opt = parse_options(argc, argv, info);
    std::signal(SIGXFSZ, SIG_IGN);  // past a file size limit, a write fails (write_file says so) instead of killing us

    if (opt.has("quantize") && opt.has("dequantize")) usage_error("give --quantize or --dequantize, not both");
    if (opt.has("quantize")) {
        reject_flags_except(opt, {"quantize", "in", "out", "q8_1-s"}, "--quantize");
        return run_quantize_file(opt);
    }
    if (opt.has("dequantize")) {
        reject_flags_except(opt, {"dequantize", "in", "out"}, "--dequantize");
        return run_dequantize_file(opt);
    }
    if (opt.has("in") || opt.has("out")) usage_error("--in and --out go with --quantize or --dequantize");
    if (opt.has("q8_1-s")) usage_error("--q8_1-s goes with --quantize q8_1");
    if (opt.has("golden")) {
        reject_flags_except(opt, {"golden"}, "--golden");
        const std::string& root = *opt.extra_value("golden");
        if (!kquant_case_dirs(root).empty()) {  // K-quant cases (common/golden_kquants/)
            std::printf("== K-quant golden vectors at %s: Q4_K and Q6_K against them ==\n", root.c_str());
            return check_kquant_golden(root) ? EXIT_ALL_PASSED : EXIT_CHECK_FAILED;
        }
        const std::vector<GoldenCase> cases = load_golden_cases(root);
        std::printf("== golden vectors at %s: the CPU reference against them ==\n", opt.extra_value("golden")->c_str());
        return check_golden_cpu(cases) ? EXIT_ALL_PASSED : EXIT_CHECK_FAILED;
    }

    std::printf("== 1. the CPU reference against the golden files (common/golden/: ggml output, and one emulation) ==\n");
    bool ok = check_golden_cpu(load_golden_cases(QGF_GOLDEN_DIR));
    std::printf("\n== 2. what quantization costs ==\n");
    print_error_study(opt.seed);
    std::printf("\n== 3. why x * id + 8.5 must stay two roundings ==\n");
    print_fma_demo(opt.seed);

    std::printf("\n== 4. the GPU quantizers ==\n");
    Gpu gpu = open_gpu(/*measure_bandwidth=*/!opt.check_only);
    if (!gpu.available) {
        std::printf("SKIP GPU quantizers: no usable CUDA device (the CPU parts above %s)\n", ok ? "passed" : "FAILED");
        return ok ? EXIT_NO_GPU : EXIT_CHECK_FAILED;
    }
    print_run_header(gpu, opt);
    ok = check_golden_gpu(gpu, opt) && ok;
    const int64_t rows = opt.has_shape ? opt.n : 4096, k = opt.has_shape ? opt.k : 14336;
    ok = run_gpu_tensor_case(gpu, opt, rows, k) && ok;
    return finish_run(ok);
} catch (const std::bad_alloc&) {  // an input too large for this machine's memory: an input error
    usage_error("not enough host memory for this input");
}
