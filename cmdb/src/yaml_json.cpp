#include "yaml_json.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <fstream>
#include <sstream>

namespace orch::cmdb {
namespace {

constexpr int kMaxDepth = 64;

Json Scalar(const YAML::Node& node) {
    const std::string& text = node.Scalar();
    if (node.Tag() == "!") {  // quoted: always a string
        return text;
    }
    if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
        return nullptr;
    }
    if (text == "true" || text == "True" || text == "TRUE") {
        return true;
    }
    if (text == "false" || text == "False" || text == "FALSE") {
        return false;
    }
    const char* first = text.data();
    const char* last = text.data() + text.size();
    std::int64_t integer = 0;
    if (auto [ptr, ec] = std::from_chars(first, last, integer); ec == std::errc() && ptr == last) {
        return integer;
    }
    double number = 0;
    if (auto [ptr, ec] = std::from_chars(first, last, number); ec == std::errc() && ptr == last) {
        return number;
    }
    return text;
}

Result<Json> Convert(const YAML::Node& node, int depth, const std::string& origin) {
    if (depth > kMaxDepth) {
        return Error::InvalidArgument(origin + ": nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    switch (node.Type()) {
        case YAML::NodeType::Undefined:
        case YAML::NodeType::Null:
            return Json(nullptr);
        case YAML::NodeType::Scalar:
            return Scalar(node);
        case YAML::NodeType::Sequence: {
            Json out = Json::array();
            for (const auto& item : node) {
                auto value = Convert(item, depth + 1, origin);
                if (!value) {
                    return value;
                }
                out.push_back(std::move(value).value());
            }
            return out;
        }
        case YAML::NodeType::Map: {
            Json out = Json::object();
            for (const auto& entry : node) {
                auto value = Convert(entry.second, depth + 1, origin);
                if (!value) {
                    return value;
                }
                out[entry.first.Scalar()] = std::move(value).value();
            }
            return out;
        }
    }
    return Json(nullptr);
}

}  // namespace

Result<Json> YamlToJson(const std::string& text, const std::string& origin) {
    try {
        return Convert(YAML::Load(text), 0, origin);
    } catch (const YAML::Exception& e) {
        return Error::InvalidArgument(
            origin + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + ": " + e.msg
        );
    }
}

Result<std::string> ReadTextFile(const std::string& path, std::size_t max_bytes) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return Error::InvalidArgument("cannot read '" + path + "'");
    }
    std::ostringstream out;
    out << in.rdbuf();
    std::string text = out.str();
    if (text.size() > max_bytes) {
        return Error::InvalidArgument("'" + path + "' is larger than " + std::to_string(max_bytes) + " bytes");
    }
    return text;
}

}  // namespace orch::cmdb
