#pragma once

#include "common/result.hpp"
#include "sim/json_schema.hpp"

#include <memory>
#include <string>

namespace orch::sim {

/// The Marathon and Kubernetes schemas compiled into the binary at build time (from
/// ../shared/schemas/{marathon,kubernetes}), so site-sim needs no data files at run time.
/// Fails when the build had no schemas to embed.
Result<std::shared_ptr<const SchemaSet>> LoadEmbeddedSchemas();

/// The same schemas read from a directory holding marathon/ and kubernetes/ subfolders.
Result<std::shared_ptr<const SchemaSet>> LoadSchemasFromDir(const std::string& dir);

}  // namespace orch::sim
