#pragma once

// The configuration files an e2e test starts the orchestrator binary with: a fresh folder with
// the site catalogue and SLA files, and the orchestrator.yaml sections most tests share.
#include <string>

namespace orch::test {

/// The orchestrator.yaml section that reads the INDIGO TOSCA types from the shared mirror.
std::string ToscaMirrorYaml();

/// A fresh folder under the build directory, named `prefix` and a random suffix, holding
/// catalogue.yaml and sla.yaml; returns the folder.
std::string WriteSiteFiles(const std::string& prefix, const std::string& catalogue, const std::string& sla);

/// The orchestrator.yaml section that places with the files of WriteSiteFiles(`dir`), requests
/// without a group going to `default_group` (none when empty).
std::string FilePlacementYaml(const std::string& dir, const std::string& default_group);

/// An orchestrator.yaml with no site, authentication off and quick polls, then `extra_yaml`, in a
/// fresh folder named `prefix` and a random suffix; returns its path.
std::string WriteNoSiteConfig(const std::string& prefix, const std::string& extra_yaml);

}  // namespace orch::test
