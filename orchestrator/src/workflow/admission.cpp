#include "orchestrator/workflow/admission.hpp"

#include "orchestrator/placement/gpu_class.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <sstream>

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

// One claim per GPU class limited whose GPUs the deployment asks for.
void AddClassClaims(
    const placement::QuotaLimits& limits,
    const tosca::DeploymentSpec& spec,
    const CounterKey& base,
    std::vector<QuotaClaim>& out
) {
    for (const auto& item : limits.gpu_classes) {
        const int amount = placement::GpusOfClass(spec, item.gpu_class);
        if (amount <= 0) {
            continue;
        }
        CounterKey key = base;
        key.resource = QuotaResource::kGpus;
        key.gpu_class = item.gpu_class.name;
        out.push_back(QuotaClaim{std::move(key), static_cast<double>(amount), item.limit});
    }
}

void AddAllClaims(
    const placement::GroupQuota& quota,
    const placement::ResourceTotals& request,
    const tosca::DeploymentSpec& spec,
    const CounterKey& group,
    const CounterKey& user,
    std::vector<QuotaClaim>& out
) {
    AddClaims(quota.group, request, group, out);
    AddClaims(quota.user, request, user, out);
    AddClassClaims(quota.group, spec, group, out);
    AddClassClaims(quota.user, spec, user, out);
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
    const placement::ResourceTotals& request,
    const tosca::DeploymentSpec& spec,
    std::size_t candidate
) {
    std::vector<QuotaClaim> claims;
    const CounterKey group{
        QuotaScope::kGroup, requester.issuer, decision.quota_group, "", "", QuotaResource::kGpus, ""};
    CounterKey user = group;
    user.scope = QuotaScope::kUser;
    user.subject = requester.subject;
    // The class is the GPUs the chosen flavor has when placement knows them, not the request's.
    std::optional<tosca::DeploymentSpec> chosen;
    if (candidate < decision.ranked.size() && !decision.ranked[candidate].chosen_gpus.empty()) {
        chosen = placement::WithChosenGpus(spec, decision.ranked[candidate].chosen_gpus);
    }
    const tosca::DeploymentSpec& classed = chosen ? *chosen : spec;
    AddAllClaims(decision.configured_quota, request, classed, group, user, claims);
    if (candidate < decision.ranked.size()) {
        const auto& on = decision.ranked[candidate];
        CounterKey group_on = group;
        group_on.scope = QuotaScope::kGroupOnService;
        group_on.service_id = on.target.service_id;
        CounterKey user_on = user;
        user_on.scope = QuotaScope::kUserOnService;
        user_on.service_id = on.target.service_id;
        AddAllClaims(on.sla_quota, request, classed, group_on, user_on, claims);
    }
    std::sort(claims.begin(), claims.end(), [](const QuotaClaim& a, const QuotaClaim& b) { return a.key < b.key; });
    return claims;
}

std::vector<QuotaClaim> UpdateClaims(const std::vector<QuotaClaim>& before, const std::vector<QuotaClaim>& after) {
    std::map<CounterKey, QuotaClaim> change;
    for (const auto& claim : before) {
        auto& c = change.try_emplace(claim.key, QuotaClaim{claim.key, 0, claim.limit}).first->second;
        c.amount -= claim.amount;
    }
    for (const auto& claim : after) {
        auto& c = change.try_emplace(claim.key, QuotaClaim{claim.key, 0, claim.limit}).first->second;
        c.amount += claim.amount;
        c.limit = claim.limit;
    }
    std::vector<QuotaClaim> out;
    for (auto& entry : change) {
        if (entry.second.amount != 0) {
            out.push_back(std::move(entry.second));
        }
    }
    return out;  // in key order: the map's
}

std::string QuotaName(const CounterKey& key) {
    std::string name =
        key.subject.empty() || (key.scope != QuotaScope::kUser && key.scope != QuotaScope::kUserOnService)
            ? "group '" + key.group + "'"
            : "user '" + key.subject + "' of group '" + key.group + "'";
    if (OnService(key)) {
        name += " on service '" + key.service_id + "'";
    }
    return name;
}

std::string QuotaUnit(const CounterKey& key) {
    switch (key.resource) {
        case QuotaResource::kGpus:
            return key.gpu_class.empty() ? "GPU" : key.gpu_class;
        case QuotaResource::kCpus:
            return "CPU";
        case QuotaResource::kRamMb:
            return "MB of RAM";
        case QuotaResource::kInstances:
            return "instance(s)";
    }
    return "GPU";
}

std::string UpdateRefusedMessage(const QuotaClaim& claim, double held) {
    std::ostringstream out;
    out << "The update needs " << claim.amount << " more × " << QuotaUnit(claim.key) << " and the quota of "
        << QuotaName(claim.key) << " (" << claim.limit << ") ";
    if (claim.amount > claim.limit) {
        out << "is smaller than that";
    } else {
        out << "has " << std::max(0.0, claim.limit - held) << " free now (" << held << " held)";
    }
    out << ": the update is refused, nothing was changed";
    return out.str();
}

bool OnService(const CounterKey& key) {
    return key.scope == QuotaScope::kGroupOnService || key.scope == QuotaScope::kUserOnService;
}

Json ClaimsToJson(const std::vector<QuotaClaim>& claims) {
    Json out = Json::array();
    for (const auto& claim : claims) {
        out.push_back(Json{
            {"scope", QuotaScopeName(claim.key.scope)},
            {"issuer", claim.key.issuer},
            {"group", claim.key.group},
            {"subject", claim.key.subject},
            {"service_id", claim.key.service_id},
            {"resource", QuotaResourceName(claim.key.resource)},
            {"gpu_class", claim.key.gpu_class},
            {"amount", claim.amount},
            {"limit", claim.limit}});
    }
    return out;
}

std::vector<QuotaClaim> ClaimsFromJson(const Json& json) {
    std::vector<QuotaClaim> out;
    if (!json.is_array()) {
        return out;
    }
    for (const auto& item : json) {
        if (!item.is_object()) {
            continue;
        }
        const auto scope = ParseQuotaScope(item.value("scope", ""));
        const auto resource = ParseQuotaResource(item.value("resource", ""));
        if (!scope || !resource) {
            continue;
        }
        CounterKey key{
            *scope,
            item.value("issuer", ""),
            item.value("group", ""),
            item.value("subject", ""),
            item.value("service_id", ""),
            *resource,
            item.value("gpu_class", "")};
        out.push_back(QuotaClaim{std::move(key), item.value("amount", 0.0), item.value("limit", 0.0)});
    }
    std::sort(out.begin(), out.end(), [](const QuotaClaim& a, const QuotaClaim& b) { return a.key < b.key; });
    return out;
}

std::string WaitingFor(
    const placement::ResourceTotals& request, const std::vector<QuotaClaim>& claims, const tosca::DeploymentSpec& spec
) {
    if (request.gpus > 0) {
        std::string gpu_class;
        for (const auto& claim : claims) {
            if (!claim.key.gpu_class.empty()) {
                gpu_class = claim.key.gpu_class;
                break;
            }
        }
        for (const auto* node : spec.WorkloadNodes()) {
            if (gpu_class.empty() && node->resources.gpu.count > 0 && !node->resources.gpu.model.empty()) {
                gpu_class = node->resources.gpu.model;
            }
        }
        return std::to_string(request.gpus) + " × " + (gpu_class.empty() ? std::string("GPU") : gpu_class);
    }
    if (request.cpus > 0) {
        std::ostringstream cpus;
        cpus << request.cpus;
        return cpus.str() + " × CPU";
    }
    return std::to_string(request.instances) + " instance(s)";
}

}  // namespace orch::workflow
