// llama_times.h - llama.cpp's own times, recorded on a GPU and committed as a CSV
// (results/llama_cpp_h200.csv: M,N,K,weights,time_us,gpu,date,ggml_commit,source; weights "q4_0"
// or "q4_k", and a file without that column holds Q4_0 times), so that a step can print its
// kernels beside them. The numbers are read, never typed into code.
#pragma once

#include "csv_table.h"

#include <string>
#include <vector>

#ifndef QGF_LLAMA_TIMES
#define QGF_LLAMA_TIMES "results/llama_cpp_h200.csv"
#endif

struct LlamaTime {
    long long M = 0, N = 0, K = 0;
    std::string weights = "q4_0";  // the weight format llama.cpp multiplied
    double time_us = 0;
    std::string gpu, date, ggml_commit;
};

// Every row of the file that has all of these fields; empty when it is missing or unreadable.
inline std::vector<LlamaTime> read_llama_times(const std::string& path = QGF_LLAMA_TIMES) {
    const CsvTable table = read_csv(path);
    const int m = table.column("M"), n = table.column("N"), k = table.column("K"), us = table.column("time_us");
    const int gpu = table.column("gpu"), date = table.column("date"), commit = table.column("ggml_commit");
    const int weights = table.column("weights");  // optional
    std::vector<LlamaTime> rows;
    for (size_t r = 0; r < table.rows.size(); ++r) {
        const std::string *fm = table.field(r, m), *fn = table.field(r, n), *fk = table.field(r, k), *fus = table.field(r, us),
                          *fgpu = table.field(r, gpu), *fdate = table.field(r, date), *fcommit = table.field(r, commit);
        if (!fm || !fn || !fk || !fus || !fgpu || !fdate || !fcommit) continue;
        LlamaTime t;
        try {
            t.M = std::stoll(*fm), t.N = std::stoll(*fn), t.K = std::stoll(*fk), t.time_us = std::stod(*fus);
        } catch (...) {
            continue;
        }
        t.gpu = *fgpu, t.date = *fdate, t.ggml_commit = *fcommit;
        if (const std::string* fw = table.field(r, weights)) t.weights = *fw;
        rows.push_back(t);
    }
    return rows;
}

inline const LlamaTime* find_llama_time(const std::vector<LlamaTime>& rows, long long M, long long N, long long K,
                                       const std::string& weights = "q4_0") {
    for (const auto& r : rows)
        if (r.M == M && r.N == N && r.K == K && r.weights == weights) return &r;
    return nullptr;
}
