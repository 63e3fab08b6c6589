#include "util/grammar.hpp"

#include <algorithm>

namespace orch::tosca {

namespace {

/// Grammar keys 1.3 introduced (spec 1.3 §3.6.10/§3.6.12 key_schema, §3.6.20-21 interface
/// operations/notifications, §3.6.16 operation implementation timeout/operation_host, §3.6.7
/// artifact checksum/checksum_algorithm/artifact_version, §3.8.13 substitution_filter).
/// Dispatched on the length first: every grammar key of a 1.0 document passes through here.
bool IsSince13(std::string_view key) {
    switch (key.size()) {
        case 7:
            return key == "timeout";
        case 8:
            return key == "checksum";
        case 10:
            return key == "key_schema" || key == "operations";
        case 13:
            return key == "notifications";
        case 14:
            return key == "operation_host";
        case 16:
            return key == "artifact_version";
        case 18:
            return key == "checksum_algorithm";
        case 19:
            return key == "substitution_filter";
        default:
            return false;
    }
}

}  // namespace

void CheckKeyVersion(const yaml::Node& key, const Path& path, std::string_view what, GrammarContext& ctx) {
    if (ctx.minor >= 3 || !IsSince13(key.text)) {
        return;
    }
    ctx.sink.StrictError(
        ctx.strict,
        DiagnosticCode::kUnknownField,
        &key,
        path,
        "'" + key.text + "' in " + std::string(what) + " is TOSCA 1.3 grammar, but the document declares version 1." +
            std::to_string(ctx.minor) + (ctx.strict ? "" : " (read anyway)")
    );
}

void CheckKeys(
    const yaml::Node& map,
    std::span<const std::string_view> allowed,
    const Path& path,
    std::string_view what,
    GrammarContext& ctx
) {
    for (const auto& entry : map.entries) {
        if (std::find(allowed.begin(), allowed.end(), entry.key->text) != allowed.end()) {
            CheckKeyVersion(*entry.key, path.Key(entry.key->text), what, ctx);
            continue;
        }
        ctx.sink.StrictError(
            ctx.strict,
            DiagnosticCode::kUnknownField,
            entry.key,
            path.Key(entry.key->text),
            std::string(what) + " has an unknown key '" + entry.key->text + "'" + (ctx.strict ? "" : " (ignored)")
        );
    }
}

bool ExpectMapping(const yaml::Node* node, const Path& path, std::string_view what, GrammarContext& ctx) {
    if (node == nullptr || node->IsNull() || node->IsMapping()) {
        return true;
    }
    ctx.sink.Error(
        DiagnosticCode::kInvalidValue,
        node,
        path,
        std::string(what) + " must be a mapping, not " + yaml::Describe(*node)
    );
    return false;
}

bool ExpectSequence(const yaml::Node* node, const Path& path, std::string_view what, GrammarContext& ctx) {
    if (node == nullptr || node->IsNull() || node->IsSequence()) {
        return true;
    }
    ctx.sink.Error(
        DiagnosticCode::kInvalidValue, node, path, std::string(what) + " must be a list, not " + yaml::Describe(*node)
    );
    return false;
}

std::optional<std::string> ReadText(
    const yaml::Node* node, const Path& path, std::string_view what, GrammarContext& ctx
) {
    if (node == nullptr || node->IsNull()) {
        return std::nullopt;
    }
    if (!node->IsScalar()) {
        ctx.sink.Error(
            DiagnosticCode::kInvalidValue, node, path, std::string(what) + " must be text, not " + yaml::Describe(*node)
        );
        return std::nullopt;
    }
    return node->text;
}

std::optional<bool> ReadFlag(const yaml::Node* node, const Path& path, std::string_view what, GrammarContext& ctx) {
    const auto text = ReadText(node, path, what, ctx);
    if (!text) {
        return std::nullopt;
    }
    std::string lower = *text;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    if (const auto value = yaml::ParseYamlBool(lower)) {
        return value;
    }
    ctx.sink.Error(
        DiagnosticCode::kInvalidValue, node, path, std::string(what) + " must be true or false, not \"" + *text + "\""
    );
    return std::nullopt;
}

std::vector<std::string> ReadNameList(
    const yaml::Node* node, const Path& path, std::string_view what, GrammarContext& ctx
) {
    std::vector<std::string> out;
    if (node == nullptr || node->IsNull()) {
        return out;
    }
    if (node->IsScalar()) {
        out.push_back(node->text);
        return out;
    }
    if (!ExpectSequence(node, path, what, ctx)) {
        return out;
    }
    for (std::size_t i = 0; i < node->items.size(); ++i) {
        if (auto text = ReadText(node->items[i], path.Index(i), what, ctx)) {
            out.push_back(std::move(*text));
        }
    }
    return out;
}

const yaml::Entry* SingleEntry(const yaml::Node& node, const Path& path, std::string_view what, GrammarContext& ctx) {
    if (!node.IsMapping() || node.entries.size() != 1) {
        ctx.sink.Error(
            DiagnosticCode::kInvalidValue,
            &node,
            path,
            std::string(what) + " must be a mapping with exactly one key (name: definition), not " +
                yaml::Describe(node)
        );
        return nullptr;
    }
    return &node.entries.front();
}

}  // namespace orch::tosca
