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

/// The profile a `tosca_definitions_version` names that is TOSCA but not the Simple Profile in
/// YAML this engine implements ("TOSCA Simple Profile for NFV" for
/// tosca_simple_profile_for_nfv_1_0_0, ...), so it is refused as unsupported rather than as an
/// invalid version; nullopt for anything else.
std::optional<std::string> UnsupportedToscaProfile(std::string_view written);

/// The minor version of a canonical version (tosca_simple_yaml_1_3 → 3).
int ToscaMinorVersion(std::string_view canonical_version);

/// The normative types of a canonical version, parsed once from the embedded definitions and
/// shared (immutable) by every check. Null for an unknown version.
std::shared_ptr<const TypeRegistry> NormativeTypes(std::string_view canonical_version);

/// Findings while building the normative registries: always empty unless our own embedded
/// definitions are broken (a unit test asserts it is empty).
const std::vector<Diagnostic>& NormativeDiagnostics();

}  // namespace orch::tosca
