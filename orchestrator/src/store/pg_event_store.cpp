#include "orchestrator/store/pg_event_store.hpp"

#include "pg_rows.hpp"

#include <algorithm>

namespace orch::store {
namespace {

domain::Event EventOf(const pqxx::row& row) {
    domain::Event e;
    e.id = row[0].as<std::int64_t>();
    e.deployment_id = row[1].as<std::string>();
    e.type = domain::ParseEventType(row[2].as<std::string>());
    e.time = FromMicros(row[3].as<std::int64_t>());
    e.data = JsonOr(row[4], Json::object());
    return e;
}

constexpr const char* kEventColumns =
    "SELECT id, deployment_id::text, type, (extract(epoch from at)*1000000)::bigint, data::text";

}  // namespace

Result<std::vector<domain::Event>> PgEventStore::After(const EventQuery& query) {
    return pool_.Run([&](pqxx::connection& conn) -> Result<std::vector<domain::Event>> {
        pqxx::read_transaction tx(conn);
        std::vector<std::string> params{
            std::to_string(query.after_id), std::to_string(std::clamp(query.limit, 1, 1000))};
        std::string where = "id > $1::bigint";
        if (query.deployment_id) {
            params.push_back(*query.deployment_id);
            where += " AND deployment_id = $" + std::to_string(params.size()) + "::uuid";
        }
        AppendOwnerFilter(query.owner, where, params);
        const auto rows = tx.exec_params(
            std::string(kEventColumns) + " FROM events WHERE " + where + " ORDER BY id LIMIT $2::int",
            pqxx::prepare::make_dynamic_params(params)
        );
        std::vector<domain::Event> out;
        out.reserve(rows.size());
        for (const auto& row : rows) {
            out.push_back(EventOf(row));
        }
        return out;
    });
}

Result<std::int64_t> PgEventStore::LatestId() {
    return pool_.Run([&](pqxx::connection& conn) -> Result<std::int64_t> {
        pqxx::read_transaction tx(conn);
        return tx.exec1("SELECT coalesce(max(id), 0) FROM events")[0].as<std::int64_t>();
    });
}

Result<std::vector<LoggedEvent>> PgEventStore::Range(std::int64_t after_id, std::int64_t up_to_id, int limit) {
    return pool_.Run([&](pqxx::connection& conn) -> Result<std::vector<LoggedEvent>> {
        pqxx::read_transaction tx(conn);
        const auto rows = tx.exec_params(
            std::string(kEventColumns) +
                ", owner_issuer, owner_subject FROM events WHERE id > $1::bigint AND id <= $2::bigint "
                "ORDER BY id LIMIT $3::int",
            after_id,
            up_to_id,
            std::clamp(limit, 1, 10'000)
        );
        std::vector<LoggedEvent> out;
        out.reserve(rows.size());
        for (const auto& row : rows) {
            out.push_back(LoggedEvent{EventOf(row), row[5].as<std::string>(), row[6].as<std::string>()});
        }
        return out;
    });
}

}  // namespace orch::store
