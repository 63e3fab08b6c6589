#pragma once

// tosca-check run in-process, with what it printed, for the tests of the command.
#include "check_command.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace orch::tosca::test {

struct Run {
    int status;
    std::string out;
    std::string err;
};

/// Runs the command with `args` (as after the program name) and the mirror list an
/// ORCHESTRATOR_TOSCA_MIRRORS-style environment would give.
inline Run Tool(const std::vector<std::string>& args, const std::string& env_mirrors = "") {
    std::ostringstream out;
    std::ostringstream err;
    const int status = tools::RunToscaCheck(args, env_mirrors, out, err);
    return {status, out.str(), err.str()};
}

}  // namespace orch::tosca::test
