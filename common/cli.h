// cli.h - the command line every step program shares (README.md, "What the programs share").
//
// parse_options() turns argv into Options or stops with exit 2 and one line on stderr: unknown
// or repeated flags, values that are not numbers or out of range, a shape given in part, a --csv
// file that cannot be written, a flag that does nothing in this mode. Everything is checked
// before any work starts.
#pragma once

#include "errors.cuh"
#include "gemm_case.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

// A flag that one step adds to the common ones (step 2's --quantize FORMAT, say).
struct ExtraFlag {
    std::string name;  // without the leading "--"
    bool takes_value;  // "--name VALUE" or "--name=VALUE"; otherwise a switch
    std::string help;
    std::string value_name = "VALUE";  // what --help calls the value (FORMAT, FILE, DIR)
};

// Lesson kernels run by default. A canary is a deliberately broken kernel that a test runs by
// name to prove that the checker rejects it; it never runs unless asked for. An exercise is the
// learner's slot (a stub until written: exercises/ in each step); its solution lives apart and is
// tested. Exercises run when named or with --exercises; a solution only when named.
enum class KernelRole { Lesson, Canary, Exercise, Solution };

struct KernelInfo {
    std::string name;
    std::string description;
    KernelRole role = KernelRole::Lesson;
    std::string compare_with;   // exercises and solutions: the lesson kernel run beside them
    std::string exercise_file;  // exercises: the file the learner edits
    bool written = true;        // exercises: false while the file is the shipped stub
};

struct Options {
    bool has_shape = false;
    int64_t m = 0, n = 0, k = 0;
    std::vector<std::string> kernels;  // empty: every lesson kernel
    std::vector<std::string> companions;  // lesson kernels that named exercises bring along
    bool exercises = false;            // --exercises: every exercise beside the lesson kernels
    int iters = 20;
    int warmup = 5;
    uint64_t seed = 1234;
    bool check_only = false;
    std::string csv_path;
    std::vector<std::pair<std::string, std::string>> extra;  // step-specific flags that were given
    std::vector<std::string> given;                          // every flag on the command line
    std::vector<std::string> expected;  // --expect: kernels the given shape exists for (GemmCase::expected)

    bool wants(const KernelInfo& kernel) const {
        if (kernels.empty()) return kernel.role == KernelRole::Lesson || (exercises && kernel.role == KernelRole::Exercise);
        return std::find(kernels.begin(), kernels.end(), kernel.name) != kernels.end() ||
               std::find(companions.begin(), companions.end(), kernel.name) != companions.end();
    }
    bool has(const std::string& flag) const { return extra_value(flag) != nullptr; }
    const std::string* extra_value(const std::string& flag) const {
        for (const auto& kv : extra)
            if (kv.first == flag) return &kv.second;
        return nullptr;
    }
    bool was_given(const std::string& flag) const {
        return std::find(given.begin(), given.end(), flag) != given.end();
    }
};

// What a step runs: its lesson cases, or the one shape given on the command line.
inline std::vector<GemmCase> cases_to_run(const Options& o, const std::vector<GemmCase>& lesson) {
    return o.has_shape ? std::vector<GemmCase>{{"custom", o.m, o.n, o.k, o.expected}} : lesson;
}

// A mode that uses only some flags (step 2's file tool): any other flag given is an error.
inline void reject_flags_except(const Options& o, const std::vector<std::string>& allowed, const char* mode) {
    for (const auto& flag : o.given)
        if (std::find(allowed.begin(), allowed.end(), flag) == allowed.end())
            usage_error("--%s does nothing with %s; leave it out", flag.c_str(), mode);
}

// Strict integer parsing: the whole string must be a number within [lo, hi].
inline int64_t parse_int_flag(const std::string& flag, const std::string& text, int64_t lo, int64_t hi) {
    if (text.empty()) usage_error("--%s needs a value", flag.c_str());
    if (!(std::isdigit((unsigned char)text[0]) || (text[0] == '-' && text.size() > 1 && std::isdigit((unsigned char)text[1]))))
        usage_error("--%s expects an integer, got '%s'", flag.c_str(), text.c_str());  // strtoll would skip a space or '+'
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0')
        usage_error("--%s expects an integer, got '%s'", flag.c_str(), text.c_str());
    if (errno == ERANGE || v < lo || v > hi)
        usage_error("--%s is out of range: it must be between %lld and %lld, got '%s'", flag.c_str(), (long long)lo,
                    (long long)hi, text.c_str());
    return v;
}

struct ProgramInfo {
    const char* name;     // "step1_fp32"
    const char* summary;  // one line
    const char* example;  // an example command line
    int64_t k_multiple;   // K must be a multiple of this (1 for FP32, 32 for ggml blocks)
    std::vector<KernelInfo> kernels;
    std::vector<ExtraFlag> extra_flags;
    bool uses_m = true;   // false: the step's problem is a [N, K] tensor, given by --n --k alone
    bool only_checks = false;  // true: no shape and no timing (step 5); --help lists neither
};

inline void print_help(const ProgramInfo& info) {
    std::printf("%s: %s\n\n", info.name, info.summary);
    std::printf("usage: %s [options]\n\n", info.name);
    if (!info.only_checks && info.uses_m)
        std::printf("  --m M --n N --k K   problem C[M,N] = A[M,K] * W[N,K]^T (all three; default: the lesson cases)\n");
    else if (!info.only_checks)
        std::printf("  --n N --k K         a tensor of N rows of K values (both; default: the lesson case)\n");
    std::printf("  --kernel A[,B...]   run only these kernels (--list shows them)\n");
    std::printf("  --list              list the kernels, one line each\n");
    if (std::any_of(info.kernels.begin(), info.kernels.end(), [](const KernelInfo& k) { return k.role == KernelRole::Exercise; }))
        std::printf("  --exercises         run the exercise kernels too (README.md, Exercises); --kernel ex1 runs one\n");
    if (!info.only_checks) {
        std::printf("  --iters N           timed repetitions, median and minimum reported (default 20)\n");
        std::printf("  --warmup N          untimed warm-up launches (default 5)\n");
    }
    std::printf("  --seed S            data seed: same seed, same data, on any machine (default 1234)\n");
    std::printf("  --check-only        correctness only, no timing\n");
    if (!info.only_checks && info.uses_m)
        std::printf("  --expect A[,B...]   with --m --n --k: fail unless these kernels run and PASS (the tests use it)\n");
    if (!info.only_checks) std::printf("  --csv FILE          append one row per (case, kernel)\n");
    for (const auto& f : info.extra_flags)
        std::printf("  --%-17s %s\n", (f.name + (f.takes_value ? " " + f.value_name : "")).c_str(), f.help.c_str());
    std::printf("  --help              this text\n\n");
    if (!info.only_checks && info.k_multiple > 1)
        std::printf("K must be a multiple of %lld (the block size).\n", (long long)info.k_multiple);
    std::printf("exit codes: 0 all checks passed, 1 a check failed, 2 bad input, 3 a CUDA error, 77 no usable GPU\n");
    std::printf("example: %s\n", info.example);
}

// --list: one line per kernel, its name, what it does and its role; the names are what --kernel takes.
inline void print_kernel_list(const ProgramInfo& info) {
    constexpr int kNameWidth = 24;
    for (const auto& kern : info.kernels) {
        std::string tag;
        if (kern.role == KernelRole::Canary) tag = " [canary: deliberately wrong; a test expects FAIL]";
        if (kern.role == KernelRole::Exercise)
            tag = " [exercise" + std::string(kern.written ? "" : ", unsolved") + ": edit " + kern.exercise_file + "]";
        if (kern.role == KernelRole::Solution) tag = " [solution]";
        const int pad = std::max(2, kNameWidth + 1 - (int)kern.name.size());  // a long name keeps two spaces
        std::printf("%s%*s%s%s\n", kern.name.c_str(), pad, "", kern.description.c_str(), tag.c_str());
    }
    if (!info.only_checks)
        std::printf("(every kernel runs on the GPU: without one, %s runs its CPU part, if any, and exits 77)\n", info.name);
}

inline std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t comma = s.find(',', start);
        if (comma == std::string::npos) comma = s.size();
        out.push_back(s.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

// Largest size we accept in any one dimension; products are checked separately.
constexpr int64_t kMaxDim = int64_t(1) << 24;

// A --csv file must be writable before any kernel runs, but nothing is created here: the file is
// opened when its first row is written (report.h), so a run that stops on a usage error, or
// without a GPU, leaves no empty file behind. Writable: an existing file we may write, or a new
// name in a folder we may write.
inline void require_writable(const std::string& path) {
    struct stat st;
    if (stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode) || access(path.c_str(), W_OK) != 0) usage_error("cannot write the --csv file '%s'", path.c_str());
        return;
    }
    const size_t slash = path.find_last_of('/');
    const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    if (stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || access(folder.c_str(), W_OK | X_OK) != 0)
        usage_error("cannot write the --csv file '%s' (no writable folder '%s')", path.c_str(), folder.c_str());
}

// Parses argv into Options. Exits 0 after --help / --list, 2 on any bad input.
inline Options parse_options(int argc, char** argv, const ProgramInfo& info) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--", 0) != 0 || arg.size() == 2) usage_error("unexpected argument '%s'", arg.c_str());
        std::string flag = arg.substr(2), value;
        bool has_inline_value = false;
        const size_t eq = flag.find('=');
        if (eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
            has_inline_value = true;
        }
        if (o.was_given(flag)) usage_error("--%s is given twice; give it once", flag.c_str());
        o.given.push_back(flag);
        auto take_value = [&]() -> std::string {
            if (has_inline_value) return value;
            if (i + 1 >= argc) usage_error("--%s needs a value", flag.c_str());
            return argv[++i];
        };
        auto no_value = [&]() {
            if (has_inline_value) usage_error("--%s takes no value", flag.c_str());
        };
        if (flag == "help" || flag == "list") no_value();  // acted on once the whole line is read

        else if (flag == "m") o.m = parse_int_flag(flag, take_value(), 1, kMaxDim);
        else if (flag == "n") o.n = parse_int_flag(flag, take_value(), 1, kMaxDim);
        else if (flag == "k") o.k = parse_int_flag(flag, take_value(), 1, kMaxDim);
        else if (flag == "iters") o.iters = (int)parse_int_flag(flag, take_value(), 1, 100000);
        else if (flag == "warmup") o.warmup = (int)parse_int_flag(flag, take_value(), 0, 100000);
        else if (flag == "seed") o.seed = (uint64_t)parse_int_flag(flag, take_value(), 0, INT64_MAX);
        else if (flag == "check-only") { no_value(); o.check_only = true; }
        else if (flag == "exercises" &&
                 std::any_of(info.kernels.begin(), info.kernels.end(), [](const KernelInfo& k) { return k.role == KernelRole::Exercise; })) {
            no_value();
            o.exercises = true;
        }
        else if (flag == "csv") { o.csv_path = take_value(); if (o.csv_path.empty()) usage_error("--csv needs a file name"); }
        else if (flag == "kernel") {
            for (const auto& name : split_commas(take_value())) {
                const bool known = std::any_of(info.kernels.begin(), info.kernels.end(),
                                               [&](const KernelInfo& kern) { return kern.name == name; });
                if (!known) usage_error("unknown kernel '%s'; --list shows the names", name.c_str());
                if (std::find(o.kernels.begin(), o.kernels.end(), name) != o.kernels.end())
                    usage_error("kernel '%s' is named twice in --kernel", name.c_str());
                o.kernels.push_back(name);
                for (const auto& kern : info.kernels)
                    if (kern.name == name && !kern.compare_with.empty()) o.companions.push_back(kern.compare_with);
            }
        } else if (flag == "expect" && !info.only_checks && info.uses_m) {
            o.expected = split_commas(take_value());
            for (const auto& name : o.expected)
                if (std::none_of(info.kernels.begin(), info.kernels.end(), [&](const KernelInfo& kern) { return kern.name == name; }))
                    usage_error("unknown kernel '%s' in --expect; --list shows the names", name.c_str());
        } else {
            auto extra = std::find_if(info.extra_flags.begin(), info.extra_flags.end(),
                                      [&](const ExtraFlag& f) { return f.name == flag; });
            if (extra == info.extra_flags.end()) usage_error("unknown option '%s'", arg.c_str());
            if (extra->takes_value) o.extra.emplace_back(flag, take_value());
            else { no_value(); o.extra.emplace_back(flag, ""); }
        }
    }
    const bool seen_m = o.was_given("m"), seen_n = o.was_given("n"), seen_k = o.was_given("k");
    if (seen_m && !info.uses_m) usage_error("%s takes no --m: its problem is one [N, K] tensor (--n, --k)", info.name);
    if (!info.uses_m) o.m = 1;
    if (seen_m || seen_n || seen_k) {
        if (info.uses_m && !(seen_m && seen_n && seen_k)) usage_error("give --m, --n and --k together");
        if (!info.uses_m && !(seen_n && seen_k)) usage_error("give --n and --k together");
        o.has_shape = true;
        if (o.k % info.k_multiple != 0)
            usage_error("K must be a multiple of %lld (the block size), got %lld", (long long)info.k_multiple,
                        (long long)o.k);
        // The teaching kernels index with 32-bit ints: every matrix must have < 2^31 elements.
        const int64_t limit = int64_t(1) << 31;
        if (o.m * o.k >= limit || o.n * o.k >= limit || o.m * o.n >= limit)
            usage_error("M*K, N*K and M*N must each be below 2^31 elements (32-bit indexing)");
    }
    if (!o.expected.empty() && !o.has_shape) usage_error("--expect names the kernels of one shape: give --m, --n and --k too");
    for (const auto& name : o.expected)
        for (const auto& kern : info.kernels)
            if (kern.name == name && !o.wants(kern)) usage_error("--expect names '%s', which this run does not select", name.c_str());
    if (o.exercises && !o.kernels.empty()) usage_error("--exercises adds every exercise to the lesson kernels; with --kernel, name them");
    if (o.check_only && (o.was_given("iters") || o.was_given("warmup")))
        usage_error("--iters and --warmup set up timing, which --check-only turns off; give one or the other");
    if (!o.csv_path.empty()) require_writable(o.csv_path);
    // --help and --list answer only a command line that is otherwise valid (in any order): they
    // print and exit 0, with nothing else run.
    if (o.was_given("help")) {
        print_help(info);
        std::exit(EXIT_ALL_PASSED);
    }
    if (o.was_given("list")) {
        print_kernel_list(info);
        std::exit(EXIT_ALL_PASSED);
    }
    return o;
}
