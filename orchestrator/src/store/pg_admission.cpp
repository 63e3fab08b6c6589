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
    double pending = 0;  ///< an update's change not yet settled (migration 0028)
};

// The deployment's claims in lock order. Rows written by a newer build with a scope or resource
// this one does not know are skipped: releasing them is that build's business.
std::vector<Held> HeldBy(pqxx::transaction_base& tx, const std::string& deployment_id) {
    const auto rows = tx.exec_params(
        "SELECT scope, issuer, user_group, subject, service_id, resource, amount, state, gpu_class, pending "
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
        h.pending = row[9].as<double>();
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

// Adds what the deployment holds on its group counters × how long since `since` to the day's
// fair-share history (per GPU class too: the class counters of its group's quota); `changing`: only the claims an
// update changes (their `since` restarts, so the hours before and after the change are counted at their own amounts).
void AddHistory(pqxx::transaction_base& tx, const std::string& deployment_id, bool changing) {
    // In resource order, so two releases of one group meet the history rows in one order.
    tx.exec_params(
        "INSERT INTO fair_share_usage (issuer, user_group, resource, gpu_class, day, amount) "
        "SELECT issuer, user_group, resource, gpu_class, current_date, "
        "       sum(amount * greatest(extract(epoch FROM now() - since)::float8, 0) / 3600.0) "
        "FROM admission_claims WHERE deployment_id = $1::uuid AND scope = 'group' "
        "AND (NOT $2::boolean OR pending <> 0) "
        "GROUP BY issuer, user_group, resource, gpu_class ORDER BY issuer, user_group, resource, gpu_class "
        "ON CONFLICT (issuer, user_group, resource, gpu_class, day) "
        "DO UPDATE SET amount = fair_share_usage.amount + excluded.amount",
        deployment_id,
        changing
    );
}

// Reserves `claim.amount` more on its counter only while reserved + in use stays within the
// limit: one statement, so concurrent reservations (any replica) serialise on the row.
bool ReserveOn(pqxx::transaction_base& tx, const workflow::QuotaClaim& claim) {
    if (claim.amount > claim.limit) {
        return false;  // never fits; also keeps the INSERT branch within the limit
    }
    const auto& key = claim.key;
    return !tx.exec_params(
                  "INSERT INTO quota_counters AS c (scope, issuer, user_group, subject, service_id, resource, "
                  "gpu_class, reserved) VALUES ($1, $2, $3, $4, $5, $6, $9, $7) "
                  "ON CONFLICT (scope, issuer, user_group, subject, service_id, resource, gpu_class) DO UPDATE "
                  "SET reserved = c.reserved + EXCLUDED.reserved WHERE c.reserved + c.in_use + EXCLUDED.reserved "
                  "<= $8 RETURNING 1",
                  std::string(workflow::QuotaScopeName(key.scope)),
                  key.issuer,
                  key.group,
                  key.subject,
                  key.service_id,
                  std::string(workflow::QuotaResourceName(key.resource)),
                  claim.amount,
                  claim.limit,
                  key.gpu_class
    )
                .empty();
}

// What the counter of `key` holds (reserved + in use), for the refusal's message.
double HeldOn(pqxx::transaction_base& tx, const CounterKey& key) {
    const auto r = tx.exec_params(
        "SELECT reserved + in_use FROM quota_counters WHERE scope = $1 AND issuer = $2 AND user_group = $3 "
        "AND subject = $4 AND service_id = $5 AND resource = $6 AND gpu_class = $7",
        std::string(workflow::QuotaScopeName(key.scope)),
        key.issuer,
        key.group,
        key.subject,
        key.service_id,
        std::string(workflow::QuotaResourceName(key.resource)),
        key.gpu_class
    );
    return r.empty() ? 0.0 : r[0][0].as<double>();
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
        if (!ReserveOn(tx, claim)) {
            return false;
        }
        const auto& key = claim.key;
        const std::string scope(workflow::QuotaScopeName(key.scope));
        const std::string resource(workflow::QuotaResourceName(key.resource));
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

std::optional<UpdateRefusal> ReserveUpdate(
    pqxx::transaction_base& tx, const std::string& deployment_id, const std::vector<workflow::QuotaClaim>& changes
) {
    SettleUpdate(tx, deployment_id, false);  // an earlier update's leftovers, should one remain
    auto sorted = changes;
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
    for (const auto& change : sorted) {
        const auto& key = change.key;
        if (change.amount > 0 && !ReserveOn(tx, change)) {
            return UpdateRefusal{change, HeldOn(tx, key)};
        }
        // A growth on a counter the deployment did not claim yet starts a row holding nothing; a
        // shrink of one it never claimed (admitted before the limit existed) gives nothing back.
        tx.exec_params(
            "INSERT INTO admission_claims AS a (deployment_id, scope, issuer, user_group, subject, service_id, "
            "resource, amount, gpu_class, state, pending) "
            "SELECT $1::uuid, $2, $3, $4, $5, $6, $7, 0, $9, 'in_use', $8::float8 WHERE $8::float8 > 0 "
            "ON CONFLICT (deployment_id, scope, issuer, user_group, subject, service_id, resource, gpu_class) "
            "DO UPDATE SET pending = greatest(a.pending + EXCLUDED.pending, -a.amount)",
            deployment_id,
            std::string(workflow::QuotaScopeName(key.scope)),
            key.issuer,
            key.group,
            key.subject,
            key.service_id,
            std::string(workflow::QuotaResourceName(key.resource)),
            change.amount,
            key.gpu_class
        );
        if (change.amount < 0) {
            tx.exec_params(
                "UPDATE admission_claims SET pending = greatest(pending + $9::float8, -amount) WHERE deployment_id = "
                "$1::uuid AND scope = $2 AND issuer = $3 AND user_group = $4 AND subject = $5 AND service_id = $6 "
                "AND resource = $7 AND gpu_class = $8",
                deployment_id,
                std::string(workflow::QuotaScopeName(key.scope)),
                key.issuer,
                key.group,
                key.subject,
                key.service_id,
                std::string(workflow::QuotaResourceName(key.resource)),
                key.gpu_class,
                change.amount
            );
        }
    }
    return std::nullopt;
}

void SettleUpdate(pqxx::transaction_base& tx, const std::string& deployment_id, bool completed) {
    bool any = false;
    for (const auto& h : HeldBy(tx, deployment_id)) {
        if (h.pending == 0) {
            continue;
        }
        any = true;
        const bool in_use = h.state == AdmissionState::kInUse;
        if (h.pending > 0) {
            // The growth was reserved: it becomes the claim's (in its state) or is given back.
            const double kept = completed ? h.pending : 0;
            AddTo(tx, h.key, -h.pending + (in_use ? 0 : kept), in_use ? kept : 0);
        } else if (completed) {
            AddTo(tx, h.key, in_use ? 0 : h.pending, in_use ? h.pending : 0);
        }
    }
    if (!any) {
        return;
    }
    if (completed) {
        AddHistory(tx, deployment_id, true);
        tx.exec_params(
            "UPDATE admission_claims SET amount = amount + pending, pending = 0, since = now() "
            "WHERE deployment_id = $1::uuid AND pending <> 0",
            deployment_id
        );
    } else {
        tx.exec_params(
            "UPDATE admission_claims SET pending = 0 WHERE deployment_id = $1::uuid AND pending <> 0", deployment_id
        );
    }
    tx.exec_params("DELETE FROM admission_claims WHERE deployment_id = $1::uuid AND amount <= 0", deployment_id);
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
        // An update's growth still pending is reserved on the counter as well.
        AddTo(tx, h.key, (in_use ? 0 : -h.amount) - std::max(h.pending, 0.0), in_use ? -h.amount : 0);
    }
    if (!held.empty()) {
        AddHistory(tx, deployment_id, false);
        tx.exec_params("DELETE FROM admission_claims WHERE deployment_id = $1::uuid", deployment_id);
    }
}

namespace {

// A history row's amount decayed by its age in days at half-life $2 (days; 0: no decay), summed.
// Days older than a year count for nothing at any sensible half-life; the queries skip them.
constexpr const char* kDecayedAmount =
    "sum(CASE WHEN $2::float8 > 0 "
    "THEN amount * power(0.5::float8, (current_date - day) / $2::float8) ELSE amount END)";

double HalfLifeDays(std::chrono::milliseconds half_life) {
    return static_cast<double>(half_life.count()) / 86'400'000.0;
}

}  // namespace

std::map<std::string, workflow::ShareVector, std::less<>> FairShareUsage(
    pqxx::transaction_base& tx, const std::string& issuer, std::chrono::milliseconds half_life
) {
    const auto rows = tx.exec_params(
        std::string("SELECT user_group, resource, ") + kDecayedAmount +
            " FROM fair_share_usage WHERE issuer = $1 AND gpu_class = '' AND day > current_date - 366 "
            "GROUP BY user_group, resource",
        issuer,
        HalfLifeDays(half_life)
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

std::map<std::string, std::map<std::string, double>, std::less<>> FairShareClassUsage(
    pqxx::transaction_base& tx, const std::string& issuer, std::chrono::milliseconds half_life
) {
    const auto rows = tx.exec_params(
        std::string("SELECT user_group, gpu_class, ") + kDecayedAmount +
            " FROM fair_share_usage WHERE issuer = $1 AND resource = 'gpus' AND gpu_class <> '' "
            "AND day > current_date - 366 GROUP BY user_group, gpu_class",
        issuer,
        HalfLifeDays(half_life)
    );
    std::map<std::string, std::map<std::string, double>, std::less<>> out;
    for (const auto& row : rows) {
        out[row[0].as<std::string>()][row[1].as<std::string>()] += row[2].as<double>();
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
