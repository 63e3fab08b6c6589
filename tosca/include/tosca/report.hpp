#pragma once

#include "common/json.hpp"
#include "tosca/engine.hpp"

namespace orch::tosca {

/// The machine-readable summary tosca-check --json prints (one object per template):
/// {"valid", "errors": [{"file","line","column","path","message","severity"}], "kind",
///  "nodes": [{"name","type","count","requirements":{"cpus","mem_mb","disk_mb","gpus",
///  "gpu_vendor","gpu_model"}}]}. "errors" holds warnings too (told apart by "severity");
/// "kind" is null and "nodes" empty when the template is invalid.
Json CheckReport(const TemplateCheck& check);

}  // namespace orch::tosca
