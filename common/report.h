// report.h - one row per (case, kernel): the table a step prints and the CSV it appends.
#pragma once

#include "errors.cuh"
#include "gpu.cuh"
#include "timing.cuh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

enum class Status { Pass, Fail, Skip };
inline const char* status_name(Status s) { return s == Status::Pass ? "PASS" : s == Status::Fail ? "FAIL" : "SKIP"; }

struct ResultRow {
    std::string kernel;
    Status status = Status::Skip;
    std::string note;                  // why a kernel was skipped, or what its time includes
    Pipe pipe = Pipe::Fp32;            // the peak its arithmetic is measured against
    double time_ms = NAN;              // median; NaN: not timed
    double time_min_ms = NAN;
    double tera_ops = NAN, gbps = NAN, pct_roofline = NAN;
    std::string error_metric;
    double error_value = NAN;
    bool error_is_count = false;       // print error_value as a whole number
    double quant_nmse = NAN;           // quantization error vs the unquantized product (quantized steps)
};

// The numbers a case needs to turn a time into TFLOPS (or TOPS), GB/s and % of roofline.
struct Workload {
    double ops = 0;        // arithmetic operations, 2 per multiply-add (0: none counted, e.g. a quantizer)
    double min_bytes = 0;  // fewest bytes that must cross HBM: inputs read once, output written once
};

// %roof: the kernel's time against the larger of its two floors, ops at the pipe's nominal peak
// and bytes at the measured HBM bandwidth.
inline void fill_speed(ResultRow& row, const Workload& w, const Gpu& gpu, const TimingStats& t) {
    row.time_ms = t.median_ms;
    row.time_min_ms = t.min_ms;
    const double seconds = t.median_ms * 1e-3;
    row.tera_ops = w.ops > 0 ? w.ops / seconds / 1e12 : NAN;
    row.gbps = w.min_bytes / seconds / 1e9;
    const double peak = gpu.peak_tera(row.pipe);
    const double compute_ms = (w.ops > 0 && peak > 0) ? w.ops / (peak * 1e12) * 1e3 : 0.0;
    const double memory_ms = std::isfinite(gpu.hbm_gbs) ? w.min_bytes / (gpu.hbm_gbs * 1e9) * 1e3 : 0.0;
    const double floor_ms = std::max(compute_ms, memory_ms);
    row.pct_roofline = floor_ms > 0 ? 100.0 * floor_ms / t.median_ms : NAN;
}

inline std::string fmt_or_dash(double v, const char* fmt) {
    if (!std::isfinite(v)) return "-";
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

inline const ResultRow* find_timed_row(const std::vector<ResultRow>& rows, const std::string& name) {
    for (const auto& r : rows)
        if (r.kernel == name && std::isfinite(r.time_ms)) return &r;
    return nullptr;
}

// The faster of two timed rows (either may be null).
inline const ResultRow* faster_row(const ResultRow* a, const ResultRow* b) {
    if (!a || !b) return a ? a : b;
    return b->time_ms < a->time_ms ? b : a;
}

// A baseline's column header: its name without the "cublas_" that every baseline shares, cut to 7.
inline std::string baseline_label(const std::string& name) {
    const std::string prefix = "cublas_";
    return (name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name).substr(0, 7);
}

// Prints a case's table. first_kernel is the ladder's start (for "x first"), each baseline a
// library reference (for "% base": the baseline's time over ours); any may be absent when
// --kernel filtered it out, and an empty name drops its column. Speed is TFLOPS for
// floating-point pipes, TOPS for integer ones. The "quant NMSE" column appears when a row has one.
inline void print_table(const std::vector<ResultRow>& rows, const std::string& first_kernel,
                        const std::vector<std::string>& baselines) {
    const ResultRow* first = find_timed_row(rows, first_kernel);
    const bool show_quant = std::any_of(rows.begin(), rows.end(), [](const ResultRow& r) { return std::isfinite(r.quant_nmse); });
    std::printf("  %-24s %10s %9s %13s %8s %6s", "kernel", "median(ms)", "min(ms)", "speed", "GB/s", "%roof");
    if (!first_kernel.empty()) std::printf(" %8s", ("x " + first_kernel.substr(0, 6)).c_str());
    for (const auto& b : baselines) std::printf(" %8s", ("%" + baseline_label(b)).c_str());
    std::printf("  %-26s", "error (metric)");
    if (show_quant) std::printf(" %10s", "quant NMSE");
    std::printf(" %s\n", "check");
    for (const auto& r : rows) {
        const std::string err = r.error_metric.empty()
                                    ? "-"
                                    : r.error_metric + " " + fmt_or_dash(r.error_value, r.error_is_count ? "%.0f" : "%.2e");
        const std::string speed =
            std::isfinite(r.tera_ops) ? fmt_or_dash(r.tera_ops, r.tera_ops < 100 ? "%.2f" : "%.1f") + " " + pipe_unit(r.pipe) : "-";
        std::printf("  %-24s %10s %9s %13s %8s %6s", r.kernel.c_str(), fmt_or_dash(r.time_ms, "%.4f").c_str(),
                    fmt_or_dash(r.time_min_ms, "%.4f").c_str(), speed.c_str(), fmt_or_dash(r.gbps, "%.0f").c_str(),
                    fmt_or_dash(r.pct_roofline, "%.1f").c_str());
        if (!first_kernel.empty()) std::printf(" %8s", fmt_or_dash(first ? first->time_ms / r.time_ms : NAN, "%.2f").c_str());
        for (const auto& b : baselines) {
            const ResultRow* base = find_timed_row(rows, b);
            std::printf(" %8s", fmt_or_dash(base ? 100.0 * base->time_ms / r.time_ms : NAN, "%.1f").c_str());
        }
        std::printf("  %-26s", err.c_str());
        if (show_quant) std::printf(" %10s", fmt_or_dash(r.quant_nmse, "%.3e").c_str());
        std::printf(" %s%s\n", status_name(r.status), r.note.empty() ? "" : (" (" + r.note + ")").c_str());
    }
}

inline bool any_failed(const std::vector<ResultRow>& rows) {
    return std::any_of(rows.begin(), rows.end(), [](const ResultRow& r) { return r.status == Status::Fail; });
}

// CSV fields here are plain: a comma inside a name would shift the columns, so it becomes ';'.
inline std::string csv_field(std::string s) {
    std::replace(s.begin(), s.end(), ',', ';');
    return s;
}

// The columns every step writes (README.md, "What the programs share") plus, at the end, the
// minimum time, the unit of the tflops column (TFLOPS or TOPS), the L2 state of the case (cold,
// warm, or - when not timed) and the quantization error (NaN where there is none).
inline void append_csv(const std::string& path, const char* step, const std::string& case_name, int64_t m, int64_t n,
                       int64_t k, const std::vector<ResultRow>& rows, const Gpu& gpu, const char* l2_state) {
    if (path.empty()) return;
    FILE* f = std::fopen(path.c_str(), "a+");
    if (!f) usage_error("cannot write the --csv file '%s'", path.c_str());
    std::fseek(f, 0, SEEK_END);
    if (std::ftell(f) == 0)
        std::fprintf(f, "step,case,kernel,M,N,K,time_ms,tflops,gbps,pct_roofline,error_metric,error_value,status,gpu,cc,"
                        "time_min_ms,ops_unit,l2,quant_nmse\n");
    for (const auto& r : rows)
        std::fprintf(f, "%s,%s,%s,%lld,%lld,%lld,%.6f,%.4f,%.2f,%.2f,%s,%.6g,%s,%s,%d,%.6f,%s,%s,%.6g\n", step,
                     csv_field(case_name).c_str(), r.kernel.c_str(), (long long)m, (long long)n, (long long)k, r.time_ms,
                     r.tera_ops, r.gbps, r.pct_roofline, r.error_metric.c_str(), r.error_value, status_name(r.status),
                     csv_field(gpu.name).c_str(), gpu.cc, r.time_min_ms, pipe_unit(r.pipe), l2_state, r.quant_nmse);
    std::fclose(f);
}
