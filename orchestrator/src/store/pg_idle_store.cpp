#include "orchestrator/store/pg_idle_store.hpp"

#include "pg_node_stop.hpp"
#include "pg_rows.hpp"

#include <algorithm>

namespace orch::store {
namespace {

using workflow::IdleChange;
using workflow::IdleState;
using workflow::IdleStep;

// The deployment row first (lock order deployment → jobs → counters, docs/api.md); true while
// it runs, so a step never acts on a deployment being updated or deleted.
bool LockRunning(pqxx::work& tx, const std::string& id) {
    return !tx.exec_params(
                  "SELECT 1 FROM deployments WHERE id = $1::uuid "
                  "AND status IN ('CREATE_COMPLETE', 'UPDATE_COMPLETE') FOR NO KEY UPDATE",
                  id
    )
                .empty();
}

// The event(s) and the callback outbox row, as the workflow's commits write them.
void Notify(pqxx::work& tx, const IdleChange& c) {
    if (c.events.empty()) {
        return;
    }
    tx.exec_params(
        "INSERT INTO callback_deliveries (deployment_id, url) SELECT id, callback FROM deployments "
        "WHERE id = $1::uuid AND coalesce(callback, '') <> ''",
        c.deployment_id
    );
    tx.exec_params("SELECT pg_advisory_xact_lock($1)", kEventsLockKey);
    for (const auto& e : c.events) {
        tx.exec_params(
            "INSERT INTO events (deployment_id, owner_issuer, owner_subject, user_group, type, at, data) "
            "SELECT id, owner_issuer, owner_subject, user_group, $2, to_timestamp($3 / 1000000.0), $4::jsonb "
            "FROM deployments WHERE id = $1::uuid",
            c.deployment_id,
            std::string(domain::EventTypeName(e.type)),
            ToMicros(e.time),
            e.data.dump(-1, ' ', false, Json::error_handler_t::replace)
        );
    }
}

std::vector<std::string> StoppableTypes() {
    return {workflow::kIdleStoppableTypes.begin(), workflow::kIdleStoppableTypes.end()};
}

// Delete: as DELETE does. Stop: the first node's stop, queued as the lease sweep queues it
// (QueueNextStop); none queued (none stoppable, or another operation holds the workflow line) =
// not now.
bool QueueAction(pqxx::work& tx, const IdleChange& c) {
    if (c.action == workflow::IdleAction::kDelete) {
        tx.exec_params(
            "UPDATE deployments SET status = 'DELETE_IN_PROGRESS', status_reason = 'idle GPUs reclaimed', "
            "task = 'NONE', updated_at = now() WHERE id = $1::uuid",
            c.deployment_id
        );
        tx.exec_params(
            "UPDATE resources SET state = 'DELETING', updated_at = now() WHERE deployment_id = $1::uuid",
            c.deployment_id
        );
        tx.exec_params("DELETE FROM jobs WHERE deployment_id = $1::uuid AND workflow", c.deployment_id);
        tx.exec_params(
            "INSERT INTO jobs (deployment_id, kind, payload) VALUES ($1::uuid, 'delete', $2::jsonb)",
            c.deployment_id,
            WithRequestId(Json{{"force", false}}).dump()
        );
        return true;
    }
    return QueueNextStop(tx, c.deployment_id, StoppableTypes()) == workflow::NextStop::kQueued;
}

// The nodes after the first, one per sweep; none left: reclaimed. False (nothing written) while
// another operation runs or when the watch is no longer stopping.
bool StopNext(pqxx::work& tx, const IdleChange& c) {
    if (tx.exec_params(
              "SELECT 1 FROM idle_watch WHERE deployment_id = $1::uuid AND state = 'stopping' FOR UPDATE",
              c.deployment_id
        )
            .empty()) {
        return false;
    }
    const auto next = QueueNextStop(tx, c.deployment_id, StoppableTypes());
    if (next == workflow::NextStop::kNoneLeft) {
        tx.exec_params("UPDATE idle_watch SET state = 'reclaimed' WHERE deployment_id = $1::uuid", c.deployment_id);
    }
    return next != workflow::NextStop::kBusy;
}

bool Reclaim(pqxx::work& tx, const IdleChange& c) {
    const auto moved = tx.exec_params(
        "UPDATE idle_watch SET state = CASE WHEN $3::text = 'stop' THEN 'stopping' ELSE 'reclaimed' END, "
        "reclaimed_at = to_timestamp($2 / 1000000.0), action = $3 "
        "WHERE deployment_id = $1::uuid AND state = 'notified' RETURNING 1",
        c.deployment_id,
        ToMicros(c.now),
        std::string(workflow::IdleActionName(c.action))
    );
    if (moved.empty() || !QueueAction(tx, c)) {
        return false;
    }
    tx.exec_params(
        "INSERT INTO idle_reclaimed (issuer, user_group, gpu_hours, reclamations) "
        "SELECT owner_issuer, user_group, $2, 1 FROM deployments WHERE id = $1::uuid "
        "ON CONFLICT (issuer, user_group) DO UPDATE SET gpu_hours = idle_reclaimed.gpu_hours + EXCLUDED.gpu_hours, "
        "reclamations = idle_reclaimed.reclamations + 1",
        c.deployment_id,
        c.gpu_hours
    );
    return true;
}

bool ApplyStep(pqxx::work& tx, const IdleChange& c) {
    switch (c.step) {
        case IdleStep::kStartWatch:
            return !tx.exec_params(
                          "INSERT INTO idle_watch (deployment_id, state, idle_since) "
                          "VALUES ($1::uuid, 'idle', to_timestamp($2 / 1000000.0)) ON CONFLICT DO NOTHING RETURNING 1",
                          c.deployment_id,
                          ToMicros(c.now)
            )
                        .empty();
        case IdleStep::kReset:
            return !tx.exec_params(
                          "DELETE FROM idle_watch WHERE deployment_id = $1::uuid AND state = $2 RETURNING 1",
                          c.deployment_id,
                          std::string(workflow::IdleStateName(c.from.value_or(IdleState::kIdle)))
            )
                        .empty();
        case IdleStep::kNotify:
            return !tx.exec_params(
                          "UPDATE idle_watch SET state = 'notified', notified_at = to_timestamp($2 / 1000000.0) "
                          "WHERE deployment_id = $1::uuid AND state = 'idle' RETURNING 1",
                          c.deployment_id,
                          ToMicros(c.now)
            )
                        .empty();
        case IdleStep::kReclaim:
            return Reclaim(tx, c);
        case IdleStep::kStopNext:
            return StopNext(tx, c);
        case IdleStep::kStopGivenUp:
            return !tx.exec_params(
                          "UPDATE idle_watch SET state = 'reclaimed' WHERE deployment_id = $1::uuid "
                          "AND state = 'stopping' RETURNING 1",
                          c.deployment_id
            )
                        .empty();
        case IdleStep::kNone:
            break;
    }
    return false;
}

std::vector<workflow::ReclaimedHours> RowsToHours(const pqxx::result& rows) {
    std::vector<workflow::ReclaimedHours> out;
    out.reserve(rows.size());
    for (const auto& row : rows) {
        out.push_back(
            {row[0].as<std::string>(), row[1].as<std::string>(), row[2].as<double>(), row[3].as<std::int64_t>()}
        );
    }
    return out;
}

}  // namespace

Result<std::vector<workflow::IdleCandidate>> PgIdleStore::IdleCandidates(const std::string& after, int limit) {
    return pool_.Run([&](pqxx::connection& conn) -> Result<std::vector<workflow::IdleCandidate>> {
        pqxx::read_transaction tx(conn);
        const auto rows = tx.exec_params(
            "SELECT d.id::text, d.owner_issuer, d.user_group, coalesce(d.physical_id, ''), d.req_gpus, w.state, "
            "(extract(epoch from w.idle_since)*1000000)::bigint, (extract(epoch from w.notified_at)*1000000)::bigint, "
            "(extract(epoch from w.reclaimed_at)*1000000)::bigint "
            "FROM deployments d LEFT JOIN idle_watch w ON w.deployment_id = d.id "
            "WHERE d.req_gpus > 0 AND d.status IN ('CREATE_COMPLETE', 'UPDATE_COMPLETE') "
            "AND d.id > coalesce(NULLIF($1, '')::uuid, '00000000-0000-0000-0000-000000000000'::uuid) "
            "ORDER BY d.id LIMIT $2",
            after,
            limit
        );
        std::vector<workflow::IdleCandidate> out;
        out.reserve(rows.size());
        for (const auto& row : rows) {
            workflow::IdleCandidate c{
                row[0].as<std::string>(),
                row[1].as<std::string>(),
                row[2].as<std::string>(),
                row[3].as<std::string>(),
                row[4].as<int>(),
                std::nullopt};
            if (!row[5].is_null()) {
                workflow::IdleWatch watch;
                watch.state = workflow::ParseIdleState(row[5].as<std::string>()).value_or(IdleState::kIdle);
                watch.idle_since = FromMicros(row[6].as<std::int64_t>());
                if (!row[7].is_null()) {
                    watch.notified_at = FromMicros(row[7].as<std::int64_t>());
                }
                if (!row[8].is_null()) {
                    watch.reclaimed_at = FromMicros(row[8].as<std::int64_t>());
                }
                c.watch = watch;
            }
            out.push_back(std::move(c));
        }
        return out;
    });
}

Result<bool> PgIdleStore::ApplyIdle(const IdleChange& change) {
    return pool_.Run([&](pqxx::connection& conn) -> Result<bool> {
        pqxx::work tx(conn);
        if (!LockRunning(tx, change.deployment_id) || !ApplyStep(tx, change)) {
            return false;  // rolled back: nothing of the step is written
        }
        Notify(tx, change);
        tx.commit();
        return true;
    });
}

Result<std::vector<workflow::ReclaimedHours>> PgIdleStore::Reclaimed(
    const std::string& issuer, const std::vector<std::string>& groups
) {
    return pool_.Run([&](pqxx::connection& conn) -> Result<std::vector<workflow::ReclaimedHours>> {
        pqxx::read_transaction tx(conn);
        auto all = RowsToHours(tx.exec_params(
            "SELECT issuer, user_group, gpu_hours, reclamations FROM idle_reclaimed WHERE issuer = $1 "
            "ORDER BY user_group LIMIT 10000",
            issuer
        ));
        std::erase_if(all, [&](const workflow::ReclaimedHours& h) {
            return !groups.empty() && std::find(groups.begin(), groups.end(), h.group) == groups.end();
        });
        return all;
    });
}

Result<std::vector<workflow::ReclaimedHours>> PgIdleStore::AllReclaimed() {
    return pool_.Run([&](pqxx::connection& conn) -> Result<std::vector<workflow::ReclaimedHours>> {
        pqxx::read_transaction tx(conn);
        return RowsToHours(
            tx.exec("SELECT issuer, user_group, gpu_hours, reclamations FROM idle_reclaimed ORDER BY issuer, "
                    "user_group LIMIT 10000")
        );
    });
}

}  // namespace orch::store
