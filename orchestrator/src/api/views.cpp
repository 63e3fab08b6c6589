#include "orchestrator/api/views.hpp"

namespace orch::api {

Json DeploymentView(const domain::Deployment& d, const std::string& base_url) {
    // Null members are omitted and empty objects/arrays kept, as Jackson's NON_NULL did.
    Json j;
    j["uuid"] = d.id;
    j["creationTime"] = domain::FormatContractTime(d.created_at);
    j["updateTime"] = domain::FormatContractTime(d.updated_at);
    if (!d.physical_id.empty()) {
        j["physicalId"] = d.physical_id;
    }
    j["status"] = domain::StatusName(d.status);
    if (!d.status_reason.empty()) {
        j["statusReason"] = d.status_reason;
    }
    j["outputs"] = d.outputs.is_object() ? d.outputs : Json::object();
    j["task"] = domain::TaskName(d.task);
    if (!d.callback.empty()) {
        j["callback"] = d.callback;
    }
    if (!d.user_group.empty()) {
        j["userGroup"] = d.user_group;
    }
    if (!d.cloud_provider_name.empty()) {
        j["cloudProviderName"] = d.cloud_provider_name;
    }
    if (d.cloud_provider_endpoint.is_object()) {
        j["cloudProviderEndpoint"] = d.cloud_provider_endpoint;
    }
    if (d.owner) {
        j["createdBy"] = {{"issuer", d.owner->issuer}, {"subject", d.owner->subject}};
    }
    Json links = Json::array();
    if (!base_url.empty()) {
        const std::string self = base_url + "/deployments/" + d.id;
        links.push_back({{"rel", "self"}, {"href", self}});
        links.push_back({{"rel", "resources"}, {"href", self + "/resources?type={type}"}});
        links.push_back({{"rel", "template"}, {"href", self + "/template"}});
    }
    j["links"] = std::move(links);
    return j;
}

Json ResourceView(const domain::Resource& r, const std::string& base_url) {
    Json j = {{"uuid", r.id},
              {"creationTime", domain::FormatContractTime(r.created_at)},
              {"updateTime", domain::FormatContractTime(r.updated_at)},
              {"state", domain::NodeStateName(r.state)},
              {"toscaNodeType", r.node_type},
              {"toscaNodeName", r.node_name},
              {"requiredBy", Json::array()},
              {"metadata", r.metadata.is_object() ? r.metadata : Json::object()}};
    if (!r.physical_id.empty()) {
        j["physicalId"] = r.physical_id;
    }
    const std::string dep = base_url + "/deployments/" + r.deployment_id;
    j["links"] = Json::array({{{"rel", "deployment"}, {"href", dep}}, {{"rel", "self"}, {"href", dep + "/resources/" + r.id}}});
    return j;
}

}  // namespace orch::api
