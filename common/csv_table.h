// csv_table.h - reading back the project's CSV files (a header line, then rows; fields never
// quoted: report.h's append_csv writes them so, and results/llama_cpp_h200.csv follows suit).
// Fields are found by their header name, so a reader does not depend on column order.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

struct CsvTable {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;

    // The column of a header name; -1 when the file has none.
    int column(const std::string& name) const {
        for (size_t i = 0; i < header.size(); ++i)
            if (header[i] == name) return (int)i;
        return -1;
    }
    // Row r's field in that column; nullptr when the column is missing or the row is short.
    const std::string* field(size_t r, int col) const {
        return col >= 0 && (size_t)col < rows[r].size() ? &rows[r][(size_t)col] : nullptr;
    }
};

inline std::vector<std::string> split_csv_line(const std::string& line) {
    std::vector<std::string> fields;
    std::stringstream in(line);
    for (std::string f; std::getline(in, f, ',');) fields.push_back(f);
    return fields;
}

// The whole file; empty (no header) when it is missing or unreadable.
inline CsvTable read_csv(const std::string& path) {
    CsvTable t;
    std::ifstream in(path);
    std::string line;
    if (!std::getline(in, line)) return t;
    t.header = split_csv_line(line);
    while (std::getline(in, line)) t.rows.push_back(split_csv_line(line));
    return t;
}
