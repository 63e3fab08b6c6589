#include "orchestrator/store/pg_lease_store.hpp"

#include "pg_node_stop.hpp"
#include "pg_outbox.hpp"
#include "pg_rows.hpp"

namespace orch::store {
namespace {

using workflow::ExpireOutcome;
using workflow::LeaseState;

struct LockedLease {
    domain::Status status = domain::Status::kUnknown;
    LeaseState state = LeaseState::kActive;
};

// Locks the deployment row (lock order: deployment, jobs, counters; docs/api.md) if its lease
// still ends at `expires_at` and is not over; nullopt otherwise (renewed, expired elsewhere, gone).
std::optional<LockedLease> LockLease(pqxx::work& tx, const std::string& id, domain::TimePoint expires_at) {
    const auto r = tx.exec_params(
        "SELECT status, lease_state FROM deployments WHERE id = $1::uuid AND lease_state <> 'EXPIRED' "
        "AND (extract(epoch from expires_at)*1000000)::bigint = $2 FOR NO KEY UPDATE",
        id,
        ToMicros(expires_at)
    );
    if (r.empty()) {
        return std::nullopt;
    }
    return LockedLease{
        domain::ParseStatus(TextView(r[0][0])).value_or(domain::Status::kUnknown),
        workflow::ParseLeaseState(TextView(r[0][1]))};
}

void SetLeaseState(pqxx::work& tx, const std::string& id, LeaseState state) {
    tx.exec_params(
        "UPDATE deployments SET lease_state = $2 WHERE id = $1::uuid", id, std::string(workflow::LeaseStateName(state))
    );
}

// As PgDeploymentStore::BeginDelete (not forced): the undeploy replaces any pending step.
void QueueDelete(pqxx::work& tx, const std::string& id) {
    tx.exec_params(
        "UPDATE deployments SET status = 'DELETE_IN_PROGRESS', status_reason = NULL, task = 'NONE', "
        "updated_at = now() WHERE id = $1::uuid",
        id
    );
    tx.exec_params("UPDATE resources SET state = 'DELETING', updated_at = now() WHERE deployment_id = $1::uuid", id);
    tx.exec_params("DELETE FROM jobs WHERE deployment_id = $1::uuid AND workflow", id);
    tx.exec_params(
        "INSERT INTO jobs (deployment_id, kind, payload) VALUES ($1::uuid, 'delete', $2::jsonb)",
        id,
        WithRequestId(Json{{"force", false}}).dump()
    );
}

// The retry cap counts from the first attempt at this lease's stop (busy or not), written
// once per lease: a time before the lease's end is a former lease's (renewed since), replaced.
void MarkStopBegun(pqxx::work& tx, const std::string& id, domain::TimePoint now) {
    tx.exec_params(
        "UPDATE deployments SET lease_stop_began = to_timestamp($2 / 1000000.0) WHERE id = $1::uuid "
        "AND (lease_stop_began IS NULL OR lease_stop_began < expires_at)",
        id,
        ToMicros(now)
    );
}

bool Settled(domain::Status status) {
    return status == domain::Status::kCreateComplete || status == domain::Status::kUpdateComplete ||
           status == domain::Status::kUpdateFailed;
}

}  // namespace

Result<std::vector<workflow::DueLease>> PgLeaseStore::DueLeases(domain::TimePoint until, int limit) {
    return pool_.Run([&](pqxx::connection& conn) -> std::vector<workflow::DueLease> {
        pqxx::read_transaction tx(conn);
        const auto rows = tx.exec_params(
            "SELECT id::text, (extract(epoch from expires_at)*1000000)::bigint, lease_warnings, lease_state, "
            "lease_action, status, kind, CASE WHEN lease_stop_began >= expires_at "
            "THEN (extract(epoch from lease_stop_began)*1000000)::bigint END FROM deployments WHERE expires_at IS NOT "
            "NULL AND lease_state <> 'EXPIRED' "
            "AND expires_at <= to_timestamp($1::bigint / 1e6) "
            "AND status NOT IN ('DELETE_IN_PROGRESS', 'DELETE_COMPLETE') ORDER BY expires_at LIMIT $2",
            ToMicros(until),
            limit
        );
        std::vector<workflow::DueLease> out;
        out.reserve(rows.size());
        for (const auto& row : rows) {
            workflow::DueLease lease;
            lease.deployment_id = row[0].as<std::string>();
            lease.expires_at = FromMicros(row[1].as<std::int64_t>());
            lease.warnings_sent = row[2].as<int>();
            lease.state = workflow::ParseLeaseState(TextView(row[3]));
            lease.action = domain::ParseLeaseAction(TextView(row[4])).value_or(domain::LeaseAction::kDelete);
            lease.status = domain::ParseStatus(TextView(row[5])).value_or(domain::Status::kUnknown);
            lease.kind = tosca::ParseDeploymentKind(TextOr(row[6]));
            if (!row[7].is_null()) {
                lease.stop_began = FromMicros(row[7].as<std::int64_t>());
            }
            out.push_back(std::move(lease));
        }
        return out;
    });
}

Result<bool> PgLeaseStore::RecordWarning(
    const std::string& id, domain::TimePoint expires_at, int warning, const domain::Event& event
) {
    return pool_.Run([&](pqxx::connection& conn) -> bool {
        pqxx::work tx(conn);
        // The guard makes it once per warning and lease, whichever replica gets there first.
        const auto r = tx.exec_params(
            "UPDATE deployments SET lease_warnings = $3 WHERE id = $1::uuid AND lease_state = 'ACTIVE' "
            "AND (extract(epoch from expires_at)*1000000)::bigint = $2 AND lease_warnings < $3 RETURNING id",
            id,
            ToMicros(expires_at),
            warning
        );
        if (r.empty()) {
            return false;
        }
        InsertCallback(tx, id);
        InsertEvents(tx, id, {event});
        tx.commit();
        return true;
    });
}

Result<ExpireOutcome> PgLeaseStore::Expire(
    const std::string& id,
    domain::TimePoint expires_at,
    workflow::LeaseAction action,
    const std::vector<std::string>& stoppable_types,
    const domain::Event& event
) {
    return pool_.Run([&](pqxx::connection& conn) -> ExpireOutcome {
        pqxx::work tx(conn);
        const auto lease = LockLease(tx, id, expires_at);
        if (!lease) {
            return ExpireOutcome::kStale;
        }
        const bool first = lease->state == LeaseState::kActive;
        ExpireOutcome outcome = ExpireOutcome::kExpired;
        if (lease->status == domain::Status::kDeleteInProgress || lease->status == domain::Status::kDeleteComplete) {
            SetLeaseState(tx, id, LeaseState::kExpired);
            tx.commit();
            return ExpireOutcome::kDeleting;
        }
        if (action == workflow::LeaseAction::kDelete) {
            QueueDelete(tx, id);
            SetLeaseState(tx, id, LeaseState::kExpired);
            outcome = ExpireOutcome::kDeleting;
        } else {
            MarkStopBegun(tx, id, event.time);
            // A node is stopped only between operations; one running now is waited for.
            const auto next =
                Settled(lease->status) ? QueueNextStop(tx, id, stoppable_types) : workflow::NextStop::kBusy;
            if (next == workflow::NextStop::kBusy) {
                tx.commit();  // only the first attempt's time
                return ExpireOutcome::kBusy;
            }
            const bool stopping = next == workflow::NextStop::kQueued;
            SetLeaseState(tx, id, stopping ? LeaseState::kStopping : LeaseState::kExpired);
            outcome = stopping ? ExpireOutcome::kStopping : ExpireOutcome::kExpired;
        }
        if (first) {
            InsertCallback(tx, id);
            InsertEvents(tx, id, {event});
        }
        tx.commit();
        return outcome;
    });
}

Result<bool> PgLeaseStore::AbandonStop(
    const std::string& id, domain::TimePoint expires_at, const std::string& reason, const domain::Event& event
) {
    return pool_.Run([&](pqxx::connection& conn) -> bool {
        pqxx::work tx(conn);
        if (!LockLease(tx, id, expires_at)) {
            return false;
        }
        SetLeaseState(tx, id, LeaseState::kExpired);
        tx.exec_params("UPDATE deployments SET status_reason = $2, updated_at = now() WHERE id = $1::uuid", id, reason);
        InsertCallback(tx, id);
        InsertEvents(tx, id, {event});
        tx.commit();
        return true;
    });
}

}  // namespace orch::store
