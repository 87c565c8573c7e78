// json_lite.h - just enough JSON to read the golden cases' manifest.json: objects, arrays,
// strings (the escapes \" \\ \/ \n \t), numbers, true, false, null. A parse error is a
// one-line reason, never a crash.
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

struct JsonValue {
    enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
    bool boolean = false;
    double number = 0;
    std::string text;
    std::vector<JsonValue> items;              // Array
    std::map<std::string, JsonValue> members;  // Object

    // The member called `key` of an object, or nullptr (also when this is not an object).
    const JsonValue* get(const std::string& key) const {
        if (kind != Kind::Object) return nullptr;
        const auto it = members.find(key);
        return it == members.end() ? nullptr : &it->second;
    }
};

class JsonParser {
public:
    explicit JsonParser(const std::string& text) : s_(text) {}

    // The whole text as one value; false with *why set when it is not JSON.
    bool parse(JsonValue& out, std::string* why) {
        if (!value(out, 0) || (skip(), i_ != s_.size())) {
            *why = error_.empty() ? "unexpected text at byte " + std::to_string(i_) : error_;
            return false;
        }
        return true;
    }

private:
    static constexpr int kMaxDepth = 64;
    const std::string& s_;
    size_t i_ = 0;
    std::string error_;

    bool fail(const std::string& what) {
        if (error_.empty()) error_ = what + " at byte " + std::to_string(i_);
        return false;
    }
    void skip() {
        while (i_ < s_.size() && std::isspace((unsigned char)s_[i_])) ++i_;
    }
    bool literal(const char* word) {
        const std::string w(word);
        if (s_.compare(i_, w.size(), w) != 0) return fail("expected '" + w + "'");
        i_ += w.size();
        return true;
    }
    bool string(std::string& out) {
        if (s_[i_] != '"') return fail("expected a string");
        for (++i_; i_ < s_.size() && s_[i_] != '"'; ++i_) {
            if (s_[i_] != '\\') { out += s_[i_]; continue; }
            if (++i_ >= s_.size()) break;
            const char e = s_[i_];
            if (e == '"' || e == '\\' || e == '/') out += e;
            else if (e == 'n') out += '\n';
            else if (e == 't') out += '\t';
            else return fail("an escape this reader does not take");
        }
        if (i_ >= s_.size()) return fail("an unterminated string");
        ++i_;
        return true;
    }
    bool value(JsonValue& v, int depth) {
        skip();
        if (i_ >= s_.size()) return fail("unexpected end");
        if (depth > kMaxDepth) return fail("nesting too deep");
        const char c = s_[i_];
        if (c == '{') return object(v, depth);
        if (c == '[') return array(v, depth);
        if (c == '"') return v.kind = JsonValue::Kind::String, string(v.text);
        if (c == 't') return v.kind = JsonValue::Kind::Bool, v.boolean = true, literal("true");
        if (c == 'f') return v.kind = JsonValue::Kind::Bool, literal("false");
        if (c == 'n') return literal("null");
        const char* start = s_.c_str() + i_;
        char* end = nullptr;
        v.number = std::strtod(start, &end);
        if (end == start) return fail("expected a value");
        v.kind = JsonValue::Kind::Number;
        i_ += (size_t)(end - start);
        return true;
    }
    // The items of an array or an object up to CLOSE, separated by commas; item() reads one.
    template <class Item>
    bool items_until(char close, const char* expected, Item item) {
        ++i_;
        skip();
        if (i_ < s_.size() && s_[i_] == close) return ++i_, true;
        while (true) {
            if (!item()) return false;
            skip();
            if (i_ < s_.size() && s_[i_] == ',') { ++i_; continue; }
            if (i_ < s_.size() && s_[i_] == close) return ++i_, true;
            return fail(expected);
        }
    }
    bool array(JsonValue& v, int depth) {
        v.kind = JsonValue::Kind::Array;
        return items_until(']', "expected ',' or ']'", [&] {
            v.items.emplace_back();
            return value(v.items.back(), depth + 1);
        });
    }
    bool object(JsonValue& v, int depth) {
        v.kind = JsonValue::Kind::Object;
        return items_until('}', "expected ',' or '}'", [&] {
            skip();
            std::string key;
            if (i_ >= s_.size() || !string(key)) return fail("expected a member name");
            skip();
            if (i_ >= s_.size() || s_[i_] != ':') return fail("expected ':'");
            ++i_;
            return value(v.members[key], depth + 1);
        });
    }
};
