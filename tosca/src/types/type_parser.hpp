#pragma once

#include "types/type_model.hpp"
#include "util/grammar.hpp"

#include <memory>
#include <vector>

namespace orch::tosca {

/// Reads every *_types section of a document (template or import) into definitions, checking
/// their grammar. Inheritance is resolved later by the TypeRegistry.
std::vector<std::unique_ptr<TypeDef>> ParseTypeSections(const yaml::Node& root, GrammarContext& ctx);

}  // namespace orch::tosca
