#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace orch::tosca::tools {

/// The exit statuses (docs/tosca-check.md). Checking several templates exits with the largest
/// status that applies, so "could not check" (3, 4) outranks "invalid" (1). Usage errors stop
/// before anything is checked.
inline constexpr int kExitValid = 0;              ///< every template is valid
inline constexpr int kExitInvalid = 1;            ///< some template is invalid
inline constexpr int kExitUsage = 2;              ///< the command line is wrong; nothing was checked
inline constexpr int kExitImportUnavailable = 3;  ///< an import could not be read or fetched, or was refused
inline constexpr int kExitInputFile = 4;  ///< a file named on the command line is unreadable, too large or malformed

/// tosca-check as a function, so tests can run it in-process: `args` are the command-line
/// arguments without the program name, `environment_mirrors` the value of
/// ORCHESTRATOR_TOSCA_MIRRORS (empty when unset). Returns the exit status (kExit*).
int RunToscaCheck(
    const std::vector<std::string>& args, const std::string& environment_mirrors, std::ostream& out, std::ostream& err
);

}  // namespace orch::tosca::tools
