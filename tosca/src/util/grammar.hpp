#pragma once

#include "util/diag_sink.hpp"
#include "yaml/node.hpp"

#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace orch::tosca {

/// What every grammar reader needs: where findings go and how strict to be.
struct GrammarContext {
    DiagSink& sink;
    bool strict = false;
    /// The document's TOSCA minor version (tosca_simple_yaml_1_<minor>): grammar keys newer
    /// than it are reported (CheckKeyVersion). 3 (the newest) checks nothing.
    int minor = 3;
};

/// Reports `key` when the grammar introduced it after the document's version (key_schema,
/// notifications, operations, ... are 1.3 keys): an error in strict mode, else a warning.
/// Only keys that are grammar keys of 1.3 wherever they are allowed are listed.
void CheckKeyVersion(const yaml::Node& key, const Path& path, std::string_view what, GrammarContext& ctx);

/// Reports keys of `map` that are not in `allowed` (compat: warning, ignored; strict: error).
void CheckKeys(
    const yaml::Node& map,
    std::span<const std::string_view> allowed,
    const Path& path,
    std::string_view what,
    GrammarContext& ctx
);
inline void CheckKeys(
    const yaml::Node& map,
    std::initializer_list<std::string_view> allowed,
    const Path& path,
    std::string_view what,
    GrammarContext& ctx
) {
    CheckKeys(map, std::span<const std::string_view>(allowed.begin(), allowed.size()), path, what, ctx);
}

/// Errors (and false) unless `node` is a mapping; a null node counts as an empty mapping.
bool ExpectMapping(const yaml::Node* node, const Path& path, std::string_view what, GrammarContext& ctx);
bool ExpectSequence(const yaml::Node* node, const Path& path, std::string_view what, GrammarContext& ctx);

/// A scalar's text; errors on collections. nullopt for null/absent.
std::optional<std::string> ReadText(
    const yaml::Node* node, const Path& path, std::string_view what, GrammarContext& ctx
);

/// A grammar boolean (required: yes/no/true/false in any letter case).
std::optional<bool> ReadFlag(const yaml::Node* node, const Path& path, std::string_view what, GrammarContext& ctx);

/// A list of names, also accepting a single name.
std::vector<std::string> ReadNameList(
    const yaml::Node* node, const Path& path, std::string_view what, GrammarContext& ctx
);

/// The single entry of a one-key mapping (list items of requirements, policies, imports).
const yaml::Entry* SingleEntry(const yaml::Node& node, const Path& path, std::string_view what, GrammarContext& ctx);

}  // namespace orch::tosca
