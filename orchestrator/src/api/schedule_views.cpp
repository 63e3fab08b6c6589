#include "orchestrator/api/schedule_views.hpp"

#include "orchestrator/api/views.hpp"

namespace orch::api {

Json ScheduleView(const domain::Schedule& s, const std::string& base_url) {
    // Null members omitted (Jackson NON_NULL), as the original did.
    Json j;
    j["uuid"] = s.id;
    j["creationTime"] = domain::FormatContractTime(s.created_at);
    j["updateTime"] = domain::FormatContractTime(s.updated_at);
    j["status"] = s.status;
    j["replicationExpression"] = s.replication_expression;
    j["fileExpression"] = s.file_expression;
    if (!s.callback.empty()) {
        j["callback"] = s.callback;
    }
    j["numberOfReplicas"] = s.number_of_replicas;
    if (s.deployment_expires_after_mins) {
        j["deploymentExpiresAfterMins"] = *s.deployment_expires_after_mins;
    }
    if (s.owner) {
        j["createdBy"] = {{"issuer", s.owner->issuer}, {"subject", s.owner->subject}};
    }
    j["links"] = Json::array({{{"rel", "self"}, {"href", base_url + "/schedules/" + s.id}}});
    return j;
}

Json ScheduleEventView(const domain::ScheduleEvent& e) {
    Json j;
    j["uuid"] = e.id;
    j["creationTime"] = domain::FormatContractTime(e.created_at);
    j["updateTime"] = domain::FormatContractTime(e.updated_at);
    if (e.deployment) {
        j["deployment"] = DeploymentView(*e.deployment, "");  // nested: "links": []
    }
    j["scope"] = e.scope;
    j["name"] = e.name;
    if (!e.replication_status.empty()) {
        j["replicationStatus"] = e.replication_status;
    }
    j["links"] = Json::array();
    return j;
}

}  // namespace orch::api
