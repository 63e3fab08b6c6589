#pragma once

#include "types/type_model.hpp"
#include "util/grammar.hpp"

#include <optional>
#include <vector>

namespace orch::tosca {

/// `constraints:` — a list of single-key maps (compat also tolerates the map form seen in real
/// INFN templates). Unknown operators: warning (compat, ignored) or error (strict).
std::vector<Constraint> ParseConstraints(const yaml::Node* node, const Path& path, GrammarContext& ctx);

/// A schema: `entry_schema: string` (short form) or {type, constraints, entry_schema, key_schema}.
std::shared_ptr<const Schema> ParseSchema(const yaml::Node* node, const Path& path, GrammarContext& ctx);

/// Which grammar a property-like definition follows.
enum class DefinitionKind { kProperty, kAttribute, kInput, kParameter };

/// A property, attribute or input definition: {type, description, required, default, status,
/// constraints, entry_schema, key_schema, metadata}.
std::optional<PropertyDef> ParsePropertyDef(
    const yaml::Entry& entry, DefinitionKind kind, const Path& path, GrammarContext& ctx
);

/// All definitions of a `properties:` / `attributes:` / `inputs:` mapping.
std::vector<PropertyDef> ParsePropertyDefs(
    const yaml::Node* node, DefinitionKind kind, const Path& path, GrammarContext& ctx
);

/// `occurrences: [min, max]` (max may be UNBOUNDED).
std::optional<Occurrences> ParseOccurrences(const yaml::Node* node, const Path& path, GrammarContext& ctx);

std::string_view ConstraintOpName(ConstraintOp op);

}  // namespace orch::tosca
