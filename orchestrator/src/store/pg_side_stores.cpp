#include "orchestrator/store/pg_side_stores.hpp"

#include "pg_rows.hpp"

namespace orch::store {
namespace {

// A deployment waiting for admission (CREATE_IN_PROGRESS, not placed yet) holds nothing: counting
// it would make two waiting requests block each other for ever (docs/admission.md).
constexpr const char* kActive =
    "status NOT IN ('DELETE_COMPLETE', 'CREATE_FAILED') AND NOT (status = 'CREATE_IN_PROGRESS' AND placement IS NULL)";

placement::ResourceTotals Totals(const pqxx::row& row, int first) {
    placement::ResourceTotals t;
    t.cpus = row[first].as<double>();
    t.ram_mb = static_cast<std::uint64_t>(row[first + 1].as<std::int64_t>());
    t.gpus = row[first + 2].as<int>();
    t.instances = row[first + 3].as<int>();
    return t;
}

// A PostgreSQL text[] literal: libpqxx 6 has no array parameters.
std::string TextArray(const std::vector<std::string_view>& items) {
    std::string out = "{";
    for (const auto item : items) {
        out += out.size() > 1 ? ",\"" : "\"";
        for (const char c : item) {
            if (c == '"' || c == '\\') {
                out += '\\';
            }
            out += c;
        }
        out += '"';
    }
    return out + "}";
}

placement::AttemptOutcome Outcome(const pqxx::row& row, int first) {
    return {
        FromMicros(row[first].as<std::int64_t>()),
        row[first + 1].as<bool>(),
        row[first + 2].as<std::string>(),
        row[first + 3].as<std::string>()};
}

}  // namespace

Result<placement::Usage> PgUsageSource::ActiveUsage(
    const placement::Requester& requester, const std::string& exclude_deployment_id
) {
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::read_transaction tx(conn);
        // One scan of the group's active rows gives the group and the user totals per service.
        const auto rows = tx.exec_params(
            std::string(
                "SELECT COALESCE(handle->'target'->>'service_id', ''), (owner_issuer = $2 AND owner_subject = $3), "
                "sum(req_cpus), sum(req_mem_mb)::bigint, sum(req_gpus)::int, sum(req_instances)::int "
                "FROM deployments WHERE user_group = $1 AND "
            ) + kActive +
                " AND id::text <> $4 GROUP BY 1, 2",
            requester.user_group,
            requester.issuer,
            requester.subject,
            exclude_deployment_id
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
            "AND outcome <> 'RUNNING' AND cause <> 'REQUEST' ORDER BY finished_at DESC LIMIT $2",
            service_id,
            static_cast<std::int64_t>(limit)
        );
        std::vector<placement::AttemptOutcome> out;
        for (const auto& row : r) {
            out.push_back(Outcome(row, 0));
        }
        return out;
    });
    return rows ? std::move(*rows) : std::vector<placement::AttemptOutcome>{};
}

placement::AttemptsByService PgSiteHistory::RecentAttemptsOf(
    const std::vector<std::string_view>& service_ids, std::size_t limit
) {
    if (service_ids.empty() || limit == 0) {
        return {};
    }
    auto rows = pool_.Run([&](pqxx::connection& conn) {
        pqxx::read_transaction tx(conn);
        const auto r = tx.exec_params(
            "SELECT service_id, micros, ok, deployment_id, reason FROM ("
            "SELECT service_id, (extract(epoch from finished_at)*1000000)::bigint AS micros, "
            "outcome = 'SUCCEEDED' AS ok, deployment_id::text AS deployment_id, COALESCE(reason, '') AS reason, "
            "row_number() OVER (PARTITION BY service_id ORDER BY finished_at DESC) AS n "
            "FROM attempts WHERE service_id = ANY($1::text[]) AND finished_at IS NOT NULL "
            "AND outcome <> 'RUNNING' AND cause <> 'REQUEST') recent WHERE n <= $2 ORDER BY service_id, n",
            TextArray(service_ids),
            static_cast<std::int64_t>(limit)
        );
        placement::AttemptsByService out;
        for (const auto& row : r) {
            out[row[0].as<std::string>()].push_back(Outcome(row, 1));
        }
        return out;
    });
    return rows ? std::move(*rows) : placement::AttemptsByService{};
}

Status PgRefreshTokenStore::Put(const std::string& issuer, const std::string& subject, const std::string& ciphertext) {
    return pool_.Run([&](pqxx::connection& conn) {
        pqxx::work tx(conn);
        tx.exec_params(
            "INSERT INTO oidc_refresh_tokens (issuer, subject, ciphertext) VALUES ($1, $2, $3) "
            "ON CONFLICT (issuer, subject) DO UPDATE SET ciphertext = EXCLUDED.ciphertext, updated_at = now()",
            issuer,
            subject,
            ciphertext
        );
        tx.commit();
    });
}

Result<std::optional<std::string>> PgRefreshTokenStore::Get(const std::string& issuer, const std::string& subject) {
    return pool_.Run([&](pqxx::connection& conn) -> std::optional<std::string> {
        pqxx::read_transaction tx(conn);
        const auto r = tx.exec_params(
            "SELECT ciphertext FROM oidc_refresh_tokens WHERE issuer = $1 AND subject = $2", issuer, subject
        );
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
