#pragma once

// Row ↔ domain mapping shared by the PostgreSQL stores (private to the store area).
#include "common/json.hpp"
#include "orchestrator/domain/deployment.hpp"
#include "orchestrator/store/deployment_store.hpp"

#include <pqxx/pqxx>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orch::store {

/// Timestamps travel as microseconds since the epoch, avoiding text time-zone parsing.
inline std::int64_t ToMicros(domain::TimePoint t) {
    return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}
inline domain::TimePoint FromMicros(std::int64_t us) {
    return domain::TimePoint(std::chrono::duration_cast<domain::TimePoint::duration>(std::chrono::microseconds(us)));
}

inline std::string TextOr(const pqxx::field& f, std::string fallback = {}) {
    return f.is_null() ? std::move(fallback) : f.as<std::string>();
}

/// The field's text without a copy (valid while the result lives); empty for NULL.
inline std::string_view TextView(const pqxx::field& f) {
    return f.is_null() ? std::string_view() : std::string_view(f.c_str(), f.size());
}

inline Json JsonOr(const pqxx::field& f, Json fallback) {
    if (f.is_null()) {
        return fallback;
    }
    // The empty object is most rows' value (outputs, metadata): no parser for it.
    if (TextView(f) == "{}") {
        return Json::object();
    }
    Json parsed = Json::parse(f.c_str(), nullptr, false);
    return parsed.is_discarded() ? fallback : parsed;
}

/// Reads a JSON column into `target`, which keeps its value for NULL, unparsable text, or an
/// empty object when it already is one: list rows then build no tree for the usual `{}`/NULL.
inline void ReadJsonInto(const pqxx::field& f, Json& target) {
    if (f.is_null() || (TextView(f) == "{}" && target.is_object() && target.empty())) {
        return;
    }
    Json parsed = Json::parse(f.c_str(), nullptr, false);
    if (!parsed.is_discarded()) {
        target = std::move(parsed);
    }
}

/// What a deployment list shows (api::DeploymentView), matching RowToListedDeployment: the
/// template, parameters and workflow columns stay in the table.
inline constexpr const char* kListColumns =
    "id::text, (extract(epoch from created_at)*1000000)::bigint, (extract(epoch from updated_at)*1000000)::bigint, "
    "status, status_reason, task, physical_id, callback, user_group, owner_issuer, owner_subject, "
    "cloud_provider_name, cloud_provider_endpoint::text, outputs::text, "
    "(extract(epoch from expires_at)*1000000)::bigint";
inline constexpr int kListColumnCount = 15;

/// The select list matching RowToDeployment: the list columns first, then the rest.
inline const std::string kDeploymentColumns =
    std::string(kListColumns) +
    ", template, parameters::text, timeout_mins, provider_timeout_mins, max_providers_retry, keep_last_attempt, kind, "
    "req_cpus, req_mem_mb, req_gpus, req_instances, target_provider, target_region, self_healing, max_wait_mins, "
    "owner_name, owner_email, per_provider_max_retries";
inline constexpr int kDeploymentColumnCount = 33;  ///< queries that select more read them from here

/// The list view's fields of a deployment (kListColumns); the others keep their defaults.
domain::Deployment RowToListedDeployment(const pqxx::row& row);
domain::Deployment RowToDeployment(const pqxx::row& row);

inline constexpr const char* kResourceColumns =
    "id::text, deployment_id::text, (extract(epoch from created_at)*1000000)::bigint, "
    "(extract(epoch from updated_at)*1000000)::bigint, physical_id, state, node_type, node_name, "
    "array_to_json(type_chain)::text, instance_index, metadata::text";

domain::Resource RowToResource(const pqxx::row& row);

/// Inserts a new deployment, its resources and its first workflow step in one statement
/// (POST /deployments and schedule events share it, so both start the same workflow).
void InsertDeployment(pqxx::transaction_base& tx, const NewDeployment& created);

/// Appends the owner filter every list and scan shares (deployments, schedules, running
/// schedules) to `where`, as numbered parameters in `params`: the issuer (with unowned rows when
/// the filter includes them), then the subject; a filter that matches nothing adds `false`.
/// The only translation of an OwnerFilter to SQL.
/// The advisory lock every writer of `events` takes as its last statement before COMMIT (held
/// until commit): event ids then increase in commit order, so a stream reading "after id n" never
/// misses an event that commits late with a smaller id. An arbitrary constant ("OREV").
inline constexpr std::int64_t kEventsLockKey = 0x4f524556;

void AppendOwnerFilter(const auth::OwnerFilter& owner, std::string& where, std::vector<std::string>& params);

/// A job payload carrying the request id of the thread's log context (the API request that
/// caused the job, inherited by each next step), so workflow log lines name the request too; and
/// the thread's trace (trace_id, trace_sampled) the same way, so steps log and send that trace.
Json WithRequestId(Json payload);

}  // namespace orch::store
