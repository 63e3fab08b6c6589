#include "yaml/node.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace orch::tosca::yaml {
namespace {

const std::string kNoSource = "<generated>";

constexpr std::array<std::string_view, 9> kFunctionNames = {
    "get_input",
    "get_property",
    "get_attribute",
    "get_operation_output",
    "get_nodes_of_type",
    "get_artifact",
    "concat",
    "join",
    "token",
};

bool IsDigit(char c) {
    return c >= '0' && c <= '9';
}

std::string_view StripSign(std::string_view text, bool& negative) {
    negative = false;
    if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
        negative = text.front() == '-';
        text.remove_prefix(1);
    }
    return text;
}

template <typename T>
std::optional<T> FromChars(std::string_view digits, int base) {
    T value{};
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (ec != std::errc() || end != digits.data() + digits.size()) {
        return std::nullopt;
    }
    return value;
}

bool AllOf(std::string_view text, bool (*pred)(char)) {
    for (char c : text) {
        if (!pred(c)) {
            return false;
        }
    }
    return !text.empty();
}

bool IsHex(char c) {
    return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsOctal(char c) {
    return c >= '0' && c <= '7';
}

// [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
bool LooksLikeDecimalFloat(std::string_view text) {
    std::size_t i = 0;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
        ++i;
    }
    std::size_t int_digits = 0;
    while (i < text.size() && IsDigit(text[i])) {
        ++i;
        ++int_digits;
    }
    std::size_t frac_digits = 0;
    if (i < text.size() && text[i] == '.') {
        ++i;
        while (i < text.size() && IsDigit(text[i])) {
            ++i;
            ++frac_digits;
        }
    }
    if (int_digits == 0 && frac_digits == 0) {
        return false;
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
            ++i;
        }
        std::size_t exp_digits = 0;
        while (i < text.size() && IsDigit(text[i])) {
            ++i;
            ++exp_digits;
        }
        if (exp_digits == 0) {
            return false;
        }
    }
    return i == text.size();
}

void DescribeInto(const Node& node, std::string& out, int budget) {
    switch (node.kind) {
        case NodeKind::kNull:
            out += "null";
            return;
        case NodeKind::kScalar:
            out += node.text;
            return;
        case NodeKind::kSequence: {
            out += '[';
            for (std::size_t i = 0; i < node.items.size(); ++i) {
                if (i > 0) {
                    out += ", ";
                }
                if (budget <= 0 || out.size() > 120) {
                    out += "...";
                    break;
                }
                DescribeInto(*node.items[i], out, budget - 1);
            }
            out += ']';
            return;
        }
        case NodeKind::kMapping: {
            out += '{';
            for (std::size_t i = 0; i < node.entries.size(); ++i) {
                if (i > 0) {
                    out += ", ";
                }
                if (budget <= 0 || out.size() > 120) {
                    out += "...";
                    break;
                }
                out += node.entries[i].key->text;
                out += ": ";
                DescribeInto(*node.entries[i].value, out, budget - 1);
            }
            out += '}';
            return;
        }
    }
}

}  // namespace

const Node* Node::Find(std::string_view key) const {
    for (const auto& entry : entries) {
        if (entry.key->text == key) {
            return entry.value;
        }
    }
    return nullptr;
}

const std::string& Node::SourceName() const {
    return source != nullptr ? *source : kNoSource;
}

Arena::Arena(std::string source_name) : source_(std::make_unique<std::string>(std::move(source_name))) {}

Node* Arena::New(NodeKind kind, Mark mark) {
    Node& node = nodes_.emplace_back();
    node.kind = kind;
    node.mark = mark;
    node.source = source_.get();
    return &node;
}

const Node* Arena::Str(std::string text, Mark mark) {
    Node* node = New(NodeKind::kScalar, mark);
    node->text = std::move(text);
    node->bytes = node->text.size();
    return node;
}

const Node* Arena::Plain(std::string text, Mark mark) {
    Node* node = New(NodeKind::kScalar, mark);
    node->text = std::move(text);
    node->bytes = node->text.size();
    node->plain = true;
    return node;
}

const Node* Arena::Null(Mark mark) {
    return New(NodeKind::kNull, mark);
}

const Node* Arena::StrAt(std::string text, const Node& origin) {
    Node* node = New(NodeKind::kScalar, origin.mark);
    node->text = std::move(text);
    node->bytes = node->text.size();
    node->source = origin.source;
    return node;
}

const Node* Arena::FromJson(const Json& value, Mark mark) {
    switch (value.type()) {
        case Json::value_t::null:
        case Json::value_t::discarded:
            return Null(mark);
        case Json::value_t::string:
            return Str(value.get<std::string>(), mark);
        case Json::value_t::boolean:
            return Plain(value.get<bool>() ? "true" : "false", mark);
        case Json::value_t::number_integer:
            return Plain(std::to_string(value.get<std::int64_t>()), mark);
        case Json::value_t::number_unsigned:
            return Plain(std::to_string(value.get<std::uint64_t>()), mark);
        case Json::value_t::number_float:
            return Plain(value.dump(), mark);
        case Json::value_t::binary:
            return Str("", mark);
        case Json::value_t::array: {
            Node* node = New(NodeKind::kSequence, mark);
            for (const auto& item : value) {
                const Node* child = FromJson(item, mark);
                node->size += child->size;
                node->bytes += child->bytes;
                node->items.push_back(child);
            }
            return node;
        }
        case Json::value_t::object: {
            Node* node = New(NodeKind::kMapping, mark);
            for (const auto& [key, item] : value.items()) {
                const Node* child = FromJson(item, mark);
                node->size += child->size + 1;
                node->bytes += child->bytes + key.size();
                node->entries.push_back({Str(key, mark), child});
            }
            return node;
        }
    }
    return Null(mark);
}

std::optional<bool> ParseYamlBool(std::string_view t) {
    if (t == "true" || t == "True" || t == "TRUE" || t == "yes" || t == "Yes" || t == "YES" || t == "on" || t == "On" ||
        t == "ON") {
        return true;
    }
    if (t == "false" || t == "False" || t == "FALSE" || t == "no" || t == "No" || t == "NO" || t == "off" ||
        t == "Off" || t == "OFF") {
        return false;
    }
    return std::nullopt;
}

std::optional<std::int64_t> ParseYamlInt(std::string_view text) {
    bool negative = false;
    std::string_view body = StripSign(text, negative);
    std::optional<std::uint64_t> magnitude;
    if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
        magnitude = AllOf(body.substr(2), IsHex) ? FromChars<std::uint64_t>(body.substr(2), 16) : std::nullopt;
    } else if (body.size() > 2 && body[0] == '0' && (body[1] == 'o' || body[1] == 'O')) {
        magnitude = AllOf(body.substr(2), IsOctal) ? FromChars<std::uint64_t>(body.substr(2), 8) : std::nullopt;
    } else if (AllOf(body, IsDigit)) {
        magnitude = FromChars<std::uint64_t>(body, 10);
    }
    if (!magnitude) {
        return std::nullopt;
    }
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (negative) {
        if (*magnitude > kMax + 1) {
            return std::nullopt;
        }
        return *magnitude == kMax + 1 ? std::numeric_limits<std::int64_t>::min()
                                      : -static_cast<std::int64_t>(*magnitude);
    }
    if (*magnitude > kMax) {
        return std::nullopt;
    }
    return static_cast<std::int64_t>(*magnitude);
}

std::optional<double> ParseYamlFloat(std::string_view text) {
    bool negative = false;
    const std::string_view body = StripSign(text, negative);
    if (body == ".inf" || body == ".Inf" || body == ".INF") {
        return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    }
    if (text == ".nan" || text == ".NaN" || text == ".NAN") {
        return std::numeric_limits<double>::quiet_NaN();
    }
    if (!LooksLikeDecimalFloat(text)) {
        return std::nullopt;
    }
    // strtod needs a terminated buffer; these texts are short.
    const std::string copy(text);
    char* end = nullptr;
    const double value = std::strtod(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size()) {
        return std::nullopt;
    }
    return value;
}

ScalarType ResolveScalar(const Node& node) {
    if (node.kind == NodeKind::kNull) {
        return ScalarType::kNull;
    }
    if (node.kind != NodeKind::kScalar || !node.plain) {
        return ScalarType::kString;
    }
    const std::string_view t = node.text;
    if (t.empty() || t == "~" || t == "null" || t == "Null" || t == "NULL") {
        return ScalarType::kNull;
    }
    if (ParseYamlBool(t)) {
        return ScalarType::kBool;
    }
    if (ParseYamlInt(t)) {
        return ScalarType::kInt;
    }
    if (ParseYamlFloat(t)) {
        return ScalarType::kFloat;
    }
    return ScalarType::kString;
}

Json ToJson(const Node& node) {
    switch (node.kind) {
        case NodeKind::kNull:
            return nullptr;
        case NodeKind::kScalar:
            switch (ResolveScalar(node)) {
                case ScalarType::kNull:
                    return nullptr;
                case ScalarType::kBool:
                    return *ParseYamlBool(node.text);
                case ScalarType::kInt:
                    return *ParseYamlInt(node.text);
                case ScalarType::kFloat: {
                    const double value = *ParseYamlFloat(node.text);
                    // JSON has no infinities or NaN; keep the text rather than emit null.
                    return std::isfinite(value) ? Json(value) : Json(node.text);
                }
                case ScalarType::kString:
                    return node.text;
            }
            return node.text;
        case NodeKind::kSequence: {
            Json out = Json::array();
            for (const Node* item : node.items) {
                out.push_back(ToJson(*item));
            }
            return out;
        }
        case NodeKind::kMapping: {
            Json out = Json::object();
            for (const auto& entry : node.entries) {
                out[entry.key->text] = ToJson(*entry.value);
            }
            return out;
        }
    }
    return nullptr;
}

std::string Describe(const Node& node) {
    std::string out;
    DescribeInto(node, out, 8);
    return out;
}

std::optional<std::string_view> FunctionName(const Node& node) {
    if (node.kind != NodeKind::kMapping || node.entries.size() != 1) {
        return std::nullopt;
    }
    const std::string& key = node.entries.front().key->text;
    // `token` is also a field of the normative tosca.datatypes.Credential: {token: secret} is a
    // credential, not a call (a token call always takes a list [string, separators, index]).
    if (key == "token" && !node.entries.front().value->IsSequence()) {
        return std::nullopt;
    }
    for (std::string_view name : kFunctionNames) {
        if (key == name) {
            return name;
        }
    }
    return std::nullopt;
}

}  // namespace orch::tosca::yaml
