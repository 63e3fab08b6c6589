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
#include <optional>
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
/// An update's change of claims (workflow::UpdateClaims), in the transaction that accepts it:
/// each growth is reserved on its counter (the same atomic statement as Reserve's) and recorded as
/// the claim's `pending`; a shrink is recorded only (migration 0028). The claim that does not fit,
/// if one does not (the caller rolls back), with what its counter holds.
struct UpdateRefusal {
    workflow::QuotaClaim claim;
    double held = 0;
};
std::optional<UpdateRefusal> ReserveUpdate(
    pqxx::transaction_base& tx, const std::string& deployment_id, const std::vector<workflow::QuotaClaim>& changes
);
/// The update ended: completed, its growth becomes usage and its shrink is given back (the
/// resource-hours held so far go to the history first); failed, its growth is given back.
void SettleUpdate(pqxx::transaction_base& tx, const std::string& deployment_id, bool completed);
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
/// Each group's GPU-hours of `issuer` per GPU class of its quota, decayed as FairShareUsage's.
std::map<std::string, std::map<std::string, double>, std::less<>> FairShareClassUsage(
    pqxx::transaction_base& tx, const std::string& issuer, std::chrono::milliseconds half_life
);
/// The counters of `issuer`, of `groups` only when not empty.
std::vector<workflow::QuotaCounter> Counters(
    pqxx::transaction_base& tx, const std::string& issuer, const std::vector<std::string>& groups
);

}  // namespace orch::store::admission
