#include "tosca/sensitive_inputs.hpp"

#include "util/diag_sink.hpp"
#include "yaml/loader.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace orch::tosca {
namespace {

std::string Lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    return out;
}

bool MarkedSensitive(const yaml::Node& definition) {
    const yaml::Node* metadata = definition.Find("metadata");
    const yaml::Node* flag = metadata != nullptr ? metadata->Find("sensitive") : nullptr;
    if (flag == nullptr || !flag->IsScalar()) {
        return false;
    }
    // TOSCA metadata values are strings, so "true" counts as much as a YAML true.
    return yaml::ParseYamlBool(flag->text).value_or(false);
}

// Stored parameters passed ParseJson's depth limit; a deeper value (written some other way) is
// hidden whole rather than walked: the bound keeps the recursion's stack small.
constexpr int kMaxDepth = 64;

Json RedactNested(const Json& value, int depth = 0) {
    if (depth > kMaxDepth) {
        return Json(kRedacted);
    }
    if (value.is_object()) {
        Json out = Json::object();
        for (const auto& [key, member] : value.items()) {
            out[key] = IsSensitiveName(key) ? Json(kRedacted) : RedactNested(member, depth + 1);
        }
        return out;
    }
    if (value.is_array()) {
        Json out = Json::array();
        for (const auto& item : value) {
            out.push_back(RedactNested(item, depth + 1));
        }
        return out;
    }
    return value;
}

}  // namespace

bool IsSensitiveName(std::string_view name) {
    static constexpr std::array<std::string_view, 9> kWords = {
        "password", "passwd", "secret", "token", "credential", "private", "api_key", "apikey", "access_key"};
    const std::string lower = Lower(name);
    return std::any_of(kWords.begin(), kWords.end(), [&](std::string_view word) {
        return lower.find(word) != std::string::npos;
    });
}

namespace {

// The sensitive input definitions of a loaded template: name → definition node.
std::map<std::string, const yaml::Node*> SensitiveDefinitions(const yaml::Document& doc) {
    std::map<std::string, const yaml::Node*> found;
    const yaml::Node* topology = doc.root != nullptr ? doc.root->Find("topology_template") : nullptr;
    const yaml::Node* inputs = topology != nullptr ? topology->Find("inputs") : nullptr;
    if (inputs == nullptr || !inputs->IsMapping()) {
        return found;
    }
    for (const auto& entry : inputs->entries) {
        if (entry.key == nullptr || !entry.key->IsScalar()) {
            continue;
        }
        const std::string& name = entry.key->text;
        const yaml::Node* type = entry.value != nullptr ? entry.value->Find("type") : nullptr;
        const bool sensitive_type = type != nullptr && type->IsScalar() && IsSensitiveName(type->text);
        if (IsSensitiveName(name) || sensitive_type || (entry.value != nullptr && MarkedSensitive(*entry.value))) {
            found.emplace(name, entry.value);
        }
    }
    return found;
}

yaml::Document Load(std::string_view template_text) {
    DiagSink sink;
    return yaml::LoadYaml(template_text, "template", yaml::LoadLimits{}, sink);
}

// The byte offset of a mark (1-based line and column, as the loader reports them), npos when
// the text has no such place.
std::size_t OffsetOf(std::string_view text, yaml::Mark mark) {
    std::size_t offset = 0;
    if (mark.line < 1 || mark.column < 1) {
        return std::string_view::npos;
    }
    for (int line = 1; line < mark.line; ++line) {
        offset = text.find('\n', offset);
        if (offset == std::string_view::npos) {
            return offset;
        }
        ++offset;
    }
    const std::size_t end = std::min(text.find('\n', offset), text.size());
    const auto column = static_cast<std::size_t>(mark.column - 1);
    return offset + column <= end ? offset + column : std::string_view::npos;
}

// Where a one-line scalar starts and how long its source text is; nullopt when it does not sit
// on one line exactly as loaded (block scalars, multi-line flow scalars).
std::optional<std::pair<std::size_t, std::size_t>> ScalarSpan(std::string_view text, const yaml::Node& value) {
    const std::size_t start = OffsetOf(text, value.mark);
    if (start == std::string_view::npos || start >= text.size()) {
        return std::nullopt;
    }
    const std::size_t line_end = std::min(text.find('\n', start), text.size());
    const char quote = text[start];
    if (quote == '"' || quote == '\'') {
        for (std::size_t i = start + 1; i < line_end; ++i) {
            if (quote == '"' && text[i] == '\\') {
                ++i;  // an escaped character, possibly a quote
            } else if (text[i] == quote && quote == '\'' && i + 1 < line_end && text[i + 1] == '\'') {
                ++i;  // '' inside a single-quoted scalar
            } else if (text[i] == quote) {
                return std::pair{start, i + 1 - start};
            }
        }
        return std::nullopt;
    }
    if (text.substr(start, value.text.size()) != value.text || start + value.text.size() > line_end) {
        return std::nullopt;
    }
    return std::pair{start, value.text.size()};
}

}  // namespace

std::set<std::string> SensitiveInputNames(std::string_view template_text) {
    return RedactTemplate(template_text).sensitive_inputs;
}

TemplateRedaction RedactTemplate(std::string_view template_text) {
    TemplateRedaction out;
    const yaml::Document doc = Load(template_text);
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    std::string unredactable;
    for (const auto& [name, definition] : SensitiveDefinitions(doc)) {
        out.sensitive_inputs.insert(name);
        const yaml::Node* value = definition != nullptr ? definition->Find("default") : nullptr;
        if (value == nullptr) {
            continue;
        }
        const auto span = value->IsScalar() ? ScalarSpan(template_text, *value) : std::nullopt;
        if (!span) {
            unredactable = name;
            break;
        }
        spans.push_back(*span);
    }
    if (!unredactable.empty()) {
        out.withheld = true;
        out.text = "[template withheld: the default of the sensitive input '" + unredactable +
                   "' cannot be redacted in place]";
        return out;
    }
    out.text = std::string(template_text);
    // Back to front, so the offsets of the spans still to replace stay valid.
    std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [start, length] : spans) {
        out.text.replace(start, length, "\"" + std::string(kRedacted) + "\"");
    }
    return out;
}

Json RedactInputs(const Json& parameters, const std::set<std::string>& sensitive) {
    if (!parameters.is_object()) {
        return RedactNested(parameters);
    }
    Json out = Json::object();
    for (const auto& [name, value] : parameters.items()) {
        const bool secret = sensitive.contains(name) || IsSensitiveName(name);
        out[name] = secret ? Json(kRedacted) : RedactNested(value);
    }
    return out;
}

}  // namespace orch::tosca
