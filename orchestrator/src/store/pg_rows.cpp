#include "pg_rows.hpp"

#include "common/log.hpp"

#include <functional>

namespace orch::store {

namespace {

const Json kEmptyObject = Json::object();

// What ReadJsonInto leaves in a Deployment's endpoint (default null), as the view reads it: the
// object, or nullptr when absent, unparsable or not an object.
const Json* EndpointTree(const pqxx::field& f, std::forward_list<Json>& trees) {
    if (f.is_null()) {
        return nullptr;
    }
    if (TextView(f) == "{}") {
        return &kEmptyObject;
    }
    Json parsed = Json::parse(f.c_str(), nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object()) {
        return nullptr;
    }
    return &trees.emplace_front(std::move(parsed));
}

// The same for the outputs (default {}): a non-empty object, or nullptr for `{}`.
const Json* OutputsTree(const pqxx::field& f, std::forward_list<Json>& trees) {
    if (f.is_null() || TextView(f) == "{}") {
        return nullptr;
    }
    Json parsed = Json::parse(f.c_str(), nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object() || parsed.empty()) {
        return nullptr;
    }
    return &trees.emplace_front(std::move(parsed));
}

// The list columns but the two JSON ones (kListColumns 0-11), viewed in the row's buffers: what
// both the view and the copy below read, so the column numbers are written once.
domain::ListedDeployment ListedScalars(const pqxx::row& row) {
    domain::ListedDeployment d;
    d.id = TextView(row[0]);
    d.created_at = FromMicros(row[1].as<std::int64_t>());
    d.updated_at = FromMicros(row[2].as<std::int64_t>());
    d.status = domain::ParseStatus(TextView(row[3])).value_or(domain::Status::kUnknown);
    d.status_reason = TextView(row[4]);
    d.task = TextView(row[5]) == "DEPLOYER" ? domain::Task::kDeployer : domain::Task::kNone;
    d.physical_id = TextView(row[6]);
    d.callback = TextView(row[7]);
    d.user_group = TextView(row[8]);
    d.owner_issuer = TextView(row[9]);
    d.has_owner = !d.owner_issuer.empty();
    d.owner_subject = TextView(row[10]);
    d.cloud_provider_name = TextView(row[11]);
    return d;
}

}  // namespace

domain::ListedDeployment RowToListedView(const pqxx::row& row, std::forward_list<Json>& trees) {
    domain::ListedDeployment d = ListedScalars(row);
    d.cloud_provider_endpoint = EndpointTree(row[12], trees);
    d.outputs = OutputsTree(row[13], trees);
    return d;
}

domain::Deployment RowToListedDeployment(const pqxx::row& row) {
    domain::Deployment d = domain::ListedScalarsCopy(ListedScalars(row));
    // The defaults are the fallbacks (endpoint null, outputs {}): most rows keep them as read.
    ReadJsonInto(row[12], d.cloud_provider_endpoint);
    ReadJsonInto(row[13], d.outputs);
    return d;
}

domain::Deployment RowToDeployment(const pqxx::row& row) {
    domain::Deployment d = RowToListedDeployment(row);
    d.template_text = TextOr(row[14]);
    d.parameters = JsonOr(row[15], Json::object());
    if (!row[16].is_null()) {
        d.options.timeout_mins = row[16].as<int>();
    }
    if (!row[17].is_null()) {
        d.options.provider_timeout_mins = row[17].as<int>();
    }
    if (!row[18].is_null()) {
        d.options.max_providers_retry = row[18].as<int>();
    }
    d.options.keep_last_attempt = row[19].as<bool>();
    d.kind = tosca::ParseDeploymentKind(TextOr(row[20]));
    d.req_cpus = row[21].as<double>();
    d.req_mem_mb = row[22].as<std::int64_t>();
    d.req_gpus = row[23].as<int>();
    d.req_instances = row[24].as<int>();
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

void AppendOwnerFilter(const OwnerFilter& owner, std::string& where, std::vector<std::string>& params) {
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

std::string Prepared(pqxx::connection_base& conn, const std::string& sql) {
    std::string name = "q" + std::to_string(std::hash<std::string>{}(sql));
    conn.prepare(name, sql);
    return name;
}

Json WithRequestId(Json payload) {
    const std::string request_id = log::CurrentRequestId();
    if (payload.is_object() && !request_id.empty() && !payload.contains("request_id")) {
        payload["request_id"] = request_id;
    }
    return payload;
}

}  // namespace orch::store
