#pragma once

#include "common/json.hpp"
#include "tosca/deployment_spec.hpp"

#include <cstddef>

namespace orch::tosca {

/// About how many bytes of memory `spec` holds (strings, JSON trees, containers), for caches that
/// must be bounded in bytes: a spec's size follows its template, not a fixed per-entry figure.
std::size_t ApproxMemoryBytes(const DeploymentSpec& spec);

/// The same estimate for one JSON value (its tree of nodes and texts).
std::size_t ApproxMemoryBytes(const Json& value);

}  // namespace orch::tosca
