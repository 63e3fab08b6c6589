#include "orchestrator/workflow/admission.hpp"

#include <algorithm>
#include <array>

namespace orch::workflow {
namespace {

constexpr std::array kScopes{
    QuotaScope::kGroup, QuotaScope::kUser, QuotaScope::kGroupOnService, QuotaScope::kUserOnService};
constexpr std::array kResources{
    QuotaResource::kGpus, QuotaResource::kCpus, QuotaResource::kRamMb, QuotaResource::kInstances};

// One claim per limited resource the request asks for; a resource it does not use is not
// claimed (a CPU-only deployment never waits on the GPU counter).
void AddClaims(
    const placement::QuotaLimits& limits,
    const placement::ResourceTotals& request,
    const CounterKey& base,
    std::vector<QuotaClaim>& out
) {
    const std::pair<const std::optional<double>*, double> items[] = {
        {&limits.gpus, static_cast<double>(request.gpus)},
        {&limits.cpus, request.cpus},
        {&limits.ram_mb, static_cast<double>(request.ram_mb)},
        {&limits.instances, static_cast<double>(request.instances)},
    };
    for (std::size_t i = 0; i < kResources.size(); ++i) {
        const auto& [limit, amount] = items[i];
        if (!limit->has_value() || amount <= 0) {
            continue;
        }
        CounterKey key = base;
        key.resource = kResources[i];
        out.push_back(QuotaClaim{std::move(key), amount, **limit});
    }
}

}  // namespace

std::string_view QuotaScopeName(QuotaScope scope) {
    switch (scope) {
        case QuotaScope::kGroup:
            return "group";
        case QuotaScope::kUser:
            return "user";
        case QuotaScope::kGroupOnService:
            return "group_service";
        case QuotaScope::kUserOnService:
            return "user_service";
    }
    return "group";
}

std::optional<QuotaScope> ParseQuotaScope(std::string_view name) {
    for (const auto scope : kScopes) {
        if (QuotaScopeName(scope) == name) {
            return scope;
        }
    }
    return std::nullopt;
}

std::string_view QuotaResourceName(QuotaResource resource) {
    switch (resource) {
        case QuotaResource::kGpus:
            return "gpus";
        case QuotaResource::kCpus:
            return "cpus";
        case QuotaResource::kRamMb:
            return "ram_mb";
        case QuotaResource::kInstances:
            return "instances";
    }
    return "gpus";
}

std::optional<QuotaResource> ParseQuotaResource(std::string_view name) {
    for (const auto resource : kResources) {
        if (QuotaResourceName(resource) == name) {
            return resource;
        }
    }
    return std::nullopt;
}

std::string_view AdmissionStateName(AdmissionState state) {
    return state == AdmissionState::kInUse ? "in_use" : "reserved";
}

std::vector<QuotaClaim> ClaimsFor(
    const placement::PlacementDecision& decision,
    const placement::Requester& requester,
    const placement::ResourceTotals& request
) {
    std::vector<QuotaClaim> claims;
    const CounterKey group{QuotaScope::kGroup, requester.issuer, decision.quota_group, "", "", QuotaResource::kGpus};
    CounterKey user = group;
    user.scope = QuotaScope::kUser;
    user.subject = requester.subject;
    AddClaims(decision.configured_quota.group, request, group, claims);
    AddClaims(decision.configured_quota.user, request, user, claims);
    if (!decision.ranked.empty()) {
        const auto& first = decision.ranked.front();
        CounterKey group_on = group;
        group_on.scope = QuotaScope::kGroupOnService;
        group_on.service_id = first.target.service_id;
        CounterKey user_on = user;
        user_on.scope = QuotaScope::kUserOnService;
        user_on.service_id = first.target.service_id;
        AddClaims(first.sla_quota.group, request, group_on, claims);
        AddClaims(first.sla_quota.user, request, user_on, claims);
    }
    std::sort(claims.begin(), claims.end(), [](const QuotaClaim& a, const QuotaClaim& b) { return a.key < b.key; });
    return claims;
}

}  // namespace orch::workflow
