#pragma once

#include "tosca/diagnostic.hpp"
#include "types/type_registry.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::tosca {

/// The supported versions: tosca_simple_yaml_1_0 .. 1_3 and the 1.0 namespace URI. Returns the
/// canonical name ("tosca_simple_yaml_1_2"), or nullopt when unsupported.
std::optional<std::string> CanonicalToscaVersion(std::string_view written);

/// The normative types of a canonical version, parsed once from the embedded definitions and
/// shared (immutable) by every check. Null for an unknown version.
std::shared_ptr<const TypeRegistry> NormativeTypes(std::string_view canonical_version);

/// Findings while building the normative registries: always empty unless our own embedded
/// definitions are broken (a unit test asserts it is empty).
const std::vector<Diagnostic>& NormativeDiagnostics();

}  // namespace orch::tosca
