#include "pg_admission.hpp"

#include <algorithm>
#include <utility>

namespace orch::store::admission {
namespace {

using workflow::AdmissionState;
using workflow::CounterKey;

struct Held {
    CounterKey key;
    double amount = 0;
    AdmissionState state = AdmissionState::kReserved;
};

// The deployment's claims in lock order. Rows written by a newer build with a scope or resource
// this one does not know are skipped: releasing them is that build's business.
std::vector<Held> HeldBy(pqxx::transaction_base& tx, const std::string& deployment_id) {
    const auto rows = tx.exec_params(
        "SELECT scope, issuer, user_group, subject, service_id, resource, amount, state, gpu_class "
        "FROM admission_claims WHERE deployment_id = $1::uuid",
        deployment_id
    );
    std::vector<Held> held;
    for (const auto& row : rows) {
        const auto scope = workflow::ParseQuotaScope(row[0].as<std::string>());
        const auto resource = workflow::ParseQuotaResource(row[5].as<std::string>());
        if (!scope || !resource) {
            continue;
        }
        Held h;
        h.key = CounterKey{
            *scope,
            row[1].as<std::string>(),
            row[2].as<std::string>(),
            row[3].as<std::string>(),
            row[4].as<std::string>(),
            *resource,
            row[8].as<std::string>()};
        h.amount = row[6].as<double>();
        h.state = row[7].as<std::string>() == "in_use" ? AdmissionState::kInUse : AdmissionState::kReserved;
        held.push_back(std::move(h));
    }
    std::sort(held.begin(), held.end(), [](const Held& a, const Held& b) { return a.key < b.key; });
    return held;
}

// Adds `reserved` and `in_use` (either may be negative) to one counter, locking its row.
void AddTo(pqxx::transaction_base& tx, const CounterKey& key, double reserved, double in_use) {
    tx.exec_params(
        "UPDATE quota_counters SET reserved = reserved + $7, in_use = in_use + $8 "
        "WHERE scope = $1 AND issuer = $2 AND user_group = $3 AND subject = $4 AND service_id = $5 AND resource = $6 "
        "AND gpu_class = $9",
        std::string(workflow::QuotaScopeName(key.scope)),
        key.issuer,
        key.group,
        key.subject,
        key.service_id,
        std::string(workflow::QuotaResourceName(key.resource)),
        reserved,
        in_use,
        key.gpu_class
    );
}

// Gives back the deployment's claims on services only (its SLA claims, when it moves to another
// candidate site); they add nothing to the fair-share history, which counts the group claims.
void ReleaseServices(pqxx::transaction_base& tx, const std::string& deployment_id) {
    bool any = false;
    for (const auto& h : HeldBy(tx, deployment_id)) {
        if (!workflow::OnService(h.key)) {
            continue;
        }
        const bool in_use = h.state == AdmissionState::kInUse;
        AddTo(tx, h.key, in_use ? 0 : -h.amount, in_use ? -h.amount : 0);
        any = true;
    }
    if (any) {
        tx.exec_params(
            "DELETE FROM admission_claims WHERE deployment_id = $1::uuid AND scope IN ('group_service', "
            "'user_service')",
            deployment_id
        );
    }
}

}  // namespace

bool Reserve(
    pqxx::transaction_base& tx,
    const std::string& deployment_id,
    const std::vector<workflow::QuotaClaim>& claims,
    bool services_only
) {
    // A re-admission replaces what the deployment held; a move only its claims on services.
    if (services_only) {
        ReleaseServices(tx, deployment_id);
    } else {
        Release(tx, deployment_id);
    }
    auto sorted = claims;
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
    for (const auto& claim : sorted) {
        if (claim.amount <= 0 || (services_only && !workflow::OnService(claim.key))) {
            continue;
        }
        if (claim.amount > claim.limit) {
            return false;  // never fits; also keeps the INSERT branch below within the limit
        }
        const auto& key = claim.key;
        const std::string scope(workflow::QuotaScopeName(key.scope));
        const std::string resource(workflow::QuotaResourceName(key.resource));
        // One statement: the row is locked, checked and updated together, so concurrent admissions
        // on this counter (any replica) serialise here and none can pass on a stale sum.
        const auto fitted = tx.exec_params(
            "INSERT INTO quota_counters AS c (scope, issuer, user_group, subject, service_id, resource, gpu_class, "
            "reserved) VALUES ($1, $2, $3, $4, $5, $6, $9, $7) "
            "ON CONFLICT (scope, issuer, user_group, subject, service_id, resource, gpu_class) DO UPDATE "
            "SET reserved = c.reserved + EXCLUDED.reserved WHERE c.reserved + c.in_use + EXCLUDED.reserved <= $8 "
            "RETURNING 1",
            scope,
            key.issuer,
            key.group,
            key.subject,
            key.service_id,
            resource,
            claim.amount,
            claim.limit,
            key.gpu_class
        );
        if (fitted.empty()) {
            return false;
        }
        tx.exec_params(
            "INSERT INTO admission_claims (deployment_id, scope, issuer, user_group, subject, service_id, resource, "
            "amount, gpu_class) VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9)",
            deployment_id,
            scope,
            key.issuer,
            key.group,
            key.subject,
            key.service_id,
            resource,
            claim.amount,
            key.gpu_class
        );
    }
    return true;
}

void Promote(pqxx::transaction_base& tx, const std::string& deployment_id) {
    bool moved = false;
    for (const auto& h : HeldBy(tx, deployment_id)) {
        if (h.state == AdmissionState::kReserved) {
            AddTo(tx, h.key, -h.amount, h.amount);
            moved = true;
        }
    }
    if (moved) {
        tx.exec_params(
            "UPDATE admission_claims SET state = 'in_use' WHERE deployment_id = $1::uuid AND state = 'reserved'",
            deployment_id
        );
    }
}

void Release(pqxx::transaction_base& tx, const std::string& deployment_id) {
    const auto held = HeldBy(tx, deployment_id);
    for (const auto& h : held) {
        const bool in_use = h.state == AdmissionState::kInUse;
        AddTo(tx, h.key, in_use ? 0 : -h.amount, in_use ? -h.amount : 0);
    }
    if (!held.empty()) {
        // In resource order, so two releases of one group meet the history rows in one order.
        tx.exec_params(
            "INSERT INTO fair_share_usage (issuer, user_group, resource, day, amount) "
            "SELECT issuer, user_group, resource, current_date, "
            "       sum(amount * greatest(extract(epoch FROM now() - since)::float8, 0) / 3600.0) "
            "FROM admission_claims WHERE deployment_id = $1::uuid AND scope = 'group' AND gpu_class = '' "
            "GROUP BY issuer, user_group, resource ORDER BY issuer, user_group, resource "
            "ON CONFLICT (issuer, user_group, resource, day) "
            "DO UPDATE SET amount = fair_share_usage.amount + excluded.amount",
            deployment_id
        );
        tx.exec_params("DELETE FROM admission_claims WHERE deployment_id = $1::uuid", deployment_id);
    }
}

std::map<std::string, workflow::ShareVector, std::less<>> FairShareUsage(
    pqxx::transaction_base& tx, const std::string& issuer, std::chrono::milliseconds half_life
) {
    // Days older than a year count for nothing at any sensible half-life; they are not read.
    const double half_life_days = static_cast<double>(half_life.count()) / 86'400'000.0;
    const auto rows = tx.exec_params(
        "SELECT user_group, resource, sum(CASE WHEN $2::float8 > 0 "
        "THEN amount * power(0.5::float8, (current_date - day) / $2::float8) ELSE amount END) "
        "FROM fair_share_usage WHERE issuer = $1 AND day > current_date - 366 GROUP BY user_group, resource",
        issuer,
        half_life_days
    );
    std::map<std::string, workflow::ShareVector, std::less<>> out;
    for (const auto& row : rows) {
        const auto resource = workflow::ParseQuotaResource(row[1].as<std::string>());
        if (!resource) {
            continue;
        }
        auto& usage = out[row[0].as<std::string>()];
        const double amount = row[2].as<double>();
        switch (*resource) {
            case workflow::QuotaResource::kGpus:
                usage.gpus += amount;
                break;
            case workflow::QuotaResource::kCpus:
                usage.cpus += amount;
                break;
            case workflow::QuotaResource::kRamMb:
                usage.ram_mb += amount;
                break;
            case workflow::QuotaResource::kInstances:
                break;  // not a share dimension
        }
    }
    return out;
}

std::vector<workflow::QuotaCounter> Counters(
    pqxx::transaction_base& tx, const std::string& issuer, const std::vector<std::string>& groups
) {
    const auto rows = tx.exec_params(
        "SELECT scope, issuer, user_group, subject, service_id, resource, reserved, in_use, gpu_class "
        "FROM quota_counters WHERE issuer = $1 ORDER BY scope, user_group, subject, service_id, resource, gpu_class",
        issuer
    );
    std::vector<workflow::QuotaCounter> out;
    for (const auto& row : rows) {
        const auto scope = workflow::ParseQuotaScope(row[0].as<std::string>());
        const auto resource = workflow::ParseQuotaResource(row[5].as<std::string>());
        const auto group = row[2].as<std::string>();
        const bool wanted = groups.empty() || std::find(groups.begin(), groups.end(), group) != groups.end();
        if (!scope || !resource || !wanted) {
            continue;
        }
        workflow::QuotaCounter c;
        c.key = CounterKey{
            *scope,
            row[1].as<std::string>(),
            group,
            row[3].as<std::string>(),
            row[4].as<std::string>(),
            *resource,
            row[8].as<std::string>()};
        c.reserved = row[6].as<double>();
        c.in_use = row[7].as<double>();
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace orch::store::admission
