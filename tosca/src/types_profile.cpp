#include "tosca/types_profile.hpp"

#include <string>
#include <utility>
#include <vector>

namespace orch::tosca {
namespace internal {
// Generated from tosca/profiles/*/orchestrator.yaml by orch_embed_files (tosca/CMakeLists.txt).
const std::vector<std::pair<std::string_view, std::string_view>>& TypesProfileFiles();
}  // namespace internal

std::optional<std::string_view> OrchestratorTypesProfile(std::string_view version) {
    // One profile so far; the embedded list is keyed by file name, so v2 will get its own name.
    if (version != "v1") {
        return std::nullopt;
    }
    for (const auto& [file, content] : internal::TypesProfileFiles()) {
        if (file == "orchestrator.yaml") {
            return content;
        }
    }
    return std::nullopt;
}

}  // namespace orch::tosca
