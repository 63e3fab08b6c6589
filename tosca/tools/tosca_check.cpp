// tosca-check: validates TOSCA templates the way the orchestrator does, for CI pipelines.
//   tosca-check [--inputs FILE.json] [--mirror URL_PREFIX=DIR]... [--allow-host HOST]... [--strict] [--json]
//   TEMPLATE...
// Exit status: 0 all templates valid, 1 some template invalid, 2 usage or I/O error.
#include "check_command.hpp"

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const char* mirrors = std::getenv("ORCHESTRATOR_TOSCA_MIRRORS");
    return orch::tosca::tools::RunToscaCheck(args, mirrors != nullptr ? mirrors : "", std::cout, std::cerr);
}
