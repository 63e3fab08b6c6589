#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace orch::tosca::tools {

inline constexpr int kExitValid = 0;
inline constexpr int kExitInvalid = 1;
inline constexpr int kExitUsageOrIo = 2;

/// tosca-check as a function, so tests can run it in-process: `args` are the command-line
/// arguments without the program name, `environment_mirrors` the value of
/// ORCHESTRATOR_TOSCA_MIRRORS (empty when unset). Returns the exit status: 0 all templates
/// valid, 1 some template invalid, 2 usage or I/O error.
int RunToscaCheck(
    const std::vector<std::string>& args, const std::string& environment_mirrors, std::ostream& out, std::ostream& err
);

}  // namespace orch::tosca::tools
