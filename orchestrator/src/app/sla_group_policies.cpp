#include "orchestrator/app/sla_group_policies.hpp"

namespace orch::app {

Status ForEachSlaGroupSection(const ConfigTree& config, const std::string& section, const GroupSectionParser& parse) {
    ORCH_ASSIGN_OR_RETURN(const auto type, config.GetString("placement.sla.type", "file"));
    ORCH_ASSIGN_OR_RETURN(const auto path, config.GetString("placement.sla.path", ""));
    if (type != "file" || path.empty()) {
        return Ok();
    }
    ORCH_ASSIGN_OR_RETURN(const auto slas, ConfigTree::FromFile(path));
    for (const auto& group : slas.ChildKeys("")) {
        if (group.find('.') != std::string::npos || !slas.Has(group + "." + section)) {
            continue;
        }
        ORCH_RETURN_IF_ERROR(parse(slas, group, group + "." + section + "."));
    }
    return Ok();
}

}  // namespace orch::app
