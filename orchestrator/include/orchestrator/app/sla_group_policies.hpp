#pragma once

// Per-group lifecycle policies from the local SLA file (docs/lifecycle.md): one reader for every
// policy kept there (elastic, idle, self_healing), so the file's shape is decided in one place.
#include "common/config.hpp"

#include <functional>
#include <string>

namespace orch::app {

/// Parses one group's section: the keys are read from `slas` under `prefix` ("<group>.<section>.").
using GroupSectionParser =
    std::function<Status(const ConfigTree& slas, const std::string& group, const std::string& prefix)>;

/// Calls `parse` for every group of the local SLA file (placement.sla.type `file` with
/// placement.sla.path) that has a `<section>:` mapping beside its `preferences` and `sla`. With
/// another SLA source (SLAM, the Federation Registry: no such field) or no file, nothing is
/// called. A group name with a dot cannot be a key path: such a group keeps the defaults.
Status ForEachSlaGroupSection(const ConfigTree& config, const std::string& section, const GroupSectionParser& parse);

}  // namespace orch::app
