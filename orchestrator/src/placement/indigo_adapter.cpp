#include "indigo_adapter.hpp"

#include "orchestrator/placement/indigo_ranker.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace orch::placement {
namespace {

CprInput BuildInput(
    const std::vector<Evaluation*>& accepted,
    const cmdb::SlaSet& slas,
    const cmdb::Catalogue& catalogue,
    const monitoring::Snapshot& snapshot
) {
    CprInput input;
    // Views of the universe's ids; sorted providers (the order the ranker is given monitoring
    // in), hashed services: sets of strings cost a fifth of an indigo placement.
    std::vector<std::string_view> providers;
    std::unordered_set<std::string_view> services;
    providers.reserve(accepted.size());
    services.reserve(accepted.size());
    input.priorities.reserve(accepted.size());
    for (const auto* eval : accepted) {
        input.priorities.push_back(
            {"compute", std::string(eval->sla_id()), std::string(eval->service_id()), eval->weight()}
        );
        providers.push_back(eval->provider_id());
        services.insert(eval->service_id());
    }
    std::sort(providers.begin(), providers.end());
    providers.erase(std::unique(providers.begin(), providers.end()), providers.end());
    for (const auto& sla : slas.slas) {
        if (std::binary_search(providers.begin(), providers.end(), std::string_view(sla.provider))) {
            input.slas.push_back(sla);
        }
    }
    for (const auto& provider_id : providers) {
        const auto* signals = snapshot.FindProvider(provider_id);
        if (signals == nullptr) {
            continue;
        }
        CprMonitoring monitoring{std::string(provider_id), {}};
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
    std::unordered_map<std::string_view, const CprRecord*> by_service;
    by_service.reserve(records->size());
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
        eval->breakdown = ScoreBreakdown(IndigoScore{
            record->sla_weight,
            record->sla_score,
            record->metrics_score,
            record->parent_score,
            record->total,
            record->ranked,
            record->rank,
        });
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
