#include "orchestrator/api/views.hpp"

#include "orchestrator/domain/iso_time.hpp"

namespace orch::api {
namespace {

void WriteLink(JsonWriter& w, std::string_view rel, std::string_view href) {
    w.BeginObject().Member("href", href).Member("rel", rel).EndObject();
}

void WriteDeploymentLinks(JsonWriter& w, std::string_view id, std::string_view base_url) {
    w.Key("links").BeginArray();
    if (!base_url.empty()) {
        // One buffer per thread for the three hrefs: a list page wrote one string per row.
        thread_local std::string href;
        href.assign(base_url).append("/deployments/").append(id);
        const std::size_t self_size = href.size();
        WriteLink(w, "self", href);
        href.append("/resources?type={type}");
        WriteLink(w, "resources", href);
        href.resize(self_size);
        href.append("/template");
        WriteLink(w, "template", href);
    }
    w.EndArray();
}

}  // namespace

void WriteDeploymentView(JsonWriter& w, const domain::Deployment& d, std::string_view base_url) {
    // Null members are omitted and empty objects/arrays kept, as Jackson's NON_NULL did.
    // Members in key order: the bytes stay those of the nlohmann tree this view used to be.
    w.BeginObject();
    if (!d.callback.empty()) {
        w.Member("callback", d.callback);
    }
    if (d.cloud_provider_endpoint.is_object()) {
        w.Key("cloudProviderEndpoint").Value(d.cloud_provider_endpoint);
    }
    if (!d.cloud_provider_name.empty()) {
        w.Member("cloudProviderName", d.cloud_provider_name);
    }
    if (d.owner) {
        w.Key("createdBy")
            .BeginObject()
            .Member("issuer", d.owner->issuer)
            .Member("subject", d.owner->subject)
            .EndObject();
    }
    w.Member("creationTime", domain::ContractTime(d.created_at).view());
    if (d.expires_at) {
        w.Member("expiresAt", domain::FormatIsoTime(*d.expires_at));  // absent: no lease
    }
    WriteDeploymentLinks(w, d.id, base_url);
    w.Key("outputs");
    if (d.outputs.is_object() && !d.outputs.empty()) {
        w.Value(d.outputs);
    } else {
        w.BeginObject().EndObject();
    }
    if (!d.physical_id.empty()) {
        w.Member("physicalId", d.physical_id);
    }
    w.Member("status", domain::StatusName(d.status));
    if (!d.status_reason.empty()) {
        w.Member("statusReason", d.status_reason);
    }
    w.Member("task", domain::TaskName(d.task));
    w.Member("updateTime", domain::ContractTime(d.updated_at).view());
    if (!d.user_group.empty()) {
        w.Member("userGroup", d.user_group);
    }
    w.Member("uuid", d.id);
    w.EndObject();
}

std::string DeploymentViewText(const domain::Deployment& d, std::string_view base_url) {
    std::string text;
    text.reserve(1024);
    JsonWriter w(text);
    WriteDeploymentView(w, d, base_url);
    return text;
}

Json DeploymentView(const domain::Deployment& d, const std::string& base_url) {
    return Json::parse(DeploymentViewText(d, base_url));
}

std::string ContractProviderName(tosca::DeploymentKind kind) {
    return kind == tosca::DeploymentKind::kSlurm ? "QCG" : std::string(tosca::DeploymentKindName(kind));
}

bool TakesUpdates(const std::optional<tosca::DeploymentKind>& kind) {
    return kind != tosca::DeploymentKind::kSlurm;
}

bool TakesActions(const std::optional<tosca::DeploymentKind>& kind) {
    return kind != tosca::DeploymentKind::kSlurm;
}

Json ResourceView(const domain::Resource& r, const std::string& base_url) {
    Json j = {
        {"uuid", r.id},
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
    j["links"] =
        Json::array({{{"rel", "deployment"}, {"href", dep}}, {{"rel", "self"}, {"href", dep + "/resources/" + r.id}}});
    return j;
}

// finishedAt and reason are left out until there is one (no nulls: the contract's views omit them too).
Json AttemptView(const domain::Attempt& a) {
    Json view{
        {"seq", a.seq},
        {"providerId", a.provider_id},
        {"providerName", a.provider_name},
        {"serviceId", a.service_id},
        {"startedAt", domain::FormatUtcMillis(a.started_at)},
        {"outcome", domain::AttemptOutcomeName(a.outcome)}};
    if (a.finished_at) {
        view["finishedAt"] = domain::FormatUtcMillis(*a.finished_at);
    }
    if (!a.reason.empty()) {
        view["reason"] = a.reason;
    }
    return view;
}

}  // namespace orch::api
