// llama_times.h - llama.cpp's own times, recorded on a GPU and committed as a CSV
// (results/llama_cpp_h200.csv: M,N,K,time_us,gpu,date,ggml_commit,source), so that a step can
// print its kernels beside them. The numbers are read, never typed into code.
#pragma once

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#ifndef QGF_LLAMA_TIMES
#define QGF_LLAMA_TIMES "results/llama_cpp_h200.csv"
#endif

struct LlamaTime {
    long long M = 0, N = 0, K = 0;
    double time_us = 0;
    std::string gpu, date, ggml_commit;
};

// Every row of the file; empty when it is missing or unreadable.
inline std::vector<LlamaTime> read_llama_times(const std::string& path = QGF_LLAMA_TIMES) {
    std::vector<LlamaTime> rows;
    std::ifstream in(path);
    std::string line;
    if (!std::getline(in, line)) return rows;  // the header
    while (std::getline(in, line)) {
        std::stringstream fields(line);
        std::string m, n, k, us;
        LlamaTime t;
        if (!std::getline(fields, m, ',') || !std::getline(fields, n, ',') || !std::getline(fields, k, ',') ||
            !std::getline(fields, us, ',') || !std::getline(fields, t.gpu, ',') || !std::getline(fields, t.date, ',') ||
            !std::getline(fields, t.ggml_commit, ','))
            continue;
        try {
            t.M = std::stoll(m), t.N = std::stoll(n), t.K = std::stoll(k), t.time_us = std::stod(us);
        } catch (...) {
            continue;
        }
        rows.push_back(t);
    }
    return rows;
}

inline const LlamaTime* find_llama_time(const std::vector<LlamaTime>& rows, long long M, long long N, long long K) {
    for (const auto& r : rows)
        if (r.M == M && r.N == N && r.K == K) return &r;
    return nullptr;
}
