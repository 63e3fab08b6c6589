#include "orchestrator/store/pg_elastic_store.hpp"

#include "pg_rows.hpp"

namespace orch::store {
namespace {

// NULL travels as -1 µs: no stored time is that far in the past. The parameters are cast to
// bigint: PostgreSQL would type them from the literal -1 as integer, too small for µs.
constexpr std::int64_t kNoTime = -1;

std::int64_t MicrosOr(const std::optional<workflow::ElasticTime>& t) {
    return t ? ToMicros(*t) : kNoTime;
}

std::optional<workflow::ElasticTime> TimeOf(const pqxx::field& f) {
    if (f.is_null()) {
        return std::nullopt;
    }
    return FromMicros(f.as<std::int64_t>());
}

constexpr const char* kMicros = "(extract(epoch FROM {}) * 1000000)::bigint";

std::string Micros(const std::string& column) {
    std::string out = kMicros;
    return out.replace(out.find("{}"), 2, column);
}

}  // namespace

Result<std::vector<std::string>> PgElasticStore::Candidates(int limit) {
    return pool_.Run([&](pqxx::connection& conn) -> Result<std::vector<std::string>> {
        pqxx::read_transaction tx(conn);
        const auto rows = tx.exec_params(
            "SELECT d.id::text FROM deployments d LEFT JOIN elastic_state e ON e.deployment_id = d.id "
            "WHERE d.status IN ('CREATE_COMPLETE', 'UPDATE_COMPLETE') "
            "ORDER BY e.checked_at ASC NULLS FIRST, d.id LIMIT $1",
            limit
        );
        std::vector<std::string> out;
        out.reserve(rows.size());
        for (const auto& row : rows) {
            out.push_back(row[0].as<std::string>());
        }
        return out;
    });
}

Result<std::optional<workflow::ElasticMemory>> PgElasticStore::ClaimTurn(
    const std::string& deployment_id, workflow::ElasticTime now, std::chrono::milliseconds gap
) {
    return pool_.Run([&](pqxx::connection& conn) -> Result<std::optional<workflow::ElasticMemory>> {
        pqxx::work tx(conn);
        // One statement: the upsert takes the row lock, so of two replicas racing for one turn
        // exactly one sees its WHERE hold. The deployment gone: no row inserted, no turn.
        const auto rows = tx.exec_params(
            "INSERT INTO elastic_state (deployment_id, checked_at) "
            "SELECT id, to_timestamp($2::bigint / 1000000.0) FROM deployments WHERE id = $1::uuid "
            "ON CONFLICT (deployment_id) DO UPDATE SET checked_at = EXCLUDED.checked_at "
            "WHERE elastic_state.checked_at <= EXCLUDED.checked_at - make_interval(secs => $3::bigint / 1000.0) "
            "RETURNING " +
                Micros("high_since") + ", " + Micros("low_since") + ", " + Micros("last_scale_at"),
            deployment_id,
            ToMicros(now),
            static_cast<std::int64_t>(gap.count())
        );
        tx.commit();
        if (rows.empty()) {
            return std::optional<workflow::ElasticMemory>();
        }
        workflow::ElasticMemory m;
        m.high_since = TimeOf(rows[0][0]);
        m.low_since = TimeOf(rows[0][1]);
        m.last_scale = TimeOf(rows[0][2]);
        return std::optional<workflow::ElasticMemory>(m);
    });
}

Status PgElasticStore::Save(
    const std::string& deployment_id, const workflow::ElasticMemory& memory, const std::optional<domain::Event>& event
) {
    return pool_.Run([&](pqxx::connection& conn) -> Status {
        pqxx::work tx(conn);
        tx.exec_params(
            "UPDATE elastic_state SET "
            "high_since = CASE WHEN $2::bigint = -1 THEN NULL ELSE to_timestamp($2::bigint / 1000000.0) END, "
            "low_since = CASE WHEN $3::bigint = -1 THEN NULL ELSE to_timestamp($3::bigint / 1000000.0) END, "
            "last_scale_at = CASE WHEN $4::bigint = -1 THEN NULL ELSE to_timestamp($4::bigint / 1000000.0) END "
            "WHERE deployment_id = $1::uuid",
            deployment_id,
            MicrosOr(memory.high_since),
            MicrosOr(memory.low_since),
            MicrosOr(memory.last_scale)
        );
        if (event) {
            // The owner's callback hears of the scale as of any workflow change: one outbox row,
            // delivered (with the deployment as it is then) by the callback deliverer.
            tx.exec_params(
                "INSERT INTO callback_deliveries (deployment_id, url) SELECT id, callback FROM deployments "
                "WHERE id = $1::uuid AND coalesce(callback, '') <> ''",
                deployment_id
            );
            tx.exec_params("SELECT pg_advisory_xact_lock($1)", kEventsLockKey);
            tx.exec_params(
                "INSERT INTO events (deployment_id, owner_issuer, owner_subject, user_group, type, at, data) "
                "SELECT id, owner_issuer, owner_subject, user_group, $2, to_timestamp($3 / 1000000.0), $4::jsonb "
                "FROM deployments WHERE id = $1::uuid",
                deployment_id,
                std::string(domain::EventTypeName(event->type)),
                ToMicros(event->time),
                event->data.dump(-1, ' ', false, Json::error_handler_t::replace)
            );
        }
        tx.commit();
        return Ok();
    });
}

}  // namespace orch::store
