#include "orchestrator/store/pg_side_stores.hpp"

#include "pg_rows.hpp"

namespace orch::store {
namespace {

constexpr const char* kActive = "status NOT IN ('DELETE_COMPLETE', 'CREATE_FAILED')";

placement::ResourceTotals Totals(const pqxx::row& row, int first) {
    placement::ResourceTotals t;
    t.cpus = row[first].as<double>();
    t.ram_mb = static_cast<std::uint64_t>(row[first + 1].as<std::int64_t>());
    t.gpus = row[first + 2].as<int>();
    t.instances = row[first + 3].as<int>();
    return t;
}

}  // namespace

Result<placement::Usage> PgUsageSource::ActiveUsage(const placement::Requester& requester,
                                                    const std::string& exclude_deployment_id) {
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::read_transaction tx(conn);
        // One scan of the group's active rows gives the group and the user totals per service.
        const auto rows = tx.exec_params(
            std::string("SELECT COALESCE(handle->'target'->>'service_id', ''), (owner_issuer = $2 AND owner_subject = $3), "
                        "sum(req_cpus), sum(req_mem_mb)::bigint, sum(req_gpus)::int, sum(req_instances)::int "
                        "FROM deployments WHERE user_group = $1 AND ") +
                kActive + " AND id::text <> $4 GROUP BY 1, 2",
            requester.user_group, requester.issuer, requester.subject, exclude_deployment_id
        );
        placement::Usage usage;
        for (const auto& row : rows) {
            const std::string service = row[0].as<std::string>();
            const bool mine = row[1].as<bool>();
            const auto totals = Totals(row, 2);
            usage.group += totals;
            if (mine) {
                usage.user += totals;
            }
            if (!service.empty()) {
                usage.group_by_service[service] += totals;
                if (mine) {
                    usage.user_by_service[service] += totals;
                }
            }
        }
        return usage;
    });
}

std::vector<placement::AttemptOutcome> PgSiteHistory::RecentAttempts(const std::string& service_id, std::size_t limit) {
    auto rows = pool_.Run([&](pqxx::connection& conn) {
        pqxx::read_transaction tx(conn);
        const auto r = tx.exec_params(
            "SELECT (extract(epoch from finished_at)*1000000)::bigint, outcome = 'SUCCEEDED', deployment_id::text, "
            "COALESCE(reason, '') FROM attempts WHERE service_id = $1 AND finished_at IS NOT NULL "
            "AND outcome <> 'RUNNING' ORDER BY finished_at DESC LIMIT $2",
            service_id, static_cast<std::int64_t>(limit)
        );
        std::vector<placement::AttemptOutcome> out;
        for (const auto& row : r) {
            out.push_back({FromMicros(row[0].as<std::int64_t>()), row[1].as<bool>(), row[2].as<std::string>(),
                           row[3].as<std::string>()});
        }
        return out;
    });
    return rows ? std::move(*rows) : std::vector<placement::AttemptOutcome>{};
}

Status PgRefreshTokenStore::Put(const std::string& issuer, const std::string& subject, const std::string& ciphertext) {
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::work tx(conn);
        tx.exec_params("INSERT INTO oidc_refresh_tokens (issuer, subject, ciphertext) VALUES ($1, $2, $3) "
                       "ON CONFLICT (issuer, subject) DO UPDATE SET ciphertext = EXCLUDED.ciphertext, updated_at = now()",
                       issuer, subject, ciphertext);
        tx.commit();
    });
}

Result<std::optional<std::string>> PgRefreshTokenStore::Get(const std::string& issuer, const std::string& subject) {
    return pool_.Run([&](pqxx::connection& conn) -> std::optional<std::string> {
        pqxx::read_transaction tx(conn);
        const auto r = tx.exec_params("SELECT ciphertext FROM oidc_refresh_tokens WHERE issuer = $1 AND subject = $2",
                                      issuer, subject);
        if (r.empty()) {
            return std::nullopt;
        }
        return r[0][0].as<std::string>();
    });
}

Status PgRefreshTokenStore::Remove(const std::string& issuer, const std::string& subject) {
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::work tx(conn);
        tx.exec_params("DELETE FROM oidc_refresh_tokens WHERE issuer = $1 AND subject = $2", issuer, subject);
        tx.commit();
    });
}

}  // namespace orch::store
