#pragma once

#include "common/result.hpp"
#include "orchestrator/store/pg_pool.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orch::store {

/// The SQL files of orchestrator/migrations, compiled into the binary (name → text), sorted.
const std::vector<std::pair<std::string_view, std::string_view>>& EmbeddedMigrations();

/// Applies every migration not yet recorded in schema_migrations, each in order, all in one
/// transaction under an advisory lock, so two instances starting at once apply them exactly once.
/// Returns the number applied.
Result<int> ApplyMigrations(PgPool& pool);

}  // namespace orch::store
