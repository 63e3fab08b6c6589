#include "orchestrator/store/pg_iam_client_store.hpp"

#include "pg_rows.hpp"

namespace orch::store {
namespace {

constexpr const char* kColumns =
    "id::text, deployment_id::text, node_name, issuer, state, coalesce(client_id, ''), "
    "coalesce(registration_client_uri, ''), coalesce(registration_access_token, ''), "
    "(extract(epoch FROM created_at) * 1000000)::bigint";

auth::IamClientRecord RecordOf(const pqxx::row& row) {
    auth::IamClientRecord r;
    r.id = row[0].as<std::string>();
    r.deployment_id = row[1].as<std::string>();
    r.node_name = row[2].as<std::string>();
    r.issuer = row[3].as<std::string>();
    // The CHECK constraint admits only the three names.
    r.state = auth::ParseIamClientState(row[4].as<std::string>()).value_or(auth::IamClientState::kRegistering);
    r.client_id = row[5].as<std::string>();
    r.registration_client_uri = row[6].as<std::string>();
    r.sealed_registration_token = row[7].as<std::string>();
    r.created_at = FromMicros(row[8].as<std::int64_t>());
    return r;
}

std::vector<auth::IamClientRecord> RecordsOf(const pqxx::result& rows) {
    std::vector<auth::IamClientRecord> out;
    out.reserve(rows.size());
    for (const auto& row : rows) {
        out.push_back(RecordOf(row));
    }
    return out;
}

Status NotFoundUnlessUpdated(const pqxx::result& result, const std::string& id) {
    if (result.affected_rows() == 0) {
        return Error::NotFound("no IAM client record " + id);
    }
    return Ok();
}

}  // namespace

Status PgIamClientStore::Reserve(const auth::IamClientRecord& record) {
    return pool_.Run([&](pqxx::connection& conn) -> Status {
        pqxx::work tx(conn);
        const auto inserted = tx.exec_params(
            "INSERT INTO iam_clients (id, deployment_id, node_name, issuer, state, created_at) "
            "VALUES ($1::uuid, $2::uuid, $3, $4, 'registering', to_timestamp($5::bigint / 1000000.0)) "
            "ON CONFLICT (id) DO NOTHING",
            record.id,
            record.deployment_id,
            record.node_name,
            record.issuer,
            ToMicros(record.created_at)
        );
        tx.commit();
        if (inserted.affected_rows() == 0) {
            return Error::Conflict("IAM client record " + record.id + " exists");
        }
        return Ok();
    });
}

Status PgIamClientStore::MarkRegistered(
    const std::string& id,
    const std::string& client_id,
    const std::string& registration_client_uri,
    const std::string& sealed_registration_token
) {
    return pool_.Run([&](pqxx::connection& conn) -> Status {
        pqxx::work tx(conn);
        const auto updated = tx.exec_params(
            "UPDATE iam_clients SET state = 'registered', client_id = $2, registration_client_uri = $3, "
            "registration_access_token = $4 WHERE id = $1::uuid",
            id,
            client_id,
            registration_client_uri,
            sealed_registration_token
        );
        tx.commit();
        return NotFoundUnlessUpdated(updated, id);
    });
}

Status PgIamClientStore::MarkUnconfirmed(const std::string& id) {
    return pool_.Run([&](pqxx::connection& conn) -> Status {
        pqxx::work tx(conn);
        const auto updated = tx.exec_params("UPDATE iam_clients SET state = 'unconfirmed' WHERE id = $1::uuid", id);
        tx.commit();
        return NotFoundUnlessUpdated(updated, id);
    });
}

Status PgIamClientStore::Forget(const std::string& id) {
    return pool_.Run([&](pqxx::connection& conn) -> Status {
        pqxx::work tx(conn);
        tx.exec_params("DELETE FROM iam_clients WHERE id = $1::uuid", id);
        tx.commit();
        return Ok();
    });
}

Result<std::vector<auth::IamClientRecord>> PgIamClientStore::ForDeployment(const std::string& deployment_id) {
    return pool_.Run([&](pqxx::connection& conn) -> Result<std::vector<auth::IamClientRecord>> {
        pqxx::read_transaction tx(conn);
        return RecordsOf(tx.exec_params(
            std::string("SELECT ") + kColumns +
                " FROM iam_clients WHERE deployment_id = $1::uuid ORDER BY created_at, id",
            deployment_id
        ));
    });
}

Result<std::vector<auth::IamClientRecord>> PgIamClientStore::CreatedBefore(Clock::WallTime before, int limit) {
    return pool_.Run([&](pqxx::connection& conn) -> Result<std::vector<auth::IamClientRecord>> {
        pqxx::read_transaction tx(conn);
        return RecordsOf(tx.exec_params(
            std::string("SELECT ") + kColumns +
                " FROM iam_clients WHERE created_at < to_timestamp($1::bigint / 1000000.0) "
                "ORDER BY created_at, id LIMIT $2",
            ToMicros(before),
            limit
        ));
    });
}

}  // namespace orch::store
