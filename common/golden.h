// golden.h - reads the golden vectors in common/golden/ (see its README.md for what made each file).
//
// A case is a directory of flat little-endian files: x.f32 (rows x k inputs), q4_0.bin, q8_0.bin,
// q8_1.bin (ggml's reference quantizers, run by ggml itself), q8_1_cudaemu.bin (an *emulation*
// in IEEE fp32 of llama.cpp's CUDA quantize_q8_1, s = sum(x); not ggml output), deq_q4_0.f32, deq_q8_0.f32 and dots.f64 (rows x rows x 8 doubles).
// The shape is not stored in the files: rows follows from dots.f64 (rows^2 * 64 bytes) and k
// from x.f32, so a case directory is self-describing.
#pragma once

#include "errors.cuh"
#include "json_lite.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

// Reads a whole regular file; false for a directory, a missing file or a read error.
inline bool read_file(const std::string& path, std::vector<uint8_t>& out) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return false;
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    std::fseek(f, 0, SEEK_END);
    const long size = std::ftell(f);
    std::fseek(f, 0, SEEK_SET);
    if (size < 0) {
        std::fclose(f);
        return false;
    }
    out.resize((size_t)size);
    size_t got = out.empty() ? 0 : std::fread(out.data(), 1, out.size(), f);
    std::fclose(f);
    return got == out.size();
}

// Writes to PATH.partial and renames it to PATH only once every byte is written, so that a write
// that fails (a full disk, a file size limit) leaves no partial PATH behind, nor the .partial file.
inline bool write_file(const std::string& path, const void* data, size_t bytes) {
    const std::string partial = path + ".partial";
    FILE* f = std::fopen(partial.c_str(), "wb");
    if (!f) return false;
    const bool written = std::fwrite(data, 1, bytes, f) == bytes;
    const bool closed = std::fclose(f) == 0;
    if (written && closed && std::rename(partial.c_str(), path.c_str()) == 0) return true;
    std::remove(partial.c_str());
    return false;
}

template <class T>
inline std::vector<T> bytes_as(const std::vector<uint8_t>& b) {
    std::vector<T> out(b.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), b.data(), out.size() * sizeof(T));
    return out;
}

struct GoldenCase {
    std::string name;
    int64_t rows = 0, k = 0;
    std::vector<float> x, deq_q4_0, deq_q8_0;
    std::vector<uint8_t> q4_0, q8_0, q8_1, q8_1_cudaemu;
    std::vector<double> dots;  // [i][j][variant], 8 variants (golden README)
};

// Loads one case directory; on failure returns false with a one-line reason in *why.
inline bool load_golden_case(const std::string& dir, GoldenCase& c, std::string* why) {
    namespace fs = std::filesystem;
    c.name = fs::path(dir).filename().string();
    std::vector<uint8_t> x, deq4, deq8, dots;
    const std::pair<const char*, std::vector<uint8_t>*> files[] = {
        {"x.f32", &x},          {"q4_0.bin", &c.q4_0},         {"q8_0.bin", &c.q8_0},
        {"q8_1.bin", &c.q8_1},  {"q8_1_cudaemu.bin", &c.q8_1_cudaemu}, {"deq_q4_0.f32", &deq4},
        {"deq_q8_0.f32", &deq8}, {"dots.f64", &dots}};
    for (const auto& f : files)
        if (!read_file(dir + "/" + f.first, *f.second)) {
            *why = "cannot read " + dir + "/" + f.first;
            return false;
        }
    c.rows = (int64_t)std::llround(std::sqrt((double)dots.size() / 64.0));
    if (c.rows <= 0 || (size_t)(c.rows * c.rows * 64) != dots.size() || x.size() % (4 * c.rows) != 0) {
        *why = dir + ": dots.f64 and x.f32 sizes do not describe a rows x k case";
        return false;
    }
    c.k = (int64_t)x.size() / 4 / c.rows;
    const int64_t n = c.rows * c.k, nb = n / 32;
    if (c.k % 32 != 0 || c.q4_0.size() != (size_t)nb * 18 || c.q8_0.size() != (size_t)nb * 34 ||
        c.q8_1.size() != (size_t)nb * 36 || c.q8_1_cudaemu.size() != (size_t)nb * 36 ||
        deq4.size() != (size_t)n * 4 || deq8.size() != (size_t)n * 4) {
        *why = dir + ": file sizes do not match rows=" + std::to_string(c.rows) + " k=" + std::to_string(c.k);
        return false;
    }
    c.x = bytes_as<float>(x);
    c.deq_q4_0 = bytes_as<float>(deq4);
    c.deq_q8_0 = bytes_as<float>(deq8);
    c.dots = bytes_as<double>(dots);
    return true;
}

// A case directory itself, or every case directory directly under a root, in name order: a case
// is a directory that holds the file `marker`.
inline std::vector<std::string> golden_case_dirs(const std::string& root, const char* marker = "x.f32") {
    namespace fs = std::filesystem;
    std::vector<std::string> dirs;
    std::error_code ec;
    if (fs::exists(fs::path(root) / marker, ec)) return {root};
    for (const auto& e : fs::directory_iterator(root, ec))
        if (e.is_directory() && fs::exists(e.path() / marker)) dirs.push_back(e.path().string());
    std::sort(dirs.begin(), dirs.end());
    return dirs;
}

// Floats that differ in their bits; two NaNs count as equal (their payload bits depend on the
// CPU that produced them: x86 makes 0xFFC00000, ARM 0x7FC00000).
inline size_t count_float_diffs(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return SIZE_MAX;
    size_t diffs = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i]) && std::isnan(b[i])) continue;
        diffs += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
    }
    return diffs;
}

// A folder of golden cases lists them in its manifest.json (README.md there): every case listed
// must be there, a directory holding each listed file at the listed size, and every directory
// there must be listed, so that a deleted case or file cannot pass as "fewer cases, all PASS".
// "" when all holds, else a one-line reason.
inline std::string golden_manifest_problem(const std::string& root) {
    namespace fs = std::filesystem;
    const std::string path = root + "/manifest.json";
    std::vector<uint8_t> bytes;
    if (!read_file(path, bytes)) return "cannot read " + path + " (a folder of golden cases lists them there)";
    const std::string text(bytes.begin(), bytes.end());
    JsonValue manifest;
    std::string why;
    if (!JsonParser(text).parse(manifest, &why)) return path + " is not JSON: " + why;
    const JsonValue* cases = manifest.get("cases");
    if (!cases || cases->kind != JsonValue::Kind::Array || cases->items.empty()) return path + " has no \"cases\" list";
    std::set<std::string> listed;
    for (const JsonValue& c : cases->items) {
        const JsonValue *name = c.get("name"), *files = c.get("files");
        if (!name || name->kind != JsonValue::Kind::String || !files || files->kind != JsonValue::Kind::Object || files->members.empty())
            return path + " lists a case without a \"name\" or its \"files\"";
        listed.insert(name->text);
        for (const auto& [file, size] : files->members) {
            std::error_code ec;
            const uintmax_t got = fs::file_size(fs::path(root) / name->text / file, ec);
            if (ec) return "golden case " + name->text + ": " + file + " is missing (manifest.json lists it)";
            if (size.kind != JsonValue::Kind::Number || (double)got != size.number)
                return "golden case " + name->text + ": " + file + " has " + std::to_string(got) + " bytes, manifest.json says " +
                       (size.kind == JsonValue::Kind::Number ? std::to_string((long long)size.number) : std::string("no number"));
        }
    }
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root, ec))
        if (e.is_directory() && !listed.count(e.path().filename().string()))
            return "golden folder " + e.path().string() + " is not a case manifest.json lists";
    return "";
}

// Every golden case under root, loaded; a missing or malformed case is an input error (exit 2).
// A folder of cases is first held to its manifest (golden_manifest_problem).
inline std::vector<GoldenCase> load_golden_cases(const std::string& root) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(root, ec) && !fs::exists(fs::path(root) / "x.f32", ec)) {
        const std::string problem = golden_manifest_problem(root);
        if (!problem.empty()) usage_error("%s", problem.c_str());
    }
    const std::vector<std::string> dirs = golden_case_dirs(root);
    if (dirs.empty()) usage_error("no golden case (a directory with x.f32) found at '%s'", root.c_str());
    std::vector<GoldenCase> cases(dirs.size());
    for (size_t i = 0; i < dirs.size(); ++i) {
        std::string why;
        if (!load_golden_case(dirs[i], cases[i], &why)) usage_error("%s", why.c_str());
    }
    return cases;
}
