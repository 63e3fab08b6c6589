#pragma once

#include "types/type_registry.hpp"
#include "values/typed_value.hpp"

namespace orch::tosca {

/// Checks the definitions added to `registry`'s own layer: referenced types exist and are of
/// the right kind, constraint operands fit their property types, defaults satisfy their
/// definitions. Run once per registry (cached registries are checked once).
void CheckDefinitions(const TypeRegistry& registry, LiteralTyping typing, GrammarContext& ctx);

/// Checks one list of property definitions (also used for topology inputs).
void CheckPropertyDefs(
    const std::vector<PropertyDef>& defs,
    const TypeRegistry& registry,
    LiteralTyping typing,
    const Path& path,
    GrammarContext& ctx
);

}  // namespace orch::tosca
