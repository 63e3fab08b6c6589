#pragma once

#include "topology/model.hpp"
#include "tosca/deployment_spec.hpp"
#include "types/type_registry.hpp"

namespace orch::tosca {

/// Builds the DeploymentSpec of a checked topology: deployment kind (through derivation),
/// per-node instance counts, resources (from the node or the node hosting it, units
/// normalised), GPUs, image, command, environment, ports, volumes, placement policies, outputs.
DeploymentSpec BuildSpec(const Topology& topology, const yaml::Node& root, const std::string& version);

/// Parses a container volume text: "path:mode", "host_path:path:mode" or
/// "name:path:mode:provider:driver" (external volume).
VolumeSpec ParseVolume(const std::string& text);

}  // namespace orch::tosca
