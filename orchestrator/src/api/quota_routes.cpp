#include "orchestrator/api/quota_routes.hpp"

#include "orchestrator/auth/owner_filter.hpp"

#include <algorithm>
#include <map>

namespace orch::api {
namespace {

using server::Request;
using server::Response;
using workflow::QuotaResource;
using workflow::QuotaScope;

// At most this many waiting requests are read per issuer (the admission queue's own bound).
constexpr int kMaxWaiting = 10'000;

struct Amounts {
    double gpus = 0;
    double cpus = 0;
    double ram_mb = 0;
    double instances = 0;

    void Add(QuotaResource resource, double amount) {
        switch (resource) {
            case QuotaResource::kGpus:
                gpus += amount;
                break;
            case QuotaResource::kCpus:
                cpus += amount;
                break;
            case QuotaResource::kRamMb:
                ram_mb += amount;
                break;
            case QuotaResource::kInstances:
                instances += amount;
                break;
        }
    }
    Json View() const { return {{"gpus", gpus}, {"cpus", cpus}, {"ramMb", ram_mb}, {"instances", instances}}; }
};

struct SiteView {
    Amounts usage;
    Amounts reserved;
};

struct GroupView {
    Amounts usage;
    Amounts reserved;
    Amounts queued;
    int queued_deployments = 0;
    std::map<std::string, SiteView> sites;  ///< by CMDB service id
    double reclaimed_gpu_hours = 0;
    std::int64_t reclamations = 0;
};

// A configured limit; null when unlimited.
Json Limit(const std::optional<double>& value) {
    return value ? Json(*value) : Json(nullptr);
}

Json LimitsView(const placement::QuotaOptions& quotas, const std::string& group) {
    if (!quotas.enabled) {
        return nullptr;
    }
    const auto it = quotas.groups.find(group);
    const auto& limits = it == quotas.groups.end() ? quotas.defaults.group : it->second.group;
    return {
        {"gpus", Limit(limits.gpus)},
        {"cpus", Limit(limits.cpus)},
        {"ramMb", Limit(limits.ram_mb)},
        {"instances", Limit(limits.instances)}};
}

Json GroupJson(const QuotaApi& ctx, const std::string& name, const GroupView& g) {
    Json sites = Json::array();
    for (const auto& [service, site] : g.sites) {
        sites.push_back({{"serviceId", service}, {"usage", site.usage.View()}, {"reserved", site.reserved.View()}});
    }
    Json queued = g.queued.View();
    queued.erase("instances");
    queued["deployments"] = g.queued_deployments;
    return {
        {"group", name},
        {"limits", LimitsView(ctx.quotas, name)},
        {"usage", g.usage.View()},
        {"reserved", g.reserved.View()},
        {"queued", std::move(queued)},
        {"sites", std::move(sites)},
        {"reclaimedGpuHours", g.reclaimed_gpu_hours},
        {"reclamations", g.reclamations}};
}

// Folds the counters of the group scopes into the views (user scopes are another user's detail).
void AddCounters(std::map<std::string, GroupView>& views, const std::vector<workflow::QuotaCounter>& counters) {
    for (const auto& c : counters) {
        if (c.key.scope == QuotaScope::kGroup) {
            auto& g = views[c.key.group];
            g.usage.Add(c.key.resource, c.in_use);
            g.reserved.Add(c.key.resource, c.reserved);
        } else if (c.key.scope == QuotaScope::kGroupOnService) {
            auto& site = views[c.key.group].sites[c.key.service_id];
            site.usage.Add(c.key.resource, c.in_use);
            site.reserved.Add(c.key.resource, c.reserved);
        }
    }
}

bool Allowed(const std::optional<std::vector<std::string>>& groups, const std::string& group) {
    return !groups || std::find(groups->begin(), groups->end(), group) != groups->end();
}

Result<Response> GetQuotas(QuotaApi& ctx, const Request& request) {
    ORCH_ASSIGN_OR_RETURN(const auto principal, Authorize(ctx.api, request, auth::Access::kRead));
    // The one scoping: the caller's issuer, and their groups unless admin (OwnerFilter).
    const auto scope = auth::OwnerFilter::VisibleTo(principal);
    const std::string issuer = scope.issuer().value_or(principal.issuer);
    const auto& groups = scope.groups();
    std::map<std::string, GroupView> views;
    if (groups) {
        for (const auto& g : *groups) {
            views[g];  // each of the caller's groups is listed, used or not
        }
    }
    // An empty group list asks the stores for every group: a caller without groups asks nothing.
    if (!groups || !groups->empty()) {
        const std::vector<std::string> wanted = groups.value_or(std::vector<std::string>{});
        ORCH_ASSIGN_OR_RETURN(const auto counters, ctx.workflow.QuotaCounters(issuer, wanted));
        AddCounters(views, counters);
        ORCH_ASSIGN_OR_RETURN(const auto waiting, ctx.workflow.WaitingRequests(issuer, kMaxWaiting));
        for (const auto& w : waiting) {
            if (Allowed(groups, w.group)) {
                auto& g = views[w.group];
                ++g.queued_deployments;
                g.queued.gpus += w.demand.gpus;
                g.queued.cpus += w.demand.cpus;
                g.queued.ram_mb += w.demand.ram_mb;
            }
        }
        ORCH_ASSIGN_OR_RETURN(const auto reclaimed, ctx.idle.Reclaimed(issuer, wanted));
        for (const auto& r : reclaimed) {
            auto& g = views[r.group];
            g.reclaimed_gpu_hours = r.gpu_hours;
            g.reclamations = r.reclamations;
        }
    }
    Json items = Json::array();
    for (const auto& [name, view] : views) {
        items.push_back(GroupJson(ctx, name, view));
    }
    return Response::Json(200, Json{{"issuer", issuer}, {"groups", std::move(items)}});
}

}  // namespace

void RegisterQuotaRoutes(server::Router& router, QuotaApi& ctx) {
    router.Add(
        "GET",
        "/quotas",
        [&ctx](const Request& request) {
            auto result = GetQuotas(ctx, request);
            return result ? std::move(*result) : ErrorResponse(result.error());
        },
        {.name = "quotas.get"}
    );
}

}  // namespace orch::api
