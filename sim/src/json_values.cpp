#include "json_values.hpp"

#include <cmath>

namespace orch::sim::schema_detail {

std::size_t Utf8Length(const std::string& text) {
    std::size_t count = 0;
    for (const unsigned char c : text) {
        if ((c & 0xC0U) != 0x80U) {
            ++count;
        }
    }
    return count;
}

std::string EscapePointerToken(const std::string& token) {
    std::string out;
    for (const char c : token) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
    return out;
}

std::string UnescapePointerToken(const std::string& token) {
    std::string out;
    for (std::size_t i = 0; i < token.size(); ++i) {
        if (token[i] == '~' && i + 1 < token.size()) {
            out += token[i + 1] == '1' ? '/' : '~';
            ++i;
        } else {
            out += token[i];
        }
    }
    return out;
}

// Follows a JSON pointer ("/definitions/pathType") inside `root`; null when it leads nowhere.
const Json* FollowPointer(const Json& root, const std::string& pointer) {
    const Json* node = &root;
    std::size_t pos = 0;
    while (pos < pointer.size()) {
        if (pointer[pos] != '/') {
            return nullptr;
        }
        const auto next = pointer.find('/', pos + 1);
        const std::string token =
            UnescapePointerToken(pointer.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1)
            );
        if (node->is_object()) {
            const auto it = node->find(token);
            if (it == node->end()) {
                return nullptr;
            }
            node = &*it;
        } else if (node->is_array()) {
            std::size_t index = 0;
            for (const char c : token) {
                if (c < '0' || c > '9') {
                    return nullptr;
                }
                index = index * 10 + static_cast<std::size_t>(c - '0');
            }
            if (token.empty() || index >= node->size()) {
                return nullptr;
            }
            node = &(*node)[index];
        } else {
            return nullptr;
        }
        pos = next == std::string::npos ? pointer.size() : next;
    }
    return node;
}

std::string TypeName(const Json& value) {
    switch (value.type()) {
        case Json::value_t::null:
            return "null";
        case Json::value_t::boolean:
            return "boolean";
        case Json::value_t::number_integer:
        case Json::value_t::number_unsigned:
            return "integer";
        case Json::value_t::number_float:
            return "number";
        case Json::value_t::string:
            return "string";
        case Json::value_t::array:
            return "array";
        case Json::value_t::object:
            return "object";
        default:
            return "unknown";
    }
}

bool IsIntegral(const Json& value) {
    if (value.is_number_integer()) {
        return true;
    }
    // Draft-06+ (and Jackson) count 2.0 as an integer; draft-04 tools disagree, servers accept it.
    if (value.is_number_float()) {
        const double d = value.get<double>();
        return std::isfinite(d) && std::floor(d) == d;
    }
    return false;
}

bool TypeMatches(const std::string& type, const Json& value) {
    if (type == "integer") {
        return IsIntegral(value);
    }
    if (type == "number") {
        return value.is_number();
    }
    if (type == "string") {
        return value.is_string();
    }
    if (type == "object") {
        return value.is_object();
    }
    if (type == "array") {
        return value.is_array();
    }
    if (type == "boolean") {
        return value.is_boolean();
    }
    if (type == "null") {
        return value.is_null();
    }
    return true;  // unknown type names ("any") constrain nothing
}

std::string Abbreviate(const Json& value) {
    std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (text.size() > 60) {
        text = text.substr(0, 57) + "...";
    }
    return text;
}

}  // namespace orch::sim::schema_detail
