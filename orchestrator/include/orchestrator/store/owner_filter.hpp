#pragma once

#include "orchestrator/auth/owner_filter.hpp"

namespace orch::store {

/// The stores' queries are scoped by the caller's OwnerFilter, which auth makes from the
/// principal; only the stores turn it into SQL (AppendOwnerFilter).
using OwnerFilter = auth::OwnerFilter;

}  // namespace orch::store
