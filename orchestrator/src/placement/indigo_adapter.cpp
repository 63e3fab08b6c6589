#include "indigo_adapter.hpp"

#include "orchestrator/placement/indigo_ranker.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace orch::placement {
namespace {

CprInput BuildInput(
    const std::vector<Evaluation*>& accepted,
    const cmdb::SlaSet& slas,
    const cmdb::Catalogue& catalogue,
    const monitoring::Snapshot& snapshot
) {
    CprInput input;
    std::set<std::string> providers;
    std::set<std::string> services;
    for (const auto* eval : accepted) {
        input.priorities.push_back({"compute", std::string(eval->sla_id()), std::string(eval->service_id()), eval->weight()});
        providers.emplace(eval->provider_id());
        services.emplace(eval->service_id());
    }
    for (const auto& sla : slas.slas) {
        if (providers.count(sla.provider) != 0) {
            input.slas.push_back(sla);
        }
    }
    for (const auto& provider_id : providers) {
        const auto* signals = snapshot.FindProvider(provider_id);
        if (signals == nullptr) {
            continue;
        }
        CprMonitoring monitoring{provider_id, {}};
        for (const auto& service : signals->services) {
            const auto* known = catalogue.FindService(service.service_id);
            CprMonitoredService entry;
            entry.service_id = service.service_id;
            entry.type = !service.category.empty() ? service.category : (known != nullptr ? known->service_type : "");
            // ORCH passes the CMDB parent only for services that survived its pre-filter.
            entry.parent_id = known != nullptr && services.count(service.service_id) != 0 ? known->parent_id : "";
            entry.metrics = service.metrics;
            monitoring.services.push_back(std::move(entry));
        }
        input.monitoring.push_back(std::move(monitoring));
    }
    return input;
}

Json Breakdown(const CprRecord& record) {
    auto optional = [](const std::optional<double>& value) {
        return value ? Json(*value) : Json(nullptr);
    };
    return {
        {"sla_weight", optional(record.sla_weight)},
        {"sla_score", optional(record.sla_score)},
        {"metrics_score", optional(record.metrics_score)},
        {"parent_score", record.parent_score},
        {"total_score", record.total},
        {"ranked", record.ranked},
        {"indigo_rank", record.rank},
    };
}

}  // namespace

std::vector<std::string> RankIndigoMode(
    std::vector<Evaluation*>& accepted,
    const cmdb::SlaSet& slas,
    const cmdb::Catalogue& catalogue,
    const monitoring::Snapshot& snapshot
) {
    if (accepted.empty()) {
        return {};
    }
    auto records = RankIndigo(BuildInput(accepted, slas, catalogue, snapshot));
    if (!records) {
        const std::string note = "Error retrieving cloud provider ranking data: " + records.error().message;
        for (auto* eval : accepted) {
            eval->Reject(note);
        }
        accepted.clear();
        return {note};
    }
    std::map<std::string, const CprRecord*, std::less<>> by_service;
    for (const auto& record : *records) {
        by_service[record.service_id] = &record;
    }
    std::vector<std::pair<int, Evaluation*>> ranked;
    for (auto* eval : accepted) {
        const auto found = by_service.find(eval->service_id());
        if (found == by_service.end()) {
            eval->Reject("the indigo ranker gave no record for it");
            continue;
        }
        const CprRecord* record = found->second;
        eval->breakdown = ScoreBreakdown(Breakdown(*record));
        eval->score = record->total;
        if (!record->ranked) {
            eval->Reject("the indigo ranker does not rank it (its total score is 0)");
            continue;
        }
        ranked.emplace_back(record->rank, eval);
    }
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    accepted.clear();
    for (const auto& [rank, eval] : ranked) {
        accepted.push_back(eval);
    }
    return {};
}

}  // namespace orch::placement
