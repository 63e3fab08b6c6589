#pragma once

#include <optional>
#include <string_view>

namespace orch::tosca {

/// The path the orchestrator serves its types profile at, and the file under tosca/profiles/ the
/// import mirror map resolves it to offline (docs/tosca.md, "Shipped types").
inline constexpr std::string_view kTypesProfileV1Path = "/types/v1/orchestrator.yaml";

/// The text of the orchestrator's types profile `version` ("v1"), compiled into the binary from
/// tosca/profiles/<version>/orchestrator.yaml; nullopt for a version this build does not ship.
std::optional<std::string_view> OrchestratorTypesProfile(std::string_view version);

}  // namespace orch::tosca
