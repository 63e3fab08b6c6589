#include "orchestrator/store/migrations.hpp"

#include "common/log.hpp"

#include <charconv>

namespace orch::store {
namespace {

// Arbitrary constant shared by every instance: the lock that serialises schema changes.
constexpr std::int64_t kMigrationLockKey = 0x4f524348;  // "ORCH"

int VersionOf(std::string_view name) {
    int version = -1;
    std::from_chars(name.data(), name.data() + name.size(), version);
    return version;
}

}  // namespace

Result<int> ApplyMigrations(PgPool& pool) {
    return pool.Run([](pqxx::connection& conn) -> Result<int> {
        pqxx::work tx(conn);
        tx.exec_params("SELECT pg_advisory_xact_lock($1)", kMigrationLockKey);
        tx.exec0(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
        );
        int applied = 0;
        for (const auto& [name, sql] : EmbeddedMigrations()) {
            const int version = VersionOf(name);
            if (version < 0) {
                return Error::Internal(
                    "migration file '" + std::string(name) + "' does not start with a version number"
                );
            }
            if (!tx.exec_params("SELECT 1 FROM schema_migrations WHERE version = $1", version).empty()) {
                continue;
            }
            tx.exec0(std::string(sql));
            tx.exec_params0(
                "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", version, std::string(name)
            );
            ++applied;
            ORCH_LOG_INFO("migration applied", {{"version", version}, {"name", std::string(name)}});
        }
        tx.commit();
        return applied;
    });
}

}  // namespace orch::store
