#include "orchestrator/workflow/candidate_codec.hpp"

namespace orch::workflow {

Json HandleToJson(const connectors::Handle& h) {
    return Json{
        {"deployment_id", h.deployment_id},
        {"physical_id", h.physical_id},
        {"target", placement::TargetToJson(h.target)},
        {"state", h.state}};
}

Result<connectors::Handle> HandleFromJson(const Json& j) {
    if (!j.is_object()) {
        return Error::Internal("stored handle is not an object");
    }
    connectors::Handle h;
    h.deployment_id = j.value("deployment_id", "");
    h.physical_id = j.value("physical_id", "");
    ORCH_ASSIGN_OR_RETURN(h.target, placement::TargetFromJson(j.value("target", Json::object())));
    h.state = j.value("state", Json::object());
    return h;
}

}  // namespace orch::workflow
