#pragma once

// Quota counters and admission claims on PostgreSQL (migration 0009; private to the store area).
// Every function runs inside the caller's transaction, after it locked the deployment row and
// its job: counters are locked in CounterKey order, one row at a time, so two transactions
// touching the same counters always meet in the same order.
#include "orchestrator/workflow/admission.hpp"

#include <pqxx/pqxx>

#include <string>
#include <vector>

namespace orch::store::admission {

/// Releases what the deployment held, then reserves every claim; false (the caller rolls back)
/// when one does not fit.
bool Reserve(
    pqxx::transaction_base& tx, const std::string& deployment_id, const std::vector<workflow::QuotaClaim>& claims
);
/// The deployment's reservation becomes usage (it reached CREATE_COMPLETE).
void Promote(pqxx::transaction_base& tx, const std::string& deployment_id);
/// Gives back everything the deployment holds (failed, deleted, expired).
void Release(pqxx::transaction_base& tx, const std::string& deployment_id);
/// The counters of `issuer`, of `groups` only when not empty.
std::vector<workflow::QuotaCounter> Counters(
    pqxx::transaction_base& tx, const std::string& issuer, const std::vector<std::string>& groups
);

}  // namespace orch::store::admission
