// tosca-check: validates TOSCA templates the way the orchestrator does, for CI pipelines.
//   tosca-check [--inputs FILE.json] [--mirror URL_PREFIX=DIR]... [--format human|gcc|github|json] ... TEMPLATE...
// Options and exit statuses: tosca-check --help and docs/tosca-check.md.
#include "check_command.hpp"

#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const char* mirrors = std::getenv("ORCHESTRATOR_TOSCA_MIRRORS");
    // The process boundary: whatever escapes is an I/O-class failure with a message, not an abort.
    try {
        return orch::tosca::tools::RunToscaCheck(args, mirrors != nullptr ? mirrors : "", std::cout, std::cerr);
    } catch (const std::exception& e) {
        std::cerr << "tosca-check: " << e.what() << "\n";
        return orch::tosca::tools::kExitInputFile;
    }
}
