#include "test_support/orchestrator_config.hpp"

#include "test_support/test_env.hpp"

#include <common/uuid.hpp>

#include <filesystem>
#include <fstream>

namespace orch::test {

std::string ToscaMirrorYaml() {
    return "tosca:\n  mirrors:\n    \"https://raw.githubusercontent.com/indigo-dc/tosca-types/\": " + SharedDir() +
           "/tosca-corpus/indigo-dc-tosca-types/refs/\n";
}

std::string WriteSiteFiles(const std::string& prefix, const std::string& catalogue, const std::string& sla) {
    const std::string dir = BinaryDir() + "/" + prefix + RandomUuid().substr(0, 8);
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/catalogue.yaml") << catalogue;
    std::ofstream(dir + "/sla.yaml") << sla;
    return dir;
}

std::string FilePlacementYaml(const std::string& dir, const std::string& default_group) {
    return "placement:\n" + (default_group.empty() ? std::string() : "  default_group: " + default_group + "\n") +
           "  catalogue: {type: file, path: " + dir + "/catalogue.yaml}\n  sla: {type: file, path: " + dir +
           "/sla.yaml}\n";
}

std::string WriteNoSiteConfig(const std::string& prefix, const std::string& extra_yaml) {
    const std::string dir = WriteSiteFiles(prefix, "providers: []\n", "{}\n");
    std::ofstream(dir + "/orchestrator.yaml")
        << "auth:\n  mode: disabled\n"
        << ToscaMirrorYaml() << FilePlacementYaml(dir, "") << "workflow:\n  first_poll: 100ms\n  idle_poll: 50ms\n"
        << extra_yaml;
    return dir + "/orchestrator.yaml";
}

}  // namespace orch::test
