#include "common/json_writer.hpp"

#include "common/json_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace orch {

void JsonWriter::BeforeValue() {
    if (need_comma_) {
        out_.push_back(',');
    }
    need_comma_ = true;
}

JsonWriter& JsonWriter::BeginObject() {
    BeforeValue();
    out_.push_back('{');
    need_comma_ = false;
    return *this;
}

JsonWriter& JsonWriter::EndObject() {
    out_.push_back('}');
    need_comma_ = true;
    return *this;
}

JsonWriter& JsonWriter::BeginArray() {
    BeforeValue();
    out_.push_back('[');
    need_comma_ = false;
    return *this;
}

JsonWriter& JsonWriter::EndArray() {
    out_.push_back(']');
    need_comma_ = true;
    return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
    BeforeValue();
    AppendJsonString(out_, key);
    out_.push_back(':');
    need_comma_ = false;
    return *this;
}

JsonWriter& JsonWriter::String(std::string_view value) {
    BeforeValue();
    AppendJsonString(out_, value);
    return *this;
}

JsonWriter& JsonWriter::Int(std::int64_t value) {
    BeforeValue();
    char buf[24];
    const auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;
    out_.append(buf, end);
    return *this;
}

JsonWriter& JsonWriter::Double(double value) {
    if (!std::isfinite(value)) {
        return Null();
    }
    BeforeValue();
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;
    out_.append(buf, end);
    if (std::find_if(buf, end, [](char c) { return c == '.' || c == 'e'; }) == end) {
        out_ += ".0";  // still a float to readers that tell them apart (as nlohmann writes 1.0)
    }
    return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
    BeforeValue();
    out_ += value ? "true" : "false";
    return *this;
}

JsonWriter& JsonWriter::Null() {
    BeforeValue();
    out_ += "null";
    return *this;
}

JsonWriter& JsonWriter::Value(const Json& value) {
    BeforeValue();
    // Small trees (outputs, endpoints) are rare enough in a list that nlohmann's own dump is fine.
    out_ += value.dump(-1, ' ', false, Json::error_handler_t::replace);
    return *this;
}

}  // namespace orch
