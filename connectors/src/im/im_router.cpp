#include "connectors/im_auth.hpp"
#include "connectors/im_connector.hpp"

namespace orch::connectors {

bool VmRouter::UsesIm(const SiteTarget& target) const {
    // OpenNebula, EC2 and EGI sites have no direct connector: IM is their only path.
    if (ImCloudType(target) != "OpenStack") {
        return true;
    }
    const std::string path = target.options.value("deployment_path", std::string());
    if (path == "im") {
        return true;
    }
    if (path == "native") {
        return false;
    }
    return !im_.EndpointFor(target).empty();
}

ConnectorResult<Handle> VmRouter::Create(const DeployRequest& request) {
    return UsesIm(request.target) ? im_.Create(request) : native_.Create(request);
}

ConnectorResult<Observation> VmRouter::Poll(const Handle& handle, const tosca::DeploymentSpec& spec) {
    return For(handle).Poll(handle, spec);
}

ConnectorResult<Handle> VmRouter::Update(const Handle& handle, const DeployRequest& request) {
    return For(handle).Update(handle, request);
}

ConnectorResult<Deletion> VmRouter::Delete(const Handle& handle, bool force) {
    return For(handle).Delete(handle, force);
}

ConnectorResult<bool> VmRouter::Act(const Handle& handle, const std::string& physical_id, const std::string& action) {
    return For(handle).Act(handle, physical_id, action);
}

}  // namespace orch::connectors
