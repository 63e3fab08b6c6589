#include "pg_rows.hpp"

#include "common/log.hpp"
#include "common/trace_context.hpp"

namespace orch::store {

domain::Deployment RowToListedDeployment(const pqxx::row& row) {
    domain::Deployment d;
    d.id = row[0].as<std::string>();
    d.created_at = FromMicros(row[1].as<std::int64_t>());
    d.updated_at = FromMicros(row[2].as<std::int64_t>());
    d.status = domain::ParseStatus(TextView(row[3])).value_or(domain::Status::kUnknown);
    d.status_reason = TextOr(row[4]);
    d.task = TextView(row[5]) == "DEPLOYER" ? domain::Task::kDeployer : domain::Task::kNone;
    d.physical_id = TextOr(row[6]);
    d.callback = TextOr(row[7]);
    d.user_group = TextOr(row[8]);
    if (std::string issuer = TextOr(row[9]); !issuer.empty()) {
        d.owner = domain::Owner{std::move(issuer), TextOr(row[10])};
    }
    d.cloud_provider_name = TextOr(row[11]);
    // The defaults are the fallbacks (endpoint null, outputs {}): most rows keep them as read.
    ReadJsonInto(row[12], d.cloud_provider_endpoint);
    ReadJsonInto(row[13], d.outputs);
    if (!row[14].is_null()) {
        d.expires_at = FromMicros(row[14].as<std::int64_t>());
    }
    return d;
}

domain::Deployment RowToDeployment(const pqxx::row& row) {
    domain::Deployment d = RowToListedDeployment(row);
    d.template_text = TextOr(row[15]);
    d.parameters = JsonOr(row[16], Json::object());
    if (!row[17].is_null()) {
        d.options.timeout_mins = row[17].as<int>();
    }
    if (!row[18].is_null()) {
        d.options.provider_timeout_mins = row[18].as<int>();
    }
    if (!row[19].is_null()) {
        d.options.max_providers_retry = row[19].as<int>();
    }
    d.options.keep_last_attempt = row[20].as<bool>();
    d.kind = tosca::ParseDeploymentKind(TextOr(row[21]));
    d.req_cpus = row[22].as<double>();
    d.req_mem_mb = row[23].as<std::int64_t>();
    d.req_gpus = row[24].as<int>();
    d.req_instances = row[25].as<int>();
    d.options.target_provider = TextOr(row[26]);
    d.options.target_region = TextOr(row[27]);
    if (!row[28].is_null()) {
        d.options.self_healing = row[28].as<bool>();
    }
    if (!row[29].is_null()) {
        d.options.max_wait_mins = row[29].as<int>();
    }
    if (d.owner) {
        d.owner->name = TextOr(row[30]);
        d.owner->email = TextOr(row[31]);
    }
    if (!row[32].is_null()) {
        d.options.per_provider_max_retries = row[32].as<int>();
    }
    return d;
}

domain::Resource RowToResource(const pqxx::row& row) {
    domain::Resource r;
    r.id = row[0].as<std::string>();
    r.deployment_id = row[1].as<std::string>();
    r.created_at = FromMicros(row[2].as<std::int64_t>());
    r.updated_at = FromMicros(row[3].as<std::int64_t>());
    r.physical_id = TextOr(row[4]);
    r.state = domain::ParseNodeState(row[5].as<std::string>()).value_or(domain::NodeState::kError);
    r.node_type = row[6].as<std::string>();
    r.node_name = row[7].as<std::string>();
    for (const auto& t : JsonOr(row[8], Json::array())) {
        if (t.is_string()) {
            r.type_chain.push_back(t.get<std::string>());
        }
    }
    r.instance_index = row[9].as<int>();
    r.metadata = JsonOr(row[10], Json::object());
    return r;
}

void AppendOwnerFilter(const auth::OwnerFilter& owner, std::string& where, std::vector<std::string>& params) {
    if (owner.matches_nothing()) {
        where += " AND false";
        return;
    }
    if (owner.issuer()) {
        params.push_back(*owner.issuer());
        where += " AND owner_issuer IN ($" + std::to_string(params.size()) + (owner.include_unowned() ? ", '')" : ")");
    }
    if (owner.subject()) {
        params.push_back(*owner.subject());
        where += " AND owner_subject = $" + std::to_string(params.size());
    }
}

Json WithRequestId(Json payload) {
    const std::string request_id = log::CurrentRequestId();
    if (payload.is_object() && !request_id.empty() && !payload.contains("request_id")) {
        payload["request_id"] = request_id;
    }
    // The trace goes with the job, so a later step (on any replica) logs and sends the same one.
    const std::string& trace_id = trace::CurrentTraceId();
    if (payload.is_object() && !trace_id.empty() && !payload.contains("trace_id")) {
        payload["trace_id"] = trace_id;
        payload["trace_sampled"] = trace::CurrentTraceSampled();
    }
    return payload;
}

}  // namespace orch::store
