#pragma once

// The linear-time matcher lives in common (schedules' file expressions use it too); the engine
// keeps its own name for it.
#include "common/regex.hpp"

namespace orch::tosca {

using orch::Regex;

}  // namespace orch::tosca
