#pragma once

// Quota counters and admission claims on PostgreSQL (migration 0009; private to the store area).
// Every function runs inside the caller's transaction, after it locked the deployment row and
// its job: counters are locked in CounterKey order, one row at a time, so two transactions
// touching the same counters always meet in the same order.
#include "orchestrator/workflow/admission.hpp"
#include "orchestrator/workflow/fair_share.hpp"

#include <pqxx/pqxx>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace orch::store::admission {

/// Releases what the deployment held (with `services_only`, its claims on services only: a move
/// to another candidate site), then reserves every claim (then only those on services); false
/// (the caller rolls back) when one does not fit.
bool Reserve(
    pqxx::transaction_base& tx,
    const std::string& deployment_id,
    const std::vector<workflow::QuotaClaim>& claims,
    bool services_only = false
);
/// The deployment's reservation becomes usage (it reached CREATE_COMPLETE).
void Promote(pqxx::transaction_base& tx, const std::string& deployment_id);
/// Gives back everything the deployment holds (failed, deleted, expired), adding what it held on
/// its group counters times how long to the day's fair-share history.
void Release(pqxx::transaction_base& tx, const std::string& deployment_id);
/// Each group's resource-hours of `issuer` (migration 0015), every day's amount decayed by its
/// age with `half_life` (0: not decayed).
std::map<std::string, workflow::ShareVector, std::less<>> FairShareUsage(
    pqxx::transaction_base& tx, const std::string& issuer, std::chrono::milliseconds half_life
);
/// The counters of `issuer`, of `groups` only when not empty.
std::vector<workflow::QuotaCounter> Counters(
    pqxx::transaction_base& tx, const std::string& issuer, const std::vector<std::string>& groups
);

}  // namespace orch::store::admission
